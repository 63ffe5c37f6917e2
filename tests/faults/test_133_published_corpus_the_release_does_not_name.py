"""Case 133: an audit's `[published] corpus` that the release does not name (a typo, `VoxPopuli` for the
release's `voxpopuli`).

The release was read and checked when the spec was read, but the corpus name was compared with its sets only
once every model had run: `--check` passed, the audit ran to the end, and the comparison the section asked for
was one provenance note (`no published set of it`), no row. Now refused when the spec is read.
"""

from __future__ import annotations

import json

from conftest import write_preds


def _release(folder):
    folder.mkdir()
    d = {"dataset": "voxpopuli", "language": "en", "split": "test", "whitelist": ["m0", "m1", "m2"],
         "params": {"majority_pct": 0.66, "min_run_len": 1, "include_middle": True, "min_ref_match_pct": 0.5,
                    "min_consensus_cer": 0.3},
         "prominence": {"clips_analyzed": 6, "n_runs": 2},
         "benchmaxx_leaderboard": [{"model": "published-echo", "in_whitelist": False, "benchmaxx_score": 0.5,
                                    "accepted_ref": 1, "followed_consensus": 1, "eligible_runs": 2}]}
    (folder / "vox_aggregate.json").write_text(json.dumps(d), encoding="utf-8")
    switch = {"hon_mister": {"scope": "within-librispeech", "arms": ["Mr", "mister"], "chance": 0.5,
                             "min_per_arm": 3, "results": {}}}
    (folder / "ortho_switch.json").write_text(json.dumps(switch), encoding="utf-8")
    return folder


def _spec(tmp_path, corpus):
    clips = [(f"c{i}", f"the cat sat on mat number {i}", f"the cat sat on the mat number {i}") for i in range(6)]
    for k in range(3):
        write_preds(tmp_path / f"m{k}.jsonl", [(c, r, h if k else r) for c, r, h in clips])
    models = "".join(f'[[model]]\npredictions = "m{k}.jsonl"\npanel = true\n\n' for k in range(3))
    spec = tmp_path / "audit.toml"
    spec.write_text(f'name = "t"\nout = "out"\nbootstrap = 20\n[corpus]\npredictions = "m0.jsonl"\n\n{models}'
                    f'[refdis]\nmajority = 0.66\nmin_panel = 2\n[published]\ndir = "release"\ncorpus = "{corpus}"\n',
                    encoding="utf-8")
    return spec


def test_a_corpus_name_the_release_lacks_is_refused_before_any_model(cli, tmp_path, monkeypatch):
    _release(tmp_path / "release")
    spec = _spec(tmp_path, "VoxPopuli")
    monkeypatch.chdir(tmp_path)
    for args in (("--check",), ("--no-progress",)):
        r = cli("audit", spec, *args)
        assert r.code == 2
        assert r.error_lines == [
            "asraudit: error: audit.toml: [published]: corpus 'VoxPopuli' is no corpus of the release, so nothing "
            "would be compared: it names librispeech, voxpopuli: give this audit's corpus as the release writes it"]
    assert not (tmp_path / "out").exists()


def test_a_corpus_the_release_names_still_runs(cli, tmp_path, monkeypatch):
    _release(tmp_path / "release")
    monkeypatch.chdir(tmp_path)
    for corpus in ("voxpopuli", "librispeech"):  # a set's corpus, or a switch group's
        assert cli("audit", _spec(tmp_path, corpus), "--check").code == 0
