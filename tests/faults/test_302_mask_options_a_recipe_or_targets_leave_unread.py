"""Case 302: `mask` (and `battery`, which shares its options) given an option another option leaves unread:
``--recipe`` beside ``--targets names``, ``--align whisper-tiny.en``, ``--timings``, ``--compare-aligner``,
``--keep-trivial`` or ``--words`` (a recipe's rows name the targets and their spans: nothing is found or aligned);
``--words seven`` without ``--targets listed`` (numbers were hidden, not the words); the same in an audit spec's
``[masked]`` (``recipe`` beside ``targets`` or ``align``; ``words`` with ``targets = "numbers"``).  Each was taken
and never read: the run hid other words than asked and printed its table, exit 0 (``audit --check`` passed).
Now each is refused before the corpus is read, naming the options, as ``battery --no-mask`` refuses the mask
options it would not read."""

from __future__ import annotations

import json

import numpy as np
import pytest
import soundfile as sf

FIX_CLI = "would not be used: leave them out, or leave --recipe out to find and time the targets"


@pytest.fixture()
def folder(tmp_path):
    t = np.arange(32_000) / 16_000
    sf.write(tmp_path / "n1.wav", (0.3 * np.sin(2 * np.pi * 220 * t)).astype(np.float32), 16_000)
    (tmp_path / "m.jsonl").write_text(json.dumps({"audio_filepath": "n1.wav",
                                                  "text": "the meeting starts at seven today"}) + "\n")
    (tmp_path / "r.jsonl").write_text(json.dumps({"audio_filepath": "n1.wav", "t0": 1.3, "t1": 1.6,
                                                  "word": "seven"}) + "\n")
    return tmp_path


def _mask(cli, folder, *extra):
    return cli("mask", "--model", "pocketsphinx", "--corpus", folder / "m.jsonl", "--out", folder / "out",
               "--no-lift", "--no-control", "--no-progress", *extra)


@pytest.mark.parametrize("extra, unread", [
    (["--targets", "names"], "--targets"),
    (["--words", "seven"], "--words"),
    (["--align", "whisper-tiny.en", "--keep-trivial"], "--keep-trivial, --align"),
    (["--timings", "t.jsonl", "--compare-aligner", "whisper-tiny.en"], "--timings, --compare-aligner"),
])
def test_options_beside_a_recipe_are_refused(cli, folder, extra, unread):
    ran = _mask(cli, folder, "--recipe", folder / "r.jsonl", *extra)
    assert (ran.code, ran.out) == (2, "")
    assert ran.error_lines == [f"asraudit: error: --recipe gives the targets and their times, so {unread} {FIX_CLI}"]
    assert not (folder / "out").exists()


@pytest.mark.parametrize("targets", ["numbers", "names"])
def test_words_without_listed_targets_are_refused(cli, folder, targets):
    ran = _mask(cli, folder, "--targets", targets, "--words", "seven")
    assert (ran.code, ran.out) == (2, "")
    assert ran.error_lines == [f"asraudit: error: --words are hidden with --targets listed only, and --targets "
                               f"{targets} hides {targets}, so the words would not be used: give --targets listed, "
                               "or leave --words out"]
    assert not (folder / "out").exists()


@pytest.mark.parametrize("masked, message", [
    ('recipe = "r.jsonl"\ntargets = "names"\nalign = "whisper-tiny.en"\n',
     "a recipe gives the targets and their times, so targets, align would not be used: leave them out, or the "
     "recipe out to find and time the targets"),
    ('words = ["seven"]\n',
     'words = [...] are hidden with targets = "listed" only, and targets = "numbers" hides numbers, so the words '
     'would not be used: give targets = "listed", or leave words out'),
])
def test_the_same_in_an_audit_spec_is_refused_by_check(cli, folder, masked, message):
    spec = folder / "audit.toml"
    spec.write_text(f'name = "t"\nout = "aout"\n[corpus]\nmanifest = "m.jsonl"\n[[model]]\nspec = "pocketsphinx"\n'
                    f"[masked]\n{masked}", encoding="utf-8")
    ran = cli("audit", spec, "--check")
    assert ran.code == 2
    assert ran.error_lines == [f"asraudit: error: {spec}: [masked]: {message}"]


def test_a_recipe_with_its_own_options_still_runs(cli, folder):
    ran = _mask(cli, folder, "--recipe", folder / "r.jsonl", "--fill", "noise", "--pad", "0.05",
                "--targets", "numbers")
    assert ran.code == 0, ran.err
    assert len((folder / "out" / "mask_outcomes.jsonl").read_text().splitlines()) == 1
