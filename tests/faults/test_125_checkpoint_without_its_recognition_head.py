"""Case 125: a checkpoint that lacks the tensors of the model asraudit runs for its model_type.

A pretrained wav2vec2 encoder without its CTC head (``facebook/wav2vec2-base``, an XLS-R checkpoint: the
commonest download of the family), a Parakeet folder holding only its encoder's weights: transformers filled
the missing tensors with random values, said so in a warning table among the log lines, and the run stored
noise as the model's transcripts (``"kdhzaklahdhlgd s li'rhdhr ..."``), exit 0.  Now the load refuses it,
naming the folder and the missing tensors, before any clip.
"""

from __future__ import annotations

import json
import shutil

import pytest

transformers = pytest.importorskip("transformers")
torch = pytest.importorskip("torch")

from asraudit.errors import InputError  # noqa: E402


def _pretrained_encoder_only(src, tmp_path):
    """The folder as a pretraining checkpoint is: the same config and processor, the encoder's weights only."""
    folder = shutil.copytree(src, tmp_path / "wav2vec2-base")
    (folder / "model.safetensors").unlink()
    torch.manual_seed(1)
    transformers.Wav2Vec2Model(transformers.AutoConfig.from_pretrained(src)).save_pretrained(folder)
    return folder


def test_transcribe_refuses_an_encoder_without_its_ctc_head(wav2vec2, tmp_path, cli):
    from conftest import one_clip_manifest

    folder = _pretrained_encoder_only(wav2vec2, tmp_path)
    ran = cli("transcribe", "--corpus", one_clip_manifest(tmp_path), "--model", f"hf:{folder}",
              "--out", tmp_path / "out", "--no-progress")
    assert ran.code == 2 and len(ran.error_lines) == 1, ran.err
    assert ran.error_lines[0] == (
        f"asraudit: error: {folder}: its weights lack tensors of Wav2Vec2ForCTC, the model asraudit runs for its "
        "model_type: lm_head.bias, lm_head.weight; transformers would fill them with random values and the "
        "transcripts would be noise (config.json's architectures names Wav2Vec2Model: a pretrained encoder without "
        "its speech-recognition head, or another task's checkpoint?): use a checkpoint fine-tuned for speech "
        "recognition")
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").glob("*.jsonl"))


def test_a_transducer_folder_with_its_encoders_weights_only(tmp_path):
    from test_models_hf_transducer import save_tiny

    from asraudit.models.registry import load_model

    folder = save_tiny(tmp_path / "tdt", "tdt")
    assert load_model(f"hf:{folder}").model_id  # the whole folder loads
    config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    (folder / "model.safetensors").unlink()
    transformers.ParakeetEncoder(transformers.ParakeetEncoderConfig(**config["encoder_config"])).save_pretrained(folder)
    (folder / "config.json").write_text(json.dumps(config), encoding="utf-8")  # the TDT config, kept
    with pytest.raises(InputError, match=r"its weights lack tensors of ParakeetForTDT, .*decoder\..* \(\d+ in all\)"):
        load_model(f"hf:{folder}")


def test_a_whisper_classifiers_weights_under_whisper_and_whitebox(tmp_path, cli):
    """A Whisper audio classifier (its encoder and a classification head, no decoder), loaded as ``hf:`` and as
    the white-box Whisper (``whitebox:hf:``), which had transcribed ``Presbyter Presbyter ...``."""
    from asraudit.models import embedded

    if not embedded.is_present("whisper-tiny.en"):
        pytest.skip("needs whisper-tiny.en's tokenizer (the embedded model)")
    tok = transformers.WhisperTokenizerFast(tokenizer_file=str(embedded.locate("whisper-tiny.en") / "tokenizer.json"),
                                            bos_token="<|endoftext|>", eos_token="<|endoftext|>", unk_token="<|endoftext|>")
    config = transformers.WhisperConfig(
        vocab_size=len(tok), d_model=16, encoder_layers=1, decoder_layers=1, encoder_attention_heads=2,
        decoder_attention_heads=2, encoder_ffn_dim=32, decoder_ffn_dim=32, num_labels=3,
        decoder_start_token_id=tok.convert_tokens_to_ids("<|startoftranscript|>"), eos_token_id=tok.eos_token_id,
        pad_token_id=tok.eos_token_id, bos_token_id=tok.eos_token_id, begin_suppress_tokens=None, suppress_tokens=None)
    folder = tmp_path / "classifier"
    transformers.WhisperForAudioClassification(config).save_pretrained(folder)
    transformers.WhisperProcessor(transformers.WhisperFeatureExtractor(feature_size=80), tok).save_pretrained(folder)
    from asraudit.models.registry import load_model

    for spec in (f"hf:{folder}", f"whitebox:hf:{folder}"):
        with pytest.raises(InputError, match=r"its weights lack tensors of WhisperForConditionalGeneration, the model "
                                             r"asraudit runs for its model_type: model\.decoder\..* \(\d+ in all\); "
                                             r".*architectures names WhisperForAudioClassification"):
            load_model(spec)


def test_a_ctc_checkpoint_without_the_training_only_mask_vector_still_loads(wav2vec2, tmp_path, cli):
    """Released CTC checkpoints (facebook/wav2vec2-base-960h among them) lack ``masked_spec_embed``, SpecAugment's
    learned mask vector, which only training reads: such a folder loads and transcribes as the whole one does."""
    from safetensors.torch import load_file, save_file

    from conftest import one_clip_manifest

    folder = shutil.copytree(wav2vec2, tmp_path / "wav2vec2-base-960h")
    tensors = load_file(folder / "model.safetensors")
    assert tensors.pop("wav2vec2.masked_spec_embed") is not None
    save_file(tensors, folder / "model.safetensors", metadata={"format": "pt"})
    manifest = one_clip_manifest(tmp_path)
    outputs = {}
    for name, source in (("whole", wav2vec2), ("released", folder)):
        ran = cli("transcribe", "--corpus", manifest, "--model", f"hf:{source}", "--out", tmp_path / name,
                  "--no-progress")
        assert ran.code == 0, ran.err
        (written,) = (tmp_path / name).glob("*.jsonl")
        outputs[name] = json.loads(written.read_text(encoding="utf-8"))["pred_text"]
    assert outputs["released"] == outputs["whole"]
