"""Case 266: a white-box Whisper folder of the user's (``--model DIR``, ``whitebox:DIR``) that holds the manifest of
an asraudit conversion (``asraudit-conversion.json``): a copy of the conversion cache's folder, fine-tuned with
transformers and saved in place (``save_pretrained`` leaves files it does not write).

The white-box model's weights fingerprint, which its config hash (the result store's key) is made of, was read
from that manifest: the converted model's source, not the folder's weights.  The fine-tune had the config hash of
the model it started from, so in a store that held results of the folder before training (the same
``whitebox:NAME``), ``steer``, ``patch`` and an audit reused them as the fine-tune's, without a word.  Now a user's
folder is known by its content, whatever files it holds; asraudit's own conversions keep the manifest's.
"""

from __future__ import annotations

import shutil

import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")


def test_a_fine_tune_saved_over_a_copied_conversion_is_another_model(tmp_path, tiny_ct2_whisper):
    from safetensors.torch import load_file, save_file

    from asraudit.models.whitebox.convert import MANIFEST, convert
    from asraudit.models.whitebox.model import WhiteboxWhisper
    from asraudit.models.whitebox.sources import source_from_dir

    # A random-weight Whisper of tiny.en's files (tests/encdec_tiny.py): the weights' skill is not what is tested.
    folder = shutil.copytree(convert(source_from_dir(tiny_ct2_whisper), tmp_path / "cache"), tmp_path / "ft")
    assert (folder / MANIFEST).is_file()
    before = WhiteboxWhisper.load(str(folder)).config_hash
    weights = load_file(folder / "model.safetensors")
    name = "model.encoder.layers.0.fc1.weight"
    weights[name] = weights[name] * 1.5  # a step of training, saved in place
    save_file(weights, folder / "model.safetensors", metadata={"format": "pt"})
    tuned = WhiteboxWhisper.load(str(folder))
    assert tuned.model_id == "whitebox:ft"
    assert tuned.config_hash != before


def test_the_conversion_itself_keeps_its_identity(tmp_path):
    from asraudit.models.whitebox.model import WhiteboxWhisper

    first, again = WhiteboxWhisper.load("whisper-tiny.en"), WhiteboxWhisper.load("whisper-tiny.en")
    assert first.config_hash == again.config_hash and first.model_id == "whitebox:whisper-tiny.en"
