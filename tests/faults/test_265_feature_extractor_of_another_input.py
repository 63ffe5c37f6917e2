"""Case 265: a model folder whose feature extractor gives another input than its encoder takes: a Whisper's
extractor (``WhisperFeatureExtractor``: log-mel frames, ``input_features``) in a wav2vec2 CTC folder, whose encoder
takes the samples (``input_values``); a wav2vec2's (``Wav2Vec2FeatureExtractor``) in a Whisper folder.

Case 123 compared the extractor's rate and mel bins with the model's; a wav2vec2 config names no mel bins and a
wav2vec2 extractor's one "feature" is the sample, so neither was checked: the folder loaded, and the first clip
stopped the run with ``KeyError: 'input_values'`` (the Whisper one: ``ValueError: Make sure to provide either
`input_features` or `encoder_outputs` to `generate`.``), tracebacks after every model before it had run.  Now the
extractor's input is compared with the model's when the folder is loaded.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from conftest import one_clip_manifest

transformers = pytest.importorskip("transformers")
np = pytest.importorskip("numpy")


def _swap_extractor(folder: Path, extractor) -> None:
    for name in ("preprocessor_config.json", "processor_config.json"):
        (folder / name).unlink(missing_ok=True)
    extractor.save_pretrained(folder)


def test_a_whisper_extractor_in_a_wav2vec2_folder_is_refused_at_load(tmp_path, wav2vec2, cli):
    folder = tmp_path / "ctc"
    shutil.copytree(wav2vec2, folder)
    _swap_extractor(folder, transformers.WhisperFeatureExtractor())
    ran = cli("transcribe", "--corpus", one_clip_manifest(tmp_path), "--model", folder, "--out", tmp_path / "out",
              "--no-progress")
    assert ran.code == 2 and ran.error_lines == [
        f"asraudit: error: {folder}: its feature extractor (preprocessor_config.json) is a WhisperFeatureExtractor, "
        "which gives input_features, and the model (Wav2Vec2ForCTC) takes input_values: the extractor's file is "
        "another model's: put the model's own in the folder"], ran.err
    assert not (tmp_path / "out").exists() or not list((tmp_path / "out").glob("*.jsonl"))


def test_a_wav2vec2_extractor_in_a_whisper_folder_is_refused_at_load(tmp_path):
    import encdec_tiny

    from asraudit import InputError, load_model

    folder = encdec_tiny.whisper_multilingual(tmp_path / "whisper")
    _swap_extractor(folder, transformers.Wav2Vec2FeatureExtractor(feature_size=1, sampling_rate=16000))
    with pytest.raises(InputError) as err:
        load_model(str(folder))
    assert str(err.value) == (
        f"{folder}: its feature extractor (preprocessor_config.json) is a Wav2Vec2FeatureExtractor, which gives "
        "input_values, and the model (WhisperForConditionalGeneration) takes input_features: the extractor's file is "
        "another model's: put the model's own in the folder")


def test_the_folders_own_extractors_load_as_before(tmp_path, wav2vec2):
    import encdec_tiny

    from asraudit import load_model

    assert load_model(str(wav2vec2)).transcribe([np.zeros(16000, dtype=np.float32)]) is not None
    assert load_model(str(encdec_tiny.moonshine(tmp_path / "moonshine"))) is not None  # samples, as wav2vec2's

