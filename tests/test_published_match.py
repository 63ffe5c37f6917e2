"""An audit beside the paper's published numbers: the match rule, the summary rows and the report section."""

from __future__ import annotations

import json

import pytest

from asraudit.cli import main
from asraudit.data.published import load_published
from asraudit.audit.published import mismatch, settings_of
from asraudit.probes.refdis import MinerParams
from test_audit import _replay_spec, _spec_file, published_schema

PANEL = ["clean0", "clean1", "clean2"]
SETTINGS = {"majority_pct": 0.66, "min_run_len": 1, "include_middle": True, "min_ref_match_pct": 0.5,
            "min_consensus_cer": 0.3}  # the replayed audit's [refdis] (majority 0.66) with the miner's defaults


def _release(folder, name, corpus="parliament-mini", panel=PANEL, **settings):
    folder.mkdir(exist_ok=True)
    d = {"dataset": corpus, "language": "en", "split": "test", "whitelist": panel,
         "params": {**SETTINGS, **settings}, "prominence": {"clips_analyzed": 70, "n_runs": 9},
         "benchmaxx_leaderboard": [
             {"model": "published-echo", "in_whitelist": False, "benchmaxx_score": 0.8889, "accepted_ref": 8,
              "followed_consensus": 1, "eligible_runs": 9},
             {"model": "published-faithful", "in_whitelist": False, "benchmaxx_score": 0.0, "accepted_ref": 0,
              "followed_consensus": 9, "eligible_runs": 9}]}
    (folder / f"{name}_aggregate.json").write_text(json.dumps(d), encoding="utf-8")
    return folder


def test_the_match_compares_corpus_panel_in_any_order_and_every_setting(tmp_path):
    release = load_published(_release(tmp_path / "r", "same"))
    s = release.sets["same"]
    params = MinerParams(majority=0.66)
    assert mismatch(s, "parliament-mini", list(reversed(PANEL)), settings_of(params)) == ""
    assert "corpus" in mismatch(s, "voxpopuli", PANEL, settings_of(params))
    assert "panel" in mismatch(s, "parliament-mini", PANEL[:2] + ["other"], settings_of(params))
    assert "majority" in mismatch(s, "parliament-mini", PANEL, settings_of(MinerParams(majority=0.75)))
    assert "include_middle" in mismatch(s, "parliament-mini", PANEL,
                                        settings_of(MinerParams(majority=0.66, include_middle=False)))


def test_a_matching_audit_carries_the_published_rows_and_shows_them_marked(tmp_path, capsys):
    release = _release(tmp_path / "release", "tiny")
    _release(release, "stricter", majority_pct=0.75)  # same corpus and panel, other settings: noted, not shown
    text = _replay_spec(tmp_path) + f'\n[published]\ndir = "{release}"\ncorpus = "parliament-mini"\n'
    assert main(["audit", str(_spec_file(tmp_path, text)), "--no-progress"]) == 0
    out = tmp_path / "out"
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    [tiny] = summary["published"]
    assert tiny["name"] == "tiny" and tiny["note"] == "published, not re-measured"
    rows = {r["model"]: r for r in tiny["rows"]}
    assert rows["published-echo"]["accept_ref"] == pytest.approx(8 / 9)
    assert rows["published-echo"]["accept_ref_interval"]["method"] == "wilson"
    assert any("stricter not shown: settings majority 0.75" in n for n in summary["provenance"]["notes"])
    capsys.readouterr()
    import jsonschema
    jsonschema.validate(summary, published_schema(capsys))
    page = (out / "report.html").read_text(encoding="utf-8")
    section = page[page.index('id="published-section"'):]
    section = section[: section.index("</section>")]
    assert "published-echo" in section and "echo" in section and "published, not re-measured" in section
    assert section.count('class="audited"') >= 4 and section.count('class="published"') >= 4  # chart and table


def test_a_missing_release_folder_is_refused_before_any_work(tmp_path, capsys):
    text = _replay_spec(tmp_path) + f'\n[published]\ndir = "{tmp_path / "nowhere"}"\ncorpus = "x"\n'
    assert main(["audit", str(_spec_file(tmp_path, text)), "--check"]) == 2
    assert "[published]" in capsys.readouterr().err
