"""Case 347: a wav2vec2-style CTC model wrote every doubled letter once ("hello" as "helo").

``HFCTC.transcribe`` decoded the greedy path with ``tokenizer.decode(path, skip_special_tokens=True)``.
wav2vec2's tokenizer drops special tokens before it merges repeated frames, and its CTC blank is ``<pad>``, a
special token: the path ``h h e l l <pad> l o`` lost its blank first and then merged the two ``l`` runs into one.
Every word with a doubled letter was transcribed wrong, exit 0, on every model of the wav2vec2-ctc family and the
generic CTC fallback.  Now the path is collapsed as CTC defines it (repeats merged, then the blank removed) before
the tokens become text, and the rule enters the family's config hash so that a store does not hand back the old
transcripts.
"""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

from asraudit.models.hf import HFCTC  # noqa: E402
from asraudit.models.hf_encoder_ctc import HFEncoderCTC  # noqa: E402
from asraudit.models.registry import load_model  # noqa: E402

from test_models_hf import tiny_ctc_dir  # noqa: E402,F401  (the module's tiny wav2vec2 CTC folder)


def _path(ctc, frames: str) -> np.ndarray:
    """Log-posteriors whose greedy path is ``frames`` (one character a frame, '_' the blank, ' ' the delimiter)."""
    vocab = ctc.tokenizer.get_vocab()
    ids = [ctc.blank if ch == "_" else vocab["|" if ch == " " else ch] for ch in frames]
    lp = np.full((len(ids), len(vocab)), -10.0, dtype=np.float32)
    lp[np.arange(len(ids)), ids] = 0.0
    return lp


def test_a_letter_doubled_across_the_blank_is_written_twice(tiny_ctc_dir, monkeypatch):  # noqa: F811
    ctc = load_model(str(tiny_ctc_dir))
    assert isinstance(ctc, HFCTC)
    paths = [_path(ctc, "hhel_llo  __wwor_l_dd"), _path(ctc, "aa_a bb")]
    monkeypatch.setattr(ctc, "_log_probs", lambda audio: paths[: len(audio)])
    assert ctc.transcribe([np.zeros(16000, np.float32), np.zeros(16000, np.float32)]) == ["hello world", "aa b"]


def test_the_rule_enters_the_hash_of_the_family_whose_transcripts_it_changed(tiny_ctc_dir, monkeypatch):  # noqa: F811
    ctc = load_model(str(tiny_ctc_dir))
    hashed = ctc.config_hash
    monkeypatch.setattr(HFCTC, "transcript_rule", None)  # the hash as it was before the fix
    assert ctc.config_hash != hashed
    assert HFEncoderCTC.transcript_rule is None  # Parakeet, LASR, OmniASR CTC always collapsed so: hashes kept
