"""`asraudit wer --group-field F`: WER and its clip-bootstrap interval per group, and its bad input."""

from __future__ import annotations

import json

import numpy as np
import pytest

from asraudit.cli import main
from asraudit.metrics.group_wer import wer_by_group
from asraudit.metrics.stats import bootstrap_ratio


def _preds(tmp_path):
    f = tmp_path / "m.jsonl"
    rows = [("a", "red green blue gray", "red green blue gray", "s1"),
            ("b", "cat dog", "cat", "s1"),
            ("c", "sun moon star sky", "sun moon", "s2"),
            ("d", "tree", "tree", None)]
    f.write_text("".join(json.dumps({"audio_filepath": c, "text": r, "pred_text": h,
                                     **({"speaker": s} if s else {})}) + "\n" for c, r, h, s in rows),
                 encoding="utf-8")
    return f


def test_each_group_is_its_errors_over_its_words_with_the_clip_bootstrap(tmp_path, capsys):
    out = tmp_path / "w.json"
    assert main(["wer", "--preds", str(_preds(tmp_path)), "--group-field", "speaker", "--json", str(out),
                 "--bootstrap", "200"]) == 0
    groups = {g["group"]: g for g in json.loads(out.read_text())["groups"]["models"]["m"]}
    assert set(groups) == {"s1", "s2", "(none)"}
    assert (groups["s1"]["errors"], groups["s1"]["ref_words"], groups["s1"]["clips"]) == (1, 6, 2)
    assert groups["s1"]["wer"] == pytest.approx(1 / 6) and groups["s2"]["wer"] == pytest.approx(2 / 4)
    # the interval is stats.bootstrap_ratio over the group's clips, as for the corpus WER
    expected = bootstrap_ratio([0, 1], [4, 2], n_boot=200, seed=0)
    assert (groups["s1"]["wer_interval"]["low"], groups["s1"]["wer_interval"]["high"]) == \
        pytest.approx((expected.low, expected.high))
    assert "WER by speaker" in capsys.readouterr().out


def test_the_group_field_may_come_from_a_manifest(tmp_path):
    manifest = tmp_path / "manifest.jsonl"
    manifest.write_text("".join(json.dumps({"audio_filepath": c, "text": "x", "voice": v}) + "\n"
                                for c, v in (("a", "v1"), ("b", "v2"), ("c", "v2"), ("d", "v1"))), encoding="utf-8")
    out = tmp_path / "w.json"
    assert main(["wer", "--preds", str(_preds(tmp_path)), "--group-field", "voice", "--manifest", str(manifest),
                 "--json", str(out), "--bootstrap", "10"]) == 0
    groups = {g["group"]: g for g in json.loads(out.read_text())["groups"]["models"]["m"]}
    assert (groups["v1"]["ref_words"], groups["v2"]["ref_words"]) == (5, 6)


@pytest.mark.parametrize("use_manifest", [False, True])
def test_an_unknown_group_field_is_one_line_naming_field_and_file(tmp_path, capsys, use_manifest):
    preds = _preds(tmp_path)
    args = ["wer", "--preds", str(preds), "--group-field", "spekaer"]
    named = preds
    if use_manifest:
        named = tmp_path / "manifest.jsonl"
        named.write_text('{"audio_filepath": "a", "text": "x"}\n', encoding="utf-8")
        args += ["--manifest", str(named)]
    assert main(args) == 2
    captured = capsys.readouterr()
    err = captured.err.strip()
    assert len(err.splitlines()) == 1 and "'spekaer'" in err and named.name in err
    assert captured.out == ""  # nothing scored or printed before the check


def test_wer_by_group_sorts_groups_and_keeps_counts():
    counts = np.array([[1, 0, 0, 4, 4], [0, 1, 0, 2, 1], [0, 0, 2, 3, 5]])
    out = wer_by_group(["b", "a", "b"], counts, n_boot=0)
    assert [g.group for g in out] == ["a", "b"]
    assert (out[1].errors, out[1].ref_words, out[1].clips) == (3, 7, 2)
