"""Case 149: a beam size no real decoding uses (``--option beam_size=100000``, a slip for 10, or 1e5 read as a
count).

CTranslate2 allocated that many beams: ``transcribe --model whisper-tiny.en`` on one one-second clip printed
nothing for minutes (killed by ``timeout 25`` it took 98 s to exit); transformers' ``generate`` multiplies every
clip of a batch by ``num_beams`` in memory.  Now every backend refuses a beam past ``MAX_BEAM_SIZE`` (128) in one
line when the model loads, before any clip is decoded.
"""

from __future__ import annotations

import pytest

from asraudit.errors import InputError

from conftest import one_clip_manifest

LINE = ("option beam_size 100000 is past 128, the most asraudit decodes with (real decoding uses 1 to about 10 "
        "beams, and time and memory grow with each): give a smaller one")


def test_ctranslate2_whisper_refuses_the_beam_before_decoding(tmp_path, cli):
    pytest.importorskip("ctranslate2")
    manifest = one_clip_manifest(tmp_path)
    ran = cli("transcribe", "--corpus", manifest, "--model", "whisper-tiny.en", "--option", "beam_size=100000",
              "--out", tmp_path / "out", "--no-progress")
    assert ran.code == 2 and ran.error_lines == [f"asraudit: error: --model whisper-tiny.en: {LINE}"]
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("where", ["asraudit.models.hf:HFDecodeOptions",
                                   "asraudit.models.hf_speech_llm:SpeechLLMOptions"])
def test_the_transformers_backends_refuse_it_too(where):
    import importlib

    module, name = where.split(":")
    options = getattr(importlib.import_module(module), name)
    assert options(beam_size=128).beam_size == 128  # the ceiling itself decodes
    with pytest.raises(InputError) as err:
        options(beam_size=100000)
    assert str(err.value) == LINE
