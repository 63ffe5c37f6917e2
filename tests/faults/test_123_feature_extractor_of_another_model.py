"""Case 123: a model folder whose feature extractor is another model's: another sample rate, other mel bins.

A ``preprocessor_config.json`` (``processor_config.json`` in transformers 5) saying 24 or 8 kHz, as a folder
assembled from another model's files (or a telephony model's) has it: the folder loaded, ``audit --check``
passed, and the first clip stopped the run with transformers' ValueError traceback ("was trained using a
sampling rate of 24000"), after every model before it had run.  The same for an extractor of 128 mel bins
(whisper-large-v3's) beside an encoder of 80: torch's ``RuntimeError: Given groups=1, weight of size [16, 80, 3],
expected input[2, 128, 3000] to have 80 channels``.  Now the load refuses either in one line naming the folder
and the file, before any clip.
"""

from __future__ import annotations

import json
import shutil

import pytest

pytest.importorskip("transformers")
torch = pytest.importorskip("torch")

from asraudit.errors import InputError  # noqa: E402


def _with_rate(src, tmp_path, rate, key="sampling_rate"):
    folder = shutil.copytree(src, tmp_path / "model")
    for name in ("preprocessor_config.json", "processor_config.json"):
        path = folder / name
        if path.is_file():
            config = json.loads(path.read_text(encoding="utf-8"))
            (config.get("feature_extractor") or config)[key] = rate
            path.write_text(json.dumps(config), encoding="utf-8")
            return folder, name
    raise AssertionError("the fixture saved no feature-extractor file")


@pytest.mark.parametrize("rate", [24000, 8000])
@pytest.mark.parametrize("family", ["parakeet", "wav2vec2"])
def test_transcribe_refuses_the_folder_before_any_clip(family, rate, request, tmp_path, cli):
    from conftest import one_clip_manifest

    folder, name = _with_rate(request.getfixturevalue(family), tmp_path, rate)
    ran = cli("transcribe", "--corpus", one_clip_manifest(tmp_path), "--model", f"hf:{folder}",
              "--out", tmp_path / "out", "--no-progress")
    assert ran.code == 2 and len(ran.error_lines) == 1, ran.err
    assert ran.error_lines[0].startswith(f"asraudit: error: {folder}: its feature extractor ({name}) takes audio at "
                                         f"{rate} Hz, and this family is given 16000 Hz audio"), ran.error_lines
    assert "Traceback" not in ran.err
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").glob("*.jsonl"))


def test_the_folder_at_16_khz_still_loads(parakeet, wav2vec2):
    from asraudit.models.registry import load_model

    for folder in (parakeet, wav2vec2):
        assert load_model(f"hf:{folder}").transcribe([torch.zeros(16000).numpy()]) is not None


def test_audit_check_names_the_spec_model(parakeet, tmp_path, cli):
    from conftest import one_clip_manifest

    folder, _ = _with_rate(parakeet, tmp_path, 24000)
    spec = tmp_path / "audit.toml"
    spec.write_text(f'out = "out"\n[corpus]\nmanifest = "{one_clip_manifest(tmp_path).name}"\n[[model]]\n'
                    f'spec = "hf:{folder}"\n', encoding="utf-8")
    ran = cli("audit", spec, "--check")
    assert ran.code == 2 and len(ran.error_lines) == 1, ran.err
    assert "takes audio at 24000 Hz" in ran.error_lines[0] and "[[model]] #1" in ran.error_lines[0]


def test_python_load_is_an_input_error(wav2vec2, tmp_path):
    from asraudit.models.registry import load_model

    folder, _ = _with_rate(wav2vec2, tmp_path, 8000)
    with pytest.raises(InputError, match="takes audio at 8000 Hz"):
        load_model(str(folder))


@pytest.fixture(scope="module")
def qwen2_audio(tmp_path_factory):
    from speech_llm_fixtures import tiny_qwen2_audio

    return tiny_qwen2_audio(tmp_path_factory.mktemp("qwen2-audio"))


@pytest.mark.parametrize("family, key", [("parakeet", "encoder_config.num_mel_bins"),
                                         ("qwen2_audio", "audio_config.num_mel_bins")])
def test_an_extractor_of_other_mel_bins_is_refused_before_any_clip(family, key, request, tmp_path, cli):
    from conftest import one_clip_manifest

    folder, name = _with_rate(request.getfixturevalue(family), tmp_path, 128, key="feature_size")
    ran = cli("transcribe", "--corpus", one_clip_manifest(tmp_path), "--model", f"hf:{folder}",
              "--out", tmp_path / "out", "--no-progress")
    assert ran.code == 2 and len(ran.error_lines) == 1, ran.err
    assert ran.error_lines[0] == (f"asraudit: error: {folder}: its feature extractor ({name}) computes 128 mel bins, "
                                  f"but the model's encoder takes 80 (config.json's {key}): the "
                                  "extractor's file is another model's: put the model's own in the folder")
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").glob("*.jsonl"))


def test_granite_speech_whose_extractor_never_checked_the_rate(tmp_path, cli):
    """Granite-Speech's extractor (asraudit's torchaudio-free one) takes any rate it is given: the old load
    transcribed every clip with mel filters of 24 kHz over 16-kHz audio, exit 0."""
    from speech_llm_fixtures import tiny_granite_speech

    from conftest import one_clip_manifest

    folder = tmp_path / "granite"
    folder.mkdir()
    tiny_granite_speech(folder)
    path = folder / "preprocessor_config.json"
    config = json.loads(path.read_text(encoding="utf-8"))
    config["sampling_rate"] = 24000
    path.write_text(json.dumps(config), encoding="utf-8")
    ran = cli("transcribe", "--corpus", one_clip_manifest(tmp_path), "--model", f"hf:{folder}",
              "--option", "max_new_tokens=4", "--out", tmp_path / "out", "--no-progress")
    assert ran.code == 2 and len(ran.error_lines) == 1, ran.err
    assert ran.error_lines[0].startswith(f"asraudit: error: {folder}: its feature extractor (preprocessor_config.json) "
                                         "takes audio at 24000 Hz, and this family is given 16000 Hz audio")
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").glob("*.jsonl"))


@pytest.mark.parametrize("builder, said", [
    ("tiny_phi4_multimodal", "computes 128 mel bins, but the model's encoder takes 80 (config.json's "
                             "audio_config.input_size)"),
    ("tiny_granite_speech", "computes 128 mel bins, stacked 2 frames at a time (256 wide), but the model's encoder "
                            "takes 16 (32 wide) (config.json's encoder_config.input_dim)"),
])
def test_families_that_name_their_encoder_input_otherwise(builder, said, tmp_path):
    """Phi-4-Multimodal's and Granite-Speech's configs give the encoder's input width under other names; an
    extractor of 128 mel bins had stopped the first clip with torch's RuntimeError (`The size of tensor a (128)
    must match the size of tensor b (80)`, `mat1 and mat2 shapes cannot be multiplied (100x256 and 32x16)`)."""
    import speech_llm_fixtures

    from asraudit.models.registry import load_model

    folder = tmp_path / "model"
    folder.mkdir()
    getattr(speech_llm_fixtures, builder)(folder)
    assert load_model(f"hf:{folder}").model_id  # its own extractor fits
    path = folder / "preprocessor_config.json"
    config = json.loads(path.read_text(encoding="utf-8"))
    config["feature_size"] = 128
    if "n_mels" in config:
        config["n_mels"] = 128
    path.write_text(json.dumps(config), encoding="utf-8")
    with pytest.raises(InputError) as caught:
        load_model(f"hf:{folder}")
    assert str(caught.value) == (f"{folder}: its feature extractor (preprocessor_config.json) {said}: the "
                                 "extractor's file is another model's: put the model's own in the folder")
