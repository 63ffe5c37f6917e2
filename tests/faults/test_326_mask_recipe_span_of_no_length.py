"""Case 326: a ``mask --recipe`` (``battery --recipe``, an audit's ``[masked] recipe``) row whose span ends where it
starts (``t0 = t1 = 0.2``: a word an aligner could not place, a row whose end was copied from its start).

Such a span holds none of the word's audio: the mask hid only its padding (40 ms around the point) and the word
was heard whole, yet it was counted as a masked target, exit 0 (``pocketsphinx  1  0.0% (0/1)``), its
"recovery" in the rate as if it had been hidden.  The aligner's path leaves out a word without audio ("nothing
to mask"); a recipe's row is the user's input, so it is refused naming the row, as one ending before it starts
is."""

from __future__ import annotations

import json

import pytest

from conftest import one_clip_manifest

from asraudit.data.mask_recipe import read_recipe


def test_mask_refuses_the_row(tmp_path, cli, monkeypatch):
    monkeypatch.chdir(tmp_path)
    one_clip_manifest(tmp_path)  # a.wav, "a tone"
    (tmp_path / "r.jsonl").write_text(json.dumps({"clip": "a.wav", "t0": 0.2, "t1": 0.2, "hidden": "tone"}) + "\n",
                                      encoding="utf-8")
    ran = cli("mask", "--model", "pocketsphinx", "--corpus", "m.jsonl", "--recipe", "r.jsonl", "--out", "o",
              "--no-progress")
    assert (ran.code, ran.error_lines) == (2, [
        "asraudit: error: r.jsonl, row 1: span [0.2, 0.2] ends where it starts, so it holds none of the word's audio: "
        "the mask would hide nothing of 'tone' and its recovery would be counted: give the word's span, or leave the "
        "row out"])
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize("span, ok", [((0.2, 0.2), False), ((0.2, 0.21), True)], ids=["no-length", "control-10ms"])
def test_read_recipe(tmp_path, span, ok):
    path = tmp_path / "r.csv"
    path.write_text(f"clip,t0,t1,hidden\na.wav,{span[0]},{span[1]},tone\n", encoding="utf-8")
    if ok:
        assert [(r.t0, r.t1) for r in read_recipe(path)] == [span]
    else:
        with pytest.raises(Exception, match="ends where it starts"):
            read_recipe(path)
