"""Case 254: ``asraudit battery --no-mask`` beside the options that only find and hide masked targets.

``--no-mask`` leaves the battery its edit probes alone, but the options it shares with ``asraudit mask``
(``--recipe``, ``--align``, ``--targets``, ``--words``, ``--fill``, ``--pad``, ...) were accepted beside it and
never read: a recipe of masked targets given with ``--no-mask`` was run as "0 masked target(s)", exit 0, and a
reader of the command line believes the recipe was probed.  ``--no-mask`` with any of them is now refused
before anything is read (case 237 made ``--no-lift`` act on the spec and checked ``--timings``).
"""

from __future__ import annotations

import json

import pytest

from tests.faults.conftest import one_clip_manifest


def _edits(tmp):
    manifest = one_clip_manifest(tmp, text="a tone")
    edits = tmp / "e.jsonl"
    edits.write_text(json.dumps({"clip": "a.wav", "ref_start": 0, "ref_end": 1, "r": "a", "a": "the"}) + "\n",
                     encoding="utf-8")
    recipe = tmp / "r.jsonl"
    recipe.write_text(json.dumps({"audio_filepath": "a.wav", "t0": 0.2, "t1": 0.5, "word": "tone"}) + "\n",
                      encoding="utf-8")
    spec = tmp / "b.toml"
    spec.write_text('probes = ["accept-ref"]\n[[condition]]\nname = "original"\n[[condition]]\nname = "noisy"\n'
                    'type = "noise"\nsnr_db = 10\n', encoding="utf-8")
    return manifest, edits, recipe, spec


@pytest.mark.parametrize("given, named", [
    (["--recipe", "RECIPE"], "--recipe"),
    (["--align", "whisper-tiny.en"], "--align"),
    (["--targets", "listed", "--words", "tone", "--fill", "noise"], "--targets, --words, --fill"),
    (["--pad", "nan"], "--pad"),
])
def test_no_mask_with_a_mask_option_is_refused_before_any_work(tmp_path, cli, given, named):
    manifest, edits, recipe, spec = _edits(tmp_path)
    given = [str(recipe) if g == "RECIPE" else g for g in given]
    ran = cli("battery", "--spec", spec, "--model", "whisper-tiny.en", "--corpus", manifest, "--edits", edits,
              "--no-mask", *given, "--out", tmp_path / "out", "--no-progress")
    assert (ran.code, ran.error_lines) == (2, [
        f"asraudit: error: --no-mask finds no masked targets, so {named} would not be used: drop --no-mask to "
        f"probe masked targets, or drop {named}"])
    assert not (tmp_path / "out").exists()


def test_mask_options_at_their_defaults_and_shared_options_pass_the_check():
    import argparse

    from asraudit.commands import battery

    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers()
    battery.register(sub)
    from asraudit.commands.mask import mask_only_options_given

    args = parser.parse_args(["battery", "--spec", "paper", "--model", "m", "--corpus", "c", "--out", "o",
                              "--no-mask", "--limit", "3", "--text-field", "spoken", "--seed", "4"])
    assert mask_only_options_given(args) == []
    args = parser.parse_args(["battery", "--spec", "paper", "--model", "m", "--corpus", "c", "--out", "o",
                              "--no-mask", "--keep-trivial", "--compare-aligner", "whisper-tiny.en"])
    assert mask_only_options_given(args) == ["--compare-aligner", "--keep-trivial"]
