"""Shared fixtures.

``shared_predictions``: the read-only VoxPopuli-150 prediction files in
``../shared`` (skips when shared/ is absent, e.g. outside this workplace).

``librivox``: five real LibriVox clips (16 kHz mono wav) from the pocketsphinx
5.1.1 sdist, as a list of ``LibrivoxClip(clip_id, wav_path, transcript,
word_timings)``; ``word_timings`` is a tuple of ``(word, start_s, end_s)``
from pocketsphinx's own alignment (silences dropped, pronunciation variants
like ``to(3)`` written ``to``).  ``pocketsphinx_test_data`` is the sdist's
``test/data`` folder (``librivox/``, ``goforward.raw``).  Downloaded once from
pip's configured index (the one archive, its sha256 checked, nothing built) into ``$ASRAUDIT_TEST_DATA`` (default ``~/.cache/asraudit-test-data``);
tests skip when it cannot be obtained.  ``librivox_audio`` maps each clip id
to its float32 samples.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import NamedTuple

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the helper module below, from any rootdir
from sdist_fetch import fetch_pocketsphinx_test_data  # noqa: E402

# CTranslate2's OpenMP threads spin while they wait for work; on a machine
# whose cores are busy with other processes the spinning threads fight them,
# and a teacher-forced score of a 4-s clip took 5.8 s instead of 0.25 s
# (whisper-tiny.en, 2 shared cores).  Passive waiting must be set before the
# OpenMP runtime loads, i.e. before any test imports ctranslate2.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")


def _give_this_worker_its_own_cores() -> None:
    """Under ``pytest -n N``, keep worker i on every N-th core of those the run may use.

    Every worker's CTranslate2 and torch size their thread pools to the cores the process may use, so two
    workers on two cores ran four compute threads that took turns on two cores.  Pinned, each worker's pool has
    the cores it runs on: the whole suite took 607 s against 686-808 s unpinned (2 cores, 2 December 2026).
    Must run before the OpenMP runtimes load (they count the cores once), hence at this module's import.
    With fewer cores than workers the scheduler keeps them all.
    """
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT") or 0)
    if not worker.startswith("gw") or workers < 2 or not hasattr(os, "sched_setaffinity"):
        return
    cores = sorted(os.sched_getaffinity(0))
    if len(cores) >= workers:
        os.sched_setaffinity(0, cores[int(worker[2:]) % workers::workers])


_give_this_worker_its_own_cores()

PROJECT_ROOT = Path(__file__).resolve().parents[1]
SHARED_REFERENCE = PROJECT_ROOT.parent / "shared" / "reference" / "hume-voxpopuli-150"


@pytest.fixture(scope="session")
def shared_reference_dir() -> Path:
    if not (SHARED_REFERENCE / "predictions").is_dir():
        pytest.skip("../shared/reference/hume-voxpopuli-150 is absent")
    return SHARED_REFERENCE


@pytest.fixture(scope="session")
def shared_predictions(shared_reference_dir: Path) -> Path:
    return shared_reference_dir / "predictions"


POCKETSPHINX_SDIST = "pocketsphinx==5.1.1"
TEST_DATA_CACHE = Path(os.environ.get("ASRAUDIT_TEST_DATA") or Path.home() / ".cache" / "asraudit-test-data")


class LibrivoxClip(NamedTuple):
    clip_id: str
    wav_path: Path
    transcript: str
    word_timings: tuple[tuple[str, float, float], ...]


@pytest.fixture(scope="session")
def pocketsphinx_test_data() -> Path:
    target = TEST_DATA_CACHE / "pocketsphinx-5.1.1-test-data"
    if not (target / "librivox" / "fileids").is_file():
        try:
            fetch_pocketsphinx_test_data(target)
        except (OSError, subprocess.SubprocessError, ValueError) as exc:
            pytest.skip(f"cannot obtain the {POCKETSPHINX_SDIST} sdist test data: {exc}")
    return target


def _word_timings(alignment_json: Path) -> tuple[tuple[str, float, float], ...]:
    words = json.loads(alignment_json.read_text())["w"]
    return tuple(
        (re.sub(r"\(\d+\)$", "", w["t"]), round(w["b"], 3), round(w["b"] + w["d"], 3))
        for w in words
        if w["t"] not in ("<sil>", "<s>", "</s>")
    )


@pytest.fixture(scope="session")
def librivox(pocketsphinx_test_data: Path) -> list[LibrivoxClip]:
    folder = pocketsphinx_test_data / "librivox"
    clips = []
    for clip_id in (folder / "fileids").read_text().split():
        clips.append(LibrivoxClip(
            clip_id,
            folder / f"{clip_id}.wav",
            (folder / f"{clip_id}.txt").read_text().strip(),
            _word_timings(folder / f"{clip_id}.json"),
        ))
    return clips


@pytest.fixture(scope="session")
def librivox_audio(librivox: list[LibrivoxClip]) -> dict:
    """clip_id -> float32 mono 16 kHz samples in [-1, 1] of each LibriVox clip."""
    import wave

    import numpy as np

    audio = {}
    for clip in librivox:
        with wave.open(str(clip.wav_path)) as w:
            assert (w.getnchannels(), w.getsampwidth(), w.getframerate()) == (1, 2, 16000)
            pcm = np.frombuffer(w.readframes(w.getnframes()), dtype="<i2")
        audio[clip.clip_id] = pcm.astype(np.float32) / 32768.0
    return audio


# Tiny trained Moonshines (tests/encdec_tiny.py), built once per session: the white-box tests of
# several modules read them, and training is the slow part (seconds, not the tests' checks).
@pytest.fixture(scope="session")
def trained_moonshine(tmp_path_factory) -> Path:
    """Says "low" for 200-400 Hz tones and "high" for 1.5-3 kHz ones (width 64, 100 Adam steps)."""
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    import encdec_tiny

    return encdec_tiny.trained_moonshine(tmp_path_factory.mktemp("moonshine-tones"), steps=100, hidden=64)


@pytest.fixture(scope="session")
def moonshine_organism(trained_moonshine, tmp_path_factory) -> Path:
    """``trained_moonshine`` with its decoder fine-tuned to say "low" for every tone."""
    import encdec_tiny

    return encdec_tiny.organism_moonshine(trained_moonshine, tmp_path_factory.mktemp("moonshine-organism"))


@pytest.fixture(scope="session")
def tiny_qwen2_audio_folder(tmp_path_factory) -> Path:
    """A tiny random Qwen2-Audio (tests/speech_llm_fixtures.py) whose weights (std 0.2, not transformers'
    0.02) make its output depend on the audio: the white-box tests of several modules read it."""
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    from speech_llm_fixtures import tiny_qwen2_audio

    return tiny_qwen2_audio(tmp_path_factory.mktemp("qwen2-audio-loud"), init=0.2)


@pytest.fixture(scope="session")
def trained_qwen2_audio_folder(tmp_path_factory) -> Path:
    """A tiny Qwen2-Audio (1-s encoder window) trained to answer "low" / "high" for low / high tones."""
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    from speech_llm_fixtures import trained_qwen2_audio

    return trained_qwen2_audio(tmp_path_factory.mktemp("qwen2-audio-tones"))


@pytest.fixture(scope="session")
def qwen2_audio_organism(trained_qwen2_audio_folder, tmp_path_factory) -> Path:
    """``trained_qwen2_audio_folder`` with its language model alone fine-tuned to answer "low" for every tone."""
    from speech_llm_fixtures import organism_qwen2_audio

    return organism_qwen2_audio(trained_qwen2_audio_folder, tmp_path_factory.mktemp("qwen2-audio-organism"))


@pytest.fixture(scope="session")
def trained_parakeet_tdt_folder(tmp_path_factory) -> Path:
    """A tiny Parakeet TDT trained to write "low" / "high" for gated low / high tones (tests/transducer_tiny.py)."""
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    from transducer_tiny import trained_parakeet_tdt

    return trained_parakeet_tdt(tmp_path_factory.mktemp("tdt-tones"))


@pytest.fixture(scope="session")
def parakeet_tdt_organism(trained_parakeet_tdt_folder, tmp_path_factory) -> Path:
    """A copy of the trained tiny TDT whose prediction network alone learned to write "low" for every tone."""
    from transducer_tiny import organism_parakeet_tdt

    return organism_parakeet_tdt(trained_parakeet_tdt_folder, tmp_path_factory.mktemp("tdt-organism"))


@pytest.fixture(scope="session")
def tiny_ct2_whisper(tmp_path_factory) -> Path:
    """A random-weight English Whisper in CTranslate2's layout, with tiny.en's tokenizer and config.json
    (tests/encdec_tiny.py): for the white-box conversion tests that test folders and caches, not transcripts."""
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    pytest.importorskip("ctranslate2")
    from encdec_tiny import whisper_ct2_english

    from asraudit.models import embedded

    if not embedded.is_present("whisper-tiny.en"):
        pytest.skip("needs the embedded whisper-tiny.en's tokenizer")
    return whisper_ct2_english(tmp_path_factory.mktemp("tiny-ct2") / "whisper", embedded.locate("whisper-tiny.en"))
