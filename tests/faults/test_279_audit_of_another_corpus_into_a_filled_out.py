"""Case 279: an audit of another corpus run into an ``out`` that holds an earlier audit's outputs, whose clips have
the ids of the earlier corpus's (``a.wav`` in another folder).  The store refuses results of a clip id made from
other audio, but only in the transcription stage: ``audit --check`` passed, and the run, stopping there, wrote the
outputs of the stages it had done (none), replacing the earlier audit's summary.json and report.html with the
empty ones of the refused run and removing its tables (``clips.parquet``).  Now the store's clips are compared with
the corpus before any stage runs (``run.grid.check_stored_clip_audio``, from ``audit.prepare``)."""

from __future__ import annotations

import pytest

from tests.faults.conftest import one_clip_manifest, two_pocketsphinx_audit

pytest.importorskip("pocketsphinx")

REFUSED = ("asraudit: error: c2/m.jsonl, row 1: clip 'a.wav': the store asraudit.sqlite already holds results for a "
           "clip of this id made from other audio; one store holds one corpus's clip ids: use another store "
           "(--store) or output folder")


@pytest.fixture()
def filled(tmp_path, monkeypatch, cli):
    monkeypatch.chdir(tmp_path)
    one_clip_manifest(tmp_path)
    (tmp_path / "c2").mkdir()
    one_clip_manifest(tmp_path / "c2", tone=False, text="silence")
    (tmp_path / "first.toml").write_text(two_pocketsphinx_audit("m.jsonl"), encoding="utf-8")
    (tmp_path / "second.toml").write_text(two_pocketsphinx_audit("c2/m.jsonl"), encoding="utf-8")
    assert cli("audit", "first.toml").code == 0
    out = tmp_path / "o"
    return out, {p.relative_to(out): p.read_bytes() for p in out.rglob("*") if p.is_file() and p.suffix != ".sqlite"}


def test_check_refuses_the_other_corpus(filled, cli):
    ran = cli("audit", "--check", "second.toml")
    assert (ran.code, ran.error_lines) == (2, [REFUSED])


def test_the_run_refused_leaves_the_earlier_outputs(filled, cli):
    out, before = filled
    assert "tables/clips.parquet" in {str(p) for p in before}
    ran = cli("audit", "second.toml")
    assert (ran.code, ran.error_lines) == (2, [REFUSED])
    after = {p.relative_to(out): p.read_bytes() for p in out.rglob("*") if p.is_file() and p.suffix != ".sqlite"}
    assert after == before


def test_the_same_audit_again_reuses_its_results(filled, cli):
    ran = cli("audit", "first.toml")
    assert ran.code == 0, ran.err
    assert "0 job(s) run now, 1 already stored" in ran.err
