"""Case 85: a battery spec whose values only the run would have tripped on is refused before anything runs.

The reader checked each condition's keys and the numbers it knew to be numbers, but not seeds, babble donor
counts, voices, TTS engine names, or what a donor corpus holds: a seed of ``-1`` or ``"x"``, ``donor =
"tts:bogus"``, a voice espeak-ng does not have (a ``CalledProcessError``), ``voice = 5`` and ``rt60 = 1e7``
(numpy asked for 1.16 TiB) were tracebacks, and a donor corpus that was missing, not a manifest or without a
single text (a folder of audio) was a line that named neither the spec nor the condition; each came when the
battery reached that condition, after the models had worked through every condition before it. A
``[[contrast]]`` with a misspelt ``baselin`` was measured against ``original`` without a word, and a contrast
of a condition with itself gave a difference in differences of zero by construction. Now every value is
checked when the file is read, and the donor corpora and TTS voices (``check_sources``) by ``battery`` before
the corpus is read and by ``audit --check`` (the file before any model loads, its donors before anything runs).

A battery none of whose probes has anything to read (``probes = ["recovery"]`` with ``--no-mask``, ``["accept-ref"]``
without ``--edits``, ``["recovery"]`` in an audit without ``[masked]``) ran every condition, measured nothing and
printed nothing, exit 0: it is refused with the other checks.

A ``[[mechanism]]`` entry's ``splice = { other = ... }`` draws on the same donor sources, and ``other =
"tts:bogus"``, an engine not installed or a donor corpus without texts passed ``audit --check`` and stopped the
audit at its last stage (``cannot learn the direction: TTS engine must be one of espeak-ng, flite, got 'bogus'``,
after transcription and mining): ``--check`` now asks the same of it (``battery_donors.check_donor_source``).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from conftest import battery_with_condition, one_clip_manifest

from asraudit.errors import InputError
from asraudit.probes.battery import parse_spec

ORIGINAL = '[[condition]]\nname = "original"\n'


def _setup(tmp_path: Path, condition: str) -> tuple[Path, list]:
    return battery_with_condition(tmp_path, condition)


@pytest.mark.parametrize("condition, message", [
    ('type = "noise"\nsnr_db = 10\nseed = -1\n', "seed must be an integer of at least 0, got -1"),
    ('type = "noise"\nsnr_db = 10\nseed = "x"\n', "seed must be an integer of at least 0, got 'x'"),
    ('type = "noise"\nsnr_db = 10\nkind = "babble"\ndonors = true\n', "donors must be an integer of at least 1, got True"),
    ('type = "reverb"\nrt60 = 1e7\n', "rt60 = 10000000.0 is out of range [0.001, 20]: rt60 is in seconds; a room response shorter than "
     "0.001 s is no reverberation, and one of 20 s an echo chamber"),
    ('type = "splice"\ndonor = "benchmark"\nseconds = 2\ngap = 1e7\n', "gap = 10000000.0 is out of range [0, 60]"),
    ('type = "splice"\ndonor = "tts:bogus"\nseconds = 2\n',
     "donor 'tts:bogus': the engine must be one of espeak-ng, flite"),
    ('type = "splice"\ndonor = "corpus:"\nseconds = 2\n',
     "donor 'corpus:' names no corpus: write corpus:<manifest or folder>"),
    ('type = "revoice"\nvoice = 5\n', "voice must be the name of one of espeak-ng's voices, got 5"),
])
def test_a_condition_value_the_run_would_trip_on_is_refused_first(tmp_path, cli, condition, message):
    spec, argv = _setup(tmp_path, condition)
    ran = cli(*argv)
    assert (ran.code, ran.error_lines) == (2, [f"asraudit: error: {spec}: [[condition]] #2 (x): {message}"])
    assert not (tmp_path / "out").exists()  # nothing ran, nothing written


def test_a_donor_corpus_that_cannot_give_donors_is_refused_first(tmp_path, cli):
    spec, argv = _setup(tmp_path, 'type = "splice"\ndonor = "corpus:gone.jsonl"\nseconds = 2\n')
    ran = cli(*argv)
    assert (ran.code, ran.error_lines) == (2, [
        f"asraudit: error: {spec}: [[condition]] #2 (x): donor corpus:{tmp_path / 'gone.jsonl'}: "
        f"{tmp_path / 'gone.jsonl'}: no such corpus: expected a manifest file, a folder, or hf:DATASET"])
    (tmp_path / "audio").mkdir()
    shutil.copy(tmp_path / "a.wav", tmp_path / "audio" / "d.wav")  # a folder of audio has no texts to splice
    spec.write_text(spec.read_text().replace("corpus:gone.jsonl", "corpus:audio"), encoding="utf-8")
    ran = cli(*argv)
    assert (ran.code, ran.error_lines) == (2, [
        f"asraudit: error: {spec}: [[condition]] #2 (x): donor corpus:{tmp_path / 'audio'}: "
        f"donor source 'corpus:{tmp_path / 'audio'}' has no utterances with text"])
    assert not (tmp_path / "out").exists()


@pytest.mark.skipif(shutil.which("espeak-ng") is None, reason="espeak-ng is not installed")
def test_a_voice_the_engine_lacks_is_refused_first(tmp_path, cli):
    spec, argv = _setup(tmp_path, 'type = "revoice"\nvoice = "zz-nope"\n')
    ran = cli(*argv)
    assert ran.code == 2 and len(ran.error_lines) == 1
    assert ran.error_lines[0].startswith(f"asraudit: error: {spec}: [[condition]] #2 (x): espeak-ng failed (exit 1): ")
    assert ran.error_lines[0].endswith("(voice 'zz-nope')")
    assert not (tmp_path / "out").exists()


@pytest.mark.skipif(shutil.which("flite") is not None, reason="flite is installed")
def test_an_engine_that_is_not_installed_is_refused_first(tmp_path, cli):
    spec, argv = _setup(tmp_path, 'type = "splice"\ndonor = "tts:flite"\nseconds = 2\n')
    ran = cli(*argv)
    assert (ran.code, ran.error_lines) == (2, [
        f"asraudit: error: {spec}: [[condition]] #2 (x): donor tts:flite: flite is not installed (Debian: apt-get "
        "install flite)"])


@pytest.mark.parametrize("contrast, message", [
    ({"treatment": "x", "control": "original", "baselin": "x"},
     "[[contrast]] #1: unknown key(s): baselin (known: name, treatment, control, baseline)"),
    ({"treatment": "x", "control": "x"},
     "[[contrast]] #1: treatment and control are both 'x': the difference in differences of a condition with "
     "itself is zero by construction: name two conditions"),
    ({"treatment": "x", "control": "original", "baseline": 5}, "[[contrast]] #1: baseline must be a string, got 5"),
])
def test_a_contrast_that_would_read_something_else_is_refused(contrast, message):
    data = {"condition": [{"name": "original"}, {"name": "x", "type": "noise", "snr_db": 5}], "contrast": [contrast]}
    with pytest.raises(InputError) as err:
        parse_spec(data, "b.toml")
    assert str(err.value) == f"b.toml: {message}"


def test_a_condition_named_original_must_be_the_original():
    with pytest.raises(InputError) as err:
        parse_spec({"condition": [{"name": "original", "type": "noise", "snr_db": 5}]}, "b.toml")
    assert str(err.value) == (
        "b.toml: [[condition]] #1 (original): the condition named 'original' is the baseline every change is "
        "measured from, so its type must be original, got noise: give this condition another name")


def test_probes_given_as_one_string_are_named_as_such():
    with pytest.raises(InputError) as err:
        parse_spec({"probes": "lift", "condition": [{"name": "original"}]}, "b.toml")
    assert str(err.value) == "b.toml: probes must be a list of accept-ref, recovery, lift; got 'lift'"


def test_audit_check_refuses_a_donor_corpus_before_anything_runs(tmp_path, cli):
    from asraudit.models import embedded

    pytest.importorskip("pocketsphinx")
    if not embedded.is_present("whisper-tiny.en"):
        pytest.skip("needs the embedded whisper-tiny.en (the models extra)")
    one_clip_manifest(tmp_path)
    (tmp_path / "b.toml").write_text(ORIGINAL + '[[condition]]\nname = "x"\ntype = "splice"\n'
                                     'donor = "corpus:gone.jsonl"\nseconds = 2\n', encoding="utf-8")
    spec = tmp_path / "audit.toml"
    spec.write_text('out = "o"\nrefdis = { min_panel = 2 }\n[corpus]\nmanifest = "m.jsonl"\n[[model]]\n'
                    'spec = "whisper-tiny.en"\npanel = true\n[[model]]\nspec = "pocketsphinx"\npanel = true\n'
                    '[battery]\nspec = "b.toml"\n', encoding="utf-8")
    ran = cli("audit", spec, "--check")
    assert (ran.code, ran.error_lines) == (2, [
        f"asraudit: error: {tmp_path / 'b.toml'}: [[condition]] #2 (x): donor corpus:{tmp_path / 'gone.jsonl'}: "
        f"{tmp_path / 'gone.jsonl'}: no such corpus: expected a manifest file, a folder, or hf:DATASET"])


def _splice_entry(tmp_path, other: str) -> dict:
    one_clip_manifest(tmp_path)
    return {"corpus": {"manifest": "m.jsonl"}, "model": [{"spec": "whisper-tiny.en", "panel": True}],
            "mechanism": [{"type": "steer", "model": "whisper-tiny.en", "layer": 0, "positive": "all", "holdout": 0,
                           "ablate": "all", "splice": {"other": other, "seconds": 2}}]}


def test_a_mechanism_splice_engine_asraudit_does_not_drive_is_refused_with_the_spec(tmp_path):
    from asraudit import parse_spec

    with pytest.raises(InputError) as err:
        parse_spec(_splice_entry(tmp_path, "tts:bogus"), "a.toml", tmp_path)
    assert str(err.value) == ("a.toml: [[mechanism]] #1: splice.other 'tts:bogus': the engine must be one of "
                              "espeak-ng, flite")


def test_a_mechanism_splice_donor_corpus_without_texts_is_refused_by_check(tmp_path):
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    from asraudit import load_corpus, parse_spec
    from asraudit.audit.mechanism import check_mechanism

    (tmp_path / "audio").mkdir()
    data = _splice_entry(tmp_path, "corpus:audio")
    shutil.copy(tmp_path / "a.wav", tmp_path / "audio" / "d.wav")  # a folder of audio: no texts to splice
    spec = parse_spec(data, "a.toml", tmp_path)
    with pytest.raises(InputError) as err:
        check_mechanism(spec.mechanism, load_corpus(tmp_path / "m.jsonl").clips, "a.toml")
    assert str(err.value) == (f"a.toml: [[mechanism]] #1: splice.other 'corpus:{tmp_path / 'audio'}': donor source "
                              f"'corpus:{tmp_path / 'audio'}' has no utterances with text")


def test_probes_with_nothing_to_read_are_refused_before_any_work(tmp_path, cli):
    spec, argv = _setup(tmp_path, 'type = "noise"\nsnr_db = 5\n')
    spec.write_text(spec.read_text().replace('probes = ["accept-ref"]', 'probes = ["recovery"]'), encoding="utf-8")
    ran = cli(*argv)
    assert (ran.code, ran.error_lines) == (2, [
        f"asraudit: error: {spec}: probes recovery read masked targets, and --no-mask leaves no masked targets: the "
        "battery would measure nothing"])
    spec.write_text(spec.read_text().replace('probes = ["recovery"]', 'probes = ["accept-ref"]'), encoding="utf-8")
    without_edits = [a for i, a in enumerate(argv) if a != "--edits" and argv[i - 1] != "--edits" and a != "--no-mask"]
    ran = cli(*without_edits)
    assert (ran.code, ran.error_lines) == (2, [
        f"asraudit: error: {spec}: probes accept-ref read mined edits, and no --edits is given: the battery would "
        "measure nothing"])
    assert not (tmp_path / "out").exists()


def test_audit_check_refuses_a_battery_of_targets_without_masked(tmp_path, cli):
    one_clip_manifest(tmp_path)
    (tmp_path / "b.toml").write_text('probes = ["recovery"]\n' + ORIGINAL, encoding="utf-8")
    spec = tmp_path / "audit.toml"
    spec.write_text('out = "o"\n[corpus]\nmanifest = "m.jsonl"\n[[model]]\nspec = "no-such-model-folder"\n'
                    '[battery]\nspec = "b.toml"\n', encoding="utf-8")
    ran = cli("audit", spec, "--check")
    assert (ran.code, ran.error_lines) == (2, [
        f"asraudit: error: {spec}: [battery]: {tmp_path / 'b.toml'}: probes recovery read masked targets, and the "
        "audit has no [masked] section to plan them: the battery would measure nothing"])


def test_a_folder_given_as_the_spec_is_named_a_folder(tmp_path):
    from asraudit.errors import InputError
    from asraudit.probes.battery import load_spec

    (tmp_path / "specs").mkdir()
    with pytest.raises(InputError) as refused:
        load_spec(tmp_path / "specs")
    assert str(refused.value) == f"{tmp_path / 'specs'}: battery spec is a folder: name a file (built-in: paper)"
