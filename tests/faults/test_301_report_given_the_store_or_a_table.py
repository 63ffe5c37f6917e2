"""Case 301: ``asraudit report`` given one of the audit's other files for its summary.json: the result store
(``out/asraudit.sqlite``) or one of its Parquet tables (``out/tables/*.parquet``), as a completed path one word
off gives.  The file was read whole into memory (a store of 200 MB: a peak of 456 MB), then refused as
``row 1: not valid UTF-8 (byte 0x.. at offset ..): save the file as UTF-8``, advice that fits neither.  Now it is
named for what it is from its first bytes, nothing more read, with what ``report`` reads instead."""

from __future__ import annotations

import pytest

from conftest import text_only_audit_summary

FIX = ("not a summary.json: report reads the summary.json an audit writes into its out folder: give that file, "
       "or the folder")


@pytest.fixture()
def audit_out(tmp_path):
    """The out folder of a small text-only audit (its store, tables and summary.json)."""
    return text_only_audit_summary(tmp_path, 6, 20).parent


def test_the_store_is_named(audit_out, cli, tmp_path):
    store = audit_out / "asraudit.sqlite"
    ran = cli("report", store, "--out", tmp_path / "page.html")
    assert ran.code == 2 and ran.out == ""
    assert ran.error_lines == [f"asraudit: error: {store}: an SQLite database (the audit's result store, "
                               f"asraudit.sqlite?), {FIX}"]
    assert not (tmp_path / "page.html").exists()


def test_a_table_is_named(audit_out, cli, tmp_path):
    table = sorted((audit_out / "tables").glob("*.parquet"))[0]
    ran = cli("report", table, "--out", tmp_path / "page.html")
    assert ran.code == 2 and ran.out == ""
    assert ran.error_lines == [f"asraudit: error: {table}: a Parquet table (one of the audit's tables?), {FIX}"]


def test_the_summary_beside_them_still_renders(audit_out, cli, tmp_path):
    ran = cli("report", audit_out / "summary.json", "--out", tmp_path / "page.html")
    assert ran.code == 0, ran.err
    assert (tmp_path / "page.html").read_text(encoding="utf-8").lstrip().lower().startswith("<!doctype html")
