"""Case 348: a Whisper timestamp token was written into the transcript as text ("hello world<|1.00|>").

The CTranslate2 backend and the white-box Whisper decoded their token ids with ``tokenizer.json``'s
``decode(ids, skip_special_tokens=True)``.  The ``tokenizer.json`` of openai's Whisper checkpoints (and of every
folder converted from them) holds the 1,501 timestamp tokens ``<|0.00|>`` ... ``<|30.00|>`` as added tokens that
are *not* marked special, so ``skip_special_tokens`` kept them.  ``<|notimestamps|>`` in the prompt makes them
unlikely, not impossible (CTranslate2 does not mask them), and one emitted was a word of the transcript: an
insertion in its WER, exit 0.  openai-whisper and faster-whisper decode only the ids below end-of-text; so does
``WhisperTokenizer.decode`` now.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("ctranslate2")
pytest.importorskip("tokenizers")

from asraudit.models import embedded  # noqa: E402
from asraudit.models.ct2_whisper import CT2Whisper  # noqa: E402
from asraudit.models.whisper_tokenizer import WhisperTokenizer  # noqa: E402


def _with_timestamp_tokens(folder: Path) -> Path:
    """A copy of the embedded whisper-tiny.en folder whose ``tokenizer.json`` lists the timestamp tokens as openai's
    Whisper checkpoints do: added tokens after ``<|notimestamps|>``, ``"special": false``."""
    if not embedded.is_present("whisper-tiny.en"):
        pytest.skip("embedded model whisper-tiny.en is not installed")
    source = embedded._data_dirs(embedded.EMBEDDED_MODELS["whisper-tiny.en"])[0]
    for entry in source.iterdir():
        if entry.name != "tokenizer.json":
            (folder / entry.name).symlink_to(entry)
    data = json.loads((source / "tokenizer.json").read_text(encoding="utf-8"))
    first = data["model"]["vocab"].get("<|notimestamps|>") or next(
        a["id"] for a in data["added_tokens"] if a["content"] == "<|notimestamps|>")
    data["added_tokens"] += [
        {"id": first + 1 + k, "content": f"<|{k * 0.02:.2f}|>", "single_word": False, "lstrip": False,
         "rstrip": False, "normalized": False, "special": False}
        for k in range(1501)
    ]
    (folder / "tokenizer.json").write_text(json.dumps(data), encoding="utf-8")
    return folder


def test_the_tokenizer_writes_text_tokens_only(tmp_path):
    tok = WhisperTokenizer(_with_timestamp_tokens(tmp_path) / "tokenizer.json", multilingual=False)
    words = list(tok.encode(" hello world").ids)
    one_second = tok.token_id("<|1.00|>")
    assert one_second is not None and one_second > tok.eot
    assert tok.decode([tok.token_id("<|0.00|>")] + words + [one_second]) == " hello world"


class _EmitsATimestamp:
    """CTranslate2's Whisper, with a timestamp token appended to each result (as a model may emit one)."""

    def __init__(self, model, token: int):
        self._model, self._token = model, token

    def __getattr__(self, name):
        return getattr(self._model, name)

    def generate(self, *args, **kwargs):
        results = self._model.generate(*args, **kwargs)

        class _Result:
            def __init__(self, ids):
                self.sequences_ids = [ids]

        return [_Result(list(r.sequences_ids[0]) + [self._token]) for r in results]


def test_a_timestamp_the_model_emits_is_not_a_word_of_the_transcript(tmp_path):
    model = CT2Whisper(str(_with_timestamp_tokens(tmp_path)), beam_size=1)
    clip = (0.1 * np.random.default_rng(0).standard_normal(16000 * 2)).astype(np.float32)
    (plain,) = model.transcribe([clip])
    model._model = _EmitsATimestamp(model._model, model.tokenizer.token_id("<|1.00|>"))
    assert model.transcribe([clip]) == [plain]
    assert "<|" not in plain
