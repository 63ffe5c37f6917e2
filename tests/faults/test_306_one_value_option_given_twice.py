"""Case 306: an option that takes one value given twice with two values (case 304 covered the options naming an
input file): ``transcribe --out a --out b``, ``--store s1 --store s2``, ``wer --json a.json --json b.json``,
``wer --normalizer none --normalizer whisper``, ``refdis --seed 1 --seed 2``, ``wer --bootstrap 10 --bootstrap
2000``, ``conventions --language en --language es``.  argparse kept the last with no word: the run wrote into b
(the user looked in a, where an older run's files were), scored with the other normalizer, drew with the other
seed.  Now every single-valued option of every command is refused when given again with another value, in one
place (``cli.build_parser``); the same value again, flags and repeatable options go as before."""

from __future__ import annotations

import argparse
import json

import pytest

from asraudit.cli import build_parser, main


@pytest.fixture()
def folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    rows = [{"audio_filepath": "c0", "text": "the cat sat", "pred_text": "the cat sat"}]
    (tmp_path / "m1.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return tmp_path


@pytest.mark.parametrize("argv, option, first, second", [
    (["transcribe", "--model", "pocketsphinx", "--corpus", "m1.jsonl", "--out", "a", "--out", "b"], "--out", "a", "b"),
    (["transcribe", "--model", "pocketsphinx", "--corpus", "m1.jsonl", "--out", "a", "--store", "s1.sqlite",
      "--store", "s2.sqlite"], "--store", "s1.sqlite", "s2.sqlite"),
    (["wer", "--preds", "m1.jsonl", "--json", "a.json", "--json", "b.json"], "--json", "a.json", "b.json"),
    (["wer", "--preds", "m1.jsonl", "--normalizer", "none", "--normalizer", "whisper"], "--normalizer", "none",
     "whisper"),
    (["wer", "--preds", "m1.jsonl", "--bootstrap", "10", "--bootstrap", "2000"], "--bootstrap", "10", "2000"),
    (["refdis", "--preds", "m1.jsonl", "--seed", "1", "--seed", "2"], "--seed", "1", "2"),
    (["conventions", "--preds", "m1.jsonl", "--language", "en", "--language", "es"], "--language", "en", "es"),
    (["preds", "m1.jsonl", "--export", "x1", "--export", "x2"], "--export", "x1", "x2"),
])
def test_two_values_for_one_value_option_are_refused(folder, capsys, argv, option, first, second):
    with pytest.raises(SystemExit) as stopped:
        main(argv)
    assert stopped.value.code == 2
    err = capsys.readouterr().err
    assert err.strip().splitlines()[-1] == (
        f"asraudit {argv[0]}: error: argument {option}: given twice ({first!r} and {second!r}); a run takes one "
        "value, so the first would be dropped without a word: give it once")
    assert sorted(p.name for p in folder.iterdir()) == ["m1.jsonl"]  # nothing written


def test_the_same_value_again_and_flags_again_go(folder, capsys):
    assert main(["wer", "--preds", "m1.jsonl", "--normalizer", "none", "--normalizer", "none", "--bootstrap", "0",
                 "--json", "w.json", "--json", "w.json"]) == 0
    assert json.loads((folder / "w.json").read_text(encoding="utf-8"))


def test_every_one_value_option_of_every_command_has_the_rule():
    """Walks the whole parser: no command's single-valued option keeps argparse's silent last-wins."""
    def walk(parser, where):
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    yield from walk(sub, f"{where} {name}")
            elif type(action) is argparse._StoreAction and action.option_strings and action.nargs is None:
                yield f"{where} {action.option_strings[-1]}"

    assert list(walk(build_parser(), "asraudit")) == []
