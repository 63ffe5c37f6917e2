"""Case 95: clip ids, group values and transcripts holding control characters, printed to a terminal.

Error lines escaped control characters (case 36), but the data lines did
not: a clip id ``"c\\x1b[2Jx"`` or a hypothesis word ``"\\x1b[31mcat"`` (raw
ESC sequences, which clear the screen or recolour it) reached the terminal
as they were in ``wer --show-alignments`` (under ``--normalizer none``),
``preds``' list of conflicting references, the loaders' warnings and every
table; a newline in a group value broke its table row in two.  Now every
table cell, header and title, the alignments, the conflict list, the
warnings and the audit's log lines escape them as the error lines do
(``\\x1b``, ``\\n``).
"""

from __future__ import annotations

import json

ESC_ID, ESC_WORD = "c\x1b[2Jx", "\x1b[31mcat"


def _preds(tmp_path, name, suffix="", group="g\x1b[5m\nsecond line"):
    path = tmp_path / f"{name}.jsonl"
    rows = [{"audio_filepath": ESC_ID, "text": "the cat sat" + suffix, "pred_text": f"the {ESC_WORD} sat",
             "speaker": group},
            {"audio_filepath": "d", "text": "a b" + suffix, "pred_text": "a b", "speaker": "plain"}]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def _no_raw_controls(text: str) -> None:
    assert "\x1b" not in text and "\r" not in text, repr(text)


def test_wer_tables_and_alignments_escape_control_characters(tmp_path, cli):
    ran = cli("wer", "--preds", _preds(tmp_path, "m1"), "--normalizer", "none", "--show-alignments", "2",
              "--group-field", "speaker")
    assert ran.code == 0, ran.err
    _no_raw_controls(ran.out)
    assert "clip c\\x1b[2Jx  WER" in ran.out and "\\x1b[31M" in ran.out  # the error words are upper-cased
    group_rows = [line for line in ran.out.splitlines() if line.startswith("g\\x1b[5m")]
    assert len(group_rows) == 1 and "\\nsecond line" in group_rows[0]
    assert not any(line.startswith("second line") for line in ran.out.splitlines())


def test_preds_conflicts_and_warnings_escape_control_characters(tmp_path, cli):
    ran = cli("preds", "--preds", _preds(tmp_path, "m1"), _preds(tmp_path, "m2", suffix=" x"))
    assert ran.code == 0, ran.err
    _no_raw_controls(ran.out)
    _no_raw_controls(ran.err)
    assert "clip 'c\\x1b[2Jx'" in ran.out
    assert "references differ across models on 2 clip(s): c\\x1b[2Jx, d" in ran.err


def test_conventions_examples_escape_control_characters_and_keep_the_mark_on_the_span(tmp_path, cli):
    path = tmp_path / "m.jsonl"
    path.write_text(json.dumps({"audio_filepath": ESC_ID, "text": "\x1b[2J mr smith said", "pred_text":
                                "\x1b[2J mister smith said"}) + "\n", encoding="utf-8")
    ran = cli("conventions", "--preds", path, "--show", "1")
    assert ran.code == 0, ran.err
    _no_raw_controls(ran.out)
    assert "clip c\\x1b[2Jx:" in ran.out
    assert "  ref: \\x1b[2J [[mr]] smith said" in ran.out and "  hyp: \\x1b[2J [[mister]] smith said" in ran.out
