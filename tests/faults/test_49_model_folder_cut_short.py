"""Case 49: a model folder left incomplete by an interrupted download or a partial copy.

Its config.json read fine, and transformers then failed inside
``from_pretrained`` with a traceback: ``SafetensorError: incomplete metadata,
file not fully covered`` for weights cut short, ``OSError: Error no file named
model.safetensors ...`` for none, ``TypeError: expected str, bytes or
os.PathLike object, not NoneType`` for a folder without its tokenizer files.
Now the folder is checked before anything is loaded (weights there, every
shard an index names there, every safetensors file as long as its header
says), and a processor that cannot be read is one line naming the folder.
A CTranslate2 folder (``ct2:DIR``, a faster-whisper download) with model.bin
cut short gave ``RuntimeError: Variable ... has an invalid payload size``,
and one without tokenizer.json or model.bin a ``FileNotFoundError`` traceback:
each is one line naming the folder now.
"""

from __future__ import annotations

import json
import shutil

import pytest

from asraudit.errors import InputError

transformers = pytest.importorskip("transformers")
torch = pytest.importorskip("torch")

HINT = "an interrupted download or a partial copy? fetch the model's files again"


@pytest.fixture(scope="module")
def ctc_folder(tmp_path_factory):
    """A one-layer wav2vec2 CTC model with its tokenizer, saved as a user's folder is."""
    from conftest import build_wav2vec2

    return build_wav2vec2(tmp_path_factory.mktemp("ctc"))


def _copy(src, tmp_path, name="model"):
    return shutil.copytree(src, tmp_path / name)


def _load(folder):
    from asraudit.models.registry import load_model

    return load_model(str(folder))


def test_the_whole_folder_loads(ctc_folder):
    assert _load(ctc_folder).model_id


def test_weights_cut_short_are_one_line_before_loading(ctc_folder, tmp_path, cli):
    folder = _copy(ctc_folder, tmp_path)
    weights = folder / "model.safetensors"
    size = weights.stat().st_size
    with weights.open("r+b") as fh:
        fh.truncate(size // 2)
    with pytest.raises(InputError) as caught:
        _load(folder)
    assert str(caught.value).endswith(f"model.safetensors: cut short: {size // 2:,} bytes where its tensors need "
                                      f"{size:,} ({HINT})")
    import numpy as np
    import soundfile

    soundfile.write(tmp_path / "a.wav", np.zeros(16000, dtype=np.float32), 16000)
    (tmp_path / "c.jsonl").write_text(json.dumps({"audio_filepath": "a.wav", "text": "x"}) + "\n")
    ran = cli("transcribe", "--corpus", tmp_path / "c.jsonl", "--model", folder, "--out", tmp_path / "out")
    assert ran.code == 2 and len(ran.error_lines) == 1 and "cut short" in ran.error_lines[0]
    with weights.open("r+b") as fh:
        fh.truncate(5)
    with pytest.raises(InputError, match="cut short: 5 bytes, less than its safetensors header"):
        _load(folder)


def test_no_weights_or_a_missing_shard_is_one_line(ctc_folder, tmp_path):
    folder = _copy(ctc_folder, tmp_path)
    (folder / "model.safetensors").unlink()
    with pytest.raises(InputError, match=r"model: no weights: no \.safetensors or \.bin file and no weight index"):
        _load(folder)
    (folder / "model.safetensors.index.json").write_text(json.dumps(
        {"metadata": {}, "weight_map": {"lm_head.weight": "model-00002-of-00002.safetensors"}}))
    with pytest.raises(InputError, match="model.safetensors.index.json: names the shard "
                                         "model-00002-of-00002.safetensors, which is not in the folder"):
        _load(folder)


def test_a_folder_without_its_tokenizer_files_is_one_line(ctc_folder, tmp_path):
    folder = _copy(ctc_folder, tmp_path)
    for name in ("vocab.json", "tokenizer_config.json"):
        (folder / name).unlink()
    with pytest.raises(InputError) as caught:
        _load(folder)
    assert "model: cannot load its processor (tokenizer and feature extractor): TypeError:" in str(caught.value)
    assert str(caught.value).endswith(f"(are its tokenizer files there? {HINT})")


@pytest.fixture()
def ct2_copy(tmp_path):
    """The embedded whisper-tiny.en CTranslate2 folder, copied where a test may damage it."""
    from asraudit.models import embedded

    if not embedded.is_present("whisper-tiny.en"):
        pytest.skip("needs the embedded whisper-tiny.en (the models extra)")
    return shutil.copytree(embedded.locate("whisper-tiny.en"), tmp_path / "ct2")


def test_a_ctranslate2_folder_cut_short_is_one_line(ct2_copy):
    weights = ct2_copy / "model.bin"
    with weights.open("r+b") as fh:
        fh.truncate(weights.stat().st_size // 2)
    with pytest.raises(InputError) as caught:
        _load(f"ct2:{ct2_copy}")
    assert str(caught.value).startswith(f"{ct2_copy}: CTranslate2 cannot load this model: ")
    assert str(caught.value).endswith(f"({HINT})")
    with weights.open("r+b") as fh:
        fh.truncate(10)
    with pytest.raises(InputError, match="CTranslate2 cannot load this model: File model.bin is incomplete"):
        _load(f"ct2:{ct2_copy}")


def test_a_ctranslate2_folder_without_its_tokenizer_is_one_line(ct2_copy):
    (ct2_copy / "tokenizer.json").unlink()
    with pytest.raises(InputError, match=f"ct2: tokenizer.json is missing \\({HINT.replace('?', '[?]')}\\)$"):
        _load(f"ct2:{ct2_copy}")
    (ct2_copy / "model.bin").unlink()
    with pytest.raises(InputError, match="ct2: not a CTranslate2 model directory \\(no model.bin\\)"):
        _load(f"ct2:{ct2_copy}")
