"""`asraudit wer`: table, JSON contract, alignments, and jiwer equality on real data."""

from __future__ import annotations

import json

import pytest

from asraudit.cli import main
from asraudit.data.predictions import load_predictions
from asraudit.text.normalize import get_normalizer


def _write(tmp_path):
    d = tmp_path / "preds"
    d.mkdir()
    (d / "good.jsonl").write_text(
        '{"audio_filepath": "a", "text": "The cat sat.", "pred_text": "the cat sat"}\n'
        '{"audio_filepath": "b", "text": "Twenty dogs.", "pred_text": "20 dogs"}\n', encoding="utf-8")
    (d / "bad.jsonl").write_text(
        '{"audio_filepath": "a", "text": "The cat sat.", "pred_text": "a cat sat down"}\n'
        '{"audio_filepath": "b", "text": "Twenty dogs.", "pred_text": "dogs"}\n', encoding="utf-8")
    return d


def test_wer_json_has_the_documented_fields_as_fractions(tmp_path, capsys):
    d = _write(tmp_path)
    out = tmp_path / "w.json"
    assert main(["wer", "--preds", str(d), "--json", str(out)]) == 0
    data = json.loads(out.read_text())
    good, bad = data["models"]["good"], data["models"]["bad"]
    for key in ("wer", "substitutions", "deletions", "insertions", "ref_words", "clips", "wer_interval"):
        assert key in good
    assert set(good["wer_interval"]) == {"low", "high", "level", "method"}
    assert good["wer"] == 0.0 and good["clips"] == 2 and good["ref_words"] == 5
    assert bad["wer"] == pytest.approx(3 / 5)
    assert (bad["substitutions"], bad["deletions"], bad["insertions"]) == (1, 1, 1)
    printed = capsys.readouterr().out
    assert "good" in printed and "60.00%" in printed


def test_show_alignments_marks_errors(tmp_path, capsys):
    d = _write(tmp_path)
    main(["wer", "--preds", str(d / "bad.jsonl"), "--show-alignments", "1"])
    out = capsys.readouterr().out
    # Clip a (2 errors in 3 words) is worse than clip b (1 in 2), so it is the one shown.
    assert "\nclip a " in out and "\nclip b " not in out
    assert "REF: THE cat sat ****" in out and "HYP: A   cat sat DOWN" in out
    assert out.splitlines()[-1].split() == ["S", "I"]


def test_bad_input_is_one_line_not_a_traceback(tmp_path, capsys):
    f = tmp_path / "m.jsonl"
    f.write_text("{oops\n", encoding="utf-8")
    assert main(["wer", "--preds", str(f)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("asraudit: error:") and "row 1" in err and "Traceback" not in err


def test_each_wer_equals_jiwer_on_the_shared_voxpopuli_predictions(shared_predictions, tmp_path):
    jiwer = pytest.importorskip("jiwer")
    out = tmp_path / "w.json"
    assert main(["wer", "--preds", str(shared_predictions), "--json", str(out), "--bootstrap", "50"]) == 0
    ours = json.loads(out.read_text())["models"]
    assert len(ours) == 5
    normalize = get_normalizer("whisper")
    for model, preds in load_predictions(shared_predictions).models.items():
        pairs = [(normalize(p.reference), normalize(p.hypothesis)) for p in preds.rows.values()]
        pairs = [(r, h) for r, h in pairs if r]  # jiwer cannot score empty references
        expected = jiwer.process_words([r for r, _ in pairs], [h for _, h in pairs])
        assert abs(ours[model]["wer"] - expected.wer) < 1e-9, model
        assert ours[model]["substitutions"] == expected.substitutions
        assert ours[model]["deletions"] == expected.deletions
        assert ours[model]["insertions"] == expected.insertions


def test_preds_command_reports_coverage_conflicts_and_exports(tmp_path, capsys):
    d = tmp_path / "p"
    d.mkdir()
    (d / "a.csv").write_text("id,reference,hypothesis\n1,Hi,hi\n2,Yes,yes\n", encoding="utf-8")
    (d / "b.jsonl").write_text('{"id": "1", "text": "Hi", "pred_text": "hi"}\n'
                               '{"id": "2", "text": "No", "pred_text": "no"}\n'
                               '{"id": "3", "text": "x", "pred_text": "x"}\n', encoding="utf-8")
    assert main(["preds", "--preds", str(d), "--export", str(tmp_path / "out")]) == 0
    out = capsys.readouterr().out
    assert "3 distinct clip(s), 2 run by every model" in out
    assert "clip '2'" in out
    exported = load_predictions(tmp_path / "out")
    assert exported.model_names == ["a", "b"] and len(exported.models["a"]) == 2


def test_no_help_text_shows_a_doubled_percent():
    """argparse formats ``%`` in an option's help, not in a description: ``95%%`` there was printed as written."""
    import argparse

    from asraudit.cli import build_parser

    def helps(parser):
        yield parser.prog, parser.format_help()
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for sub in action.choices.values():
                    yield from helps(sub)

    texts = dict(helps(build_parser()))
    assert "asraudit wer" in texts and "95% interval" in texts["asraudit wer"]
    assert [prog for prog, text in texts.items() if "%%" in text] == []
