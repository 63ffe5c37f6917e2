"""Case 121: places an intervention cannot act on as asked, given to the mechanism commands and spec entries: encoder
frames it cannot use, a direction learned at the decoder, a time span on a clip the model decodes in windows.

A span ending at infinity (``--frames 0.5-inf``, ``--block-attention 0-inf``: "to the clip's end"; ``frames =
"0.5-inf"`` in a ``[[mechanism]]`` entry) passed every check, then stopped the run with ``OverflowError: cannot
convert float infinity to integer`` once the baseline had run (the audit's after every other stage); ``steer
induce|ablate --frames changed`` (the frames where a patch's source differs from the clip: steering has no
source) with ``ValueError: frames 'changed' need a paired source``, a traceback after the baseline; ``steer learn
--frames changed`` was refused only after the model had loaded. Now the options are parsed by argparse as the
intervention parses them, before anything is read, and the spec's ``frames`` by the same parser. An audit's
decoder direction (saved in the encoder direction's format) given to ``steer induce|ablate`` was applied at the
encoder layer of its number without a word; its site is now read from its provenance when the file is read.
"""

from __future__ import annotations

import json

import pytest

from asraudit import parse_spec
from asraudit.errors import InputError
from asraudit.models.whitebox.frames import Frames

INFINITE = ("frame span '{}' ends at infinity: give its end in seconds (a span may run past a clip's end: {}-30 "
            "reaches the end of any clip up to 30 s)")
CHANGED = ("'changed' is where a patch's source differs from the clip, and steering has no source: give audio, all "
           "or START-END")


@pytest.mark.parametrize("argv, option, message", [
    (("steer", "induce", "--direction", "D", "--frames", "changed"), "--frames", CHANGED),
    (("steer", "ablate", "--direction", "D", "--frames", "changed"), "--frames", CHANGED),
    (("steer", "learn", "--negative", "silence", "--out", "d.st", "--frames", "changed"), "--frames", CHANGED),
    (("steer", "ablate", "--direction", "D", "--frames", "0.5-inf"), "--frames", INFINITE.format("0.5-inf", "0.5")),
    (("patch", "--source", "silence", "--frames", "0.5-inf"), "--frames", INFINITE.format("0.5-inf", "0.5")),
    (("patch", "--block-attention", "0-inf"), "--block-attention", INFINITE.format("0-inf", "0")),
    (("patch", "--block-attention", "audio"), "--block-attention", "takes START-END in seconds, got 'audio'"),
])
def test_frames_an_intervention_cannot_use_are_refused_by_the_arguments(tmp_path, cli, capsys, argv, option, message):
    argv = tuple(str(tmp_path / a) if a in ("D", "d.st") else a for a in argv)
    with pytest.raises(SystemExit) as exit_:
        cli(*argv, "--model", tmp_path / "no-such-model", "--corpus", tmp_path, "--store", tmp_path / "s.sqlite")
    assert exit_.value.code == 2
    assert capsys.readouterr().err.splitlines()[-1].endswith(f"error: argument {option}: {message}")
    assert not (tmp_path / "s.sqlite").exists()


def test_good_frames_still_parse():
    from asraudit.commands.common import frames_option

    assert frames_option("all", "audio", "span")("0.5-30") == "0.5-30"
    assert frames_option("all", "audio", "changed", "span")("changed") == "changed"
    with pytest.raises(ValueError, match="0 <= start < end in finite seconds"):
        Frames("span", 0.5, float("inf"))  # the Python API's own span


def test_a_spec_frames_span_ending_at_infinity_is_refused_with_the_spec(tmp_path):
    (tmp_path / "c.jsonl").write_text(json.dumps({"audio_filepath": "a.wav", "text": "x"}) + "\n", encoding="utf-8")
    (tmp_path / "a.wav").write_bytes(b"")  # the spec's reader checks the manifest is there, not its audio
    entry = {"type": "steer", "model": "whisper-tiny.en", "layer": 0, "positive": "all", "negative": "silence",
             "holdout": 0, "ablate": "all", "frames": "0.5-inf"}
    with pytest.raises(InputError) as err:
        parse_spec({"corpus": {"manifest": "c.jsonl"}, "model": [{"spec": "whisper-tiny.en"}], "mechanism": [entry]},
                   "a.toml", tmp_path)
    assert str(err.value) == f"a.toml: [[mechanism]] #1: {INFINITE.format('0.5-inf', '0.5')}"


def test_a_decoder_direction_is_refused_by_encoder_steering_before_the_model_loads(tmp_path, cli):
    """An audit's decoder direction (``site = "decoder"``, ``positions = "first"``) is saved in the encoder
    direction's format; ``steer induce`` applied it at the encoder layer of its number (tiny.en's decoder and
    encoder share the width 384 and have 4 layers each) and reported the change, exit 0."""
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    import numpy as np

    from asraudit.mechanism.decoder_steering import learn_model_contrast
    from asraudit.models import embedded
    from asraudit.models.registry import load_model

    if not embedded.is_present("whisper-tiny.en"):
        pytest.skip("needs the embedded whisper-tiny.en (the models extra)")
    # The shared model cache, as the other white-box tests use it: a private one converted the models anew
    # (150 MB written per model and test) for nothing this case is about.
    organism = load_model("whitebox:whisper-tiny.en-organism")
    clean = load_model("whitebox:whisper-tiny.en")
    audio = (0.1 * np.random.default_rng(0).standard_normal(16_000)).astype(np.float32)
    direction = learn_model_contrast(organism, clean, [("n0", audio, "the cat")], 3, positions="first")
    path = direction.save(tmp_path / "decoder.safetensors")
    store = tmp_path / "s.sqlite"
    for action in ("induce", "ablate"):
        ran = cli("steer", action, "--direction", path, "--model", tmp_path / "no-such-model", "--corpus", tmp_path,
                  "--store", store)
        assert (ran.code, ran.error_lines) == (2, [
            f"asraudit: error: {path}: the direction was learned on {organism.model_id} at decoder layer 3, and "
            "asraudit steer applies a direction at an encoder layer: a decoder direction is applied by an audit's "
            "[[mechanism]] entry with site = \"decoder\""])
    assert not store.exists()


@pytest.mark.parametrize("argv, what", [
    (("patch", "--source", "mask:1.0-1.6"), "--source 'mask:1.0-1.6'"),
    (("patch", "--source", "silence", "--frames", "1-2"), "--frames '1-2'"),
    (("patch", "--block-attention", "1-2"), "--block-attention '1-2'"),
    (("steer", "induce", "--direction", "D", "--frames", "1-2"), "--frames '1-2'"),
])
def test_a_span_on_a_clip_decoded_in_windows_is_refused_before_any_variant_runs(tmp_path, cli, argv, what):
    """A 41.9-s clip is decoded in two windows (cut at a pause: 19.76 and 22.16 s); a span is seconds of each
    input, so ``mask:1.0-1.6`` masked 1.0-1.6 s of each window: a second place of the clip, 19.76 s later."""
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    import numpy as np
    import soundfile as sf

    from asraudit.mechanism.steering import Direction
    from asraudit.models import embedded

    if not embedded.is_present("whisper-tiny.en"):
        pytest.skip("needs the embedded whisper-tiny.en (the models extra)")
    rng = np.random.default_rng(0)
    sf.write(tmp_path / "short.wav", (0.1 * rng.standard_normal(16_000 * 3)).astype(np.float32), 16_000)
    sf.write(tmp_path / "long.wav", (0.1 * rng.standard_normal(16_000 * 41)).astype(np.float32), 16_000)
    corpus = tmp_path / "c.jsonl"
    corpus.write_text("".join(json.dumps({"audio_filepath": name, "text": "x"}) + "\n"
                              for name in ("short.wav", "long.wav")), encoding="utf-8")
    vector = np.ones(384, dtype=np.float32)
    direction = Direction(vector, (vector / np.linalg.norm(vector))[None, :], np.ones(1), 1).save(tmp_path / "d.st")
    argv = tuple(str(direction) if a == "D" else a for a in argv)
    store = tmp_path / "s.sqlite"
    ran = cli(*argv, "--model", "whisper-tiny.en", "--corpus", corpus, "--store", store, "--no-progress")
    assert (ran.code, ran.error_lines) == (2, [
        f"asraudit: error: {what}: a time span is placed in each input of at most 30 s the model decodes, and 1 of 2 "
        f"clip(s) are longer (first: 'long.wav', 41.00 s), so the model decodes them in windows and the span would act "
        "once in each: leave the longer clips out, or cut them into clips of at most 30 s"])
    assert not store.exists()
