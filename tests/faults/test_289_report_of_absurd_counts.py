"""Case 289: ``asraudit report`` over a summary.json whose numbers no audit writes: a count of hundreds of digits
(``n_eligible``, ``mining/edits``: Python reads an integer of up to 4,300 digits whole), a count past 2^53
(``mining/status/mined`` of 31 digits, ``1e300`` where a count goes, which the schema's integer took as whole), an
integer of 401 digits where a rate goes, a negative real-time factor.  The counts were rendered into the page
without a word, exit 0; the rate was an ``OverflowError`` traceback (``int too large to convert to float``).  As
cases 249 and 278, the schema check (``report.schema.from_json``) refuses each in one line naming the field: a
count is at most 2^53 (the largest count a release is read with), every number is within a double, ``rtfx`` is at
least 0.  A negative count, a bool or a fraction where a count goes were refused already, and still are."""

from __future__ import annotations

import json

import pytest

from conftest import text_only_audit_summary

LAYOUT = "not a summary.json of layout 2.4"
PAST_A_DOUBLE = "a number of 401 digits is not a number a summary holds (past the largest double; a damaged or " \
                "hand-edited file?)"
PAST_A_COUNT = "is more than any count of an audit (at most 2^53 = 9007199254740992; a damaged or hand-edited file?)"


@pytest.fixture(scope="module")
def summary(tmp_path_factory):
    path = text_only_audit_summary(tmp_path_factory.mktemp("audit"), n_clips=6, bootstrap=20)
    return json.loads(path.read_text(encoding="utf-8"))


def _changed(summary: dict, place: str, value) -> dict:
    data = json.loads(json.dumps(summary))
    *path, last = place.split("/")
    node = data
    for key in path:
        node = node[key]
    node[last] = value
    return data


def _report(cli, tmp_path, data):
    path = tmp_path / "summary.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return cli("report", path, "--out", tmp_path / "page.html"), path


@pytest.mark.parametrize(("place", "value", "message"), [
    ("models/m3/n_eligible", 10**400, PAST_A_DOUBLE),
    ("mining/edits", 10**400, PAST_A_DOUBLE),
    ("models/m3/wer", 10**400, PAST_A_DOUBLE),
    ("mining/status/mined", 10**30, f"a number of 31 digits {PAST_A_COUNT}"),
    ("mining/clips", 1e300, f"1e+300 {PAST_A_COUNT}"),
    ("models/m3/n_echoed", 2**53 + 1, f"9007199254740993 {PAST_A_COUNT}"),
    ("models/m3/rtfx", -5.0, "-5.0 is less than the minimum of 0"),
    ("models/m3/n_ref", -3, "-3 is less than the minimum of 0"),
    ("mining/clips", True, "True is not of type 'integer'"),
], ids=["count-401-digits", "edits-401-digits", "rate-401-digits", "count-31-digits", "count-1e300", "count-2^53+1",
        "rtfx-negative", "count-negative", "count-bool"])
def test_an_absurd_number_is_refused_naming_its_field(summary, cli, tmp_path, place, value, message):
    ran, path = _report(cli, tmp_path, _changed(summary, place, value))
    assert (ran.code, ran.error_lines) == (2, [f"asraudit: error: {path}: {LAYOUT}: at {place}: {message}"])
    assert not (tmp_path / "page.html").exists()


@pytest.mark.parametrize(("place", "value"), [
    ("provenance/seed", 2**60),      # a seed is any whole number, not a count
    ("mining/clips", 6.0),           # a whole count a tool saved as a float
    ("models/m3/n_eligible", 2**53),  # the largest count read
], ids=["seed-2^60", "count-6.0", "count-2^53"])
def test_numbers_an_audit_may_write_render(summary, cli, tmp_path, place, value):
    ran, _ = _report(cli, tmp_path, _changed(summary, place, value))
    assert ran.code == 0, ran.err
    assert (tmp_path / "page.html").exists()
