"""Case 128: a model folder holding another model's tokenizer, of a larger vocabulary than the model's outputs.

A folder assembled from two downloads, or tokenizer files copied from a sibling checkpoint: Moonshine's weights
(31 outputs) beside Canary's tokenizer (44 tokens) loaded, transcribed every clip into nothing or another
model's words (stored, exit 0), and ``score`` stopped with ``IndexError: index out of range in self`` from the
decoder's embedding when a text encoded to an id the model lacks.  Now the load compares the tokenizer with
the model's output layer (a CTC model's base vocabulary, a transducer's labels before its blank) and refuses
the folder in one line, before any clip.
"""

from __future__ import annotations

import shutil

import pytest

pytest.importorskip("transformers")
pytest.importorskip("torch")

from asraudit.errors import InputError  # noqa: E402


def test_transcribe_refuses_a_tokenizer_larger_than_the_model(tmp_path, cli):
    import encdec_tiny

    from conftest import one_clip_manifest

    folder = encdec_tiny.moonshine(tmp_path / "moonshine")
    canary = encdec_tiny.canary(tmp_path / "canary")
    for name in ("tokenizer.json", "tokenizer_config.json"):
        shutil.copy(canary / name, folder / name)
    ran = cli("transcribe", "--corpus", one_clip_manifest(tmp_path), "--model", f"hf:{folder}",
              "--out", tmp_path / "out", "--no-progress")
    assert ran.code == 2 and len(ran.error_lines) == 1, ran.err
    assert ran.error_lines[0] == (
        f"asraudit: error: {folder}: its tokenizer has 44 tokens, but the model's output layer has 31: the tokenizer "
        "files are another model's (its ids would name other words, or none the model has): put the model's own "
        "tokenizer files in the folder")
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").glob("*.jsonl"))


def test_a_speech_llm_with_a_larger_tokenizer(tmp_path):
    from speech_llm_fixtures import bpe_tokenizer, tiny_qwen2_audio

    from asraudit.models.registry import load_model

    folder = tiny_qwen2_audio(tmp_path / "qwen2-audio")
    assert load_model(f"hf:{folder}").model_id  # its own tokenizer fits
    specials = ["<|endoftext|>", "<|im_start|>", "<|im_end|>", "<|AUDIO|>", "<|audio_bos|>", "<|audio_eos|>", "<|en|>"]
    bpe_tokenizer(specials, vocab_size=140, eos_token="<|endoftext|>", pad_token="<|endoftext|>").save_pretrained(folder)
    with pytest.raises(InputError, match=r"its tokenizer has 1\d\d tokens, but the model's output layer has 96: "):
        load_model(f"hf:{folder}")


def test_a_transducer_tokenizer_that_reaches_the_blank(tmp_path):
    import transformers
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers
    from test_models_hf_transducer import CHARACTERS, save_tiny

    from asraudit.models.registry import load_model

    folder = save_tiny(tmp_path / "tdt", "tdt")
    assert load_model(f"hf:{folder}").model_id
    # One piece more than the model's labels: its id is the joint's blank.
    pieces = [("<unk>", 0.0), ("▁", -1.0)] + [(c, -2.0) for c in CHARACTERS] + [("▁" + c, -1.5) for c in "aeiostu"]
    backend = Tokenizer(models.Unigram(pieces, unk_id=0))
    backend.pre_tokenizer, backend.decoder = pre_tokenizers.Metaspace(), decoders.Metaspace()
    transformers.ParakeetTokenizer(tokenizer_object=backend, unk_token="<unk>", pad_token="<unk>").save_pretrained(folder)
    with pytest.raises(InputError, match=r"its tokenizer has 36 tokens, but the model's joint \(labels before its "
                                         r"blank\) has 35"):
        load_model(f"hf:{folder}")
