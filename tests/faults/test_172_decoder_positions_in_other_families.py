"""Case 172: case 140's check of a decoder steering entry's ``positions`` for the families beside Whisper that
have decoder positions: an encoder-decoder (Moonshine), a speech LLM (Qwen2-Audio), a transducer (Parakeet
TDT), each a tiny random-weight folder given as the entry's ``model`` and ``contrast``.

``positions = "each:40"`` (or ``first:40``) forces the first 39 tokens of every learning clip's reference, and
``--check`` counted them with a Whisper tokenizer only: for these folders it counted nothing and passed, and
the mechanism stage, the last, stopped once every other stage had run ("40 positions need a text of at least
39 tokens"); a transducer's reference with characters its vocabulary lacks stopped it the same way.  Now each
family's count is its own ``text_token_ids``, computed from the folder's tokenizer files by the same function
(no weights loaded), before any model runs.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")

import encdec_tiny  # noqa: E402
import speech_llm_fixtures  # noqa: E402
from asraudit.audit.mechanism import check_mechanism  # noqa: E402
from asraudit.audit.spec_mechanism import parse_mechanism  # noqa: E402
from asraudit.audit.spec_reader import SpecError  # noqa: E402
from asraudit.data.corpus import Clip  # noqa: E402
from asraudit.models.registry import load_model  # noqa: E402
from asraudit.models.token_counts import token_counter  # noqa: E402


def _tdt(folder: Path) -> Path:
    from test_models_hf_transducer import save_tiny

    return save_tiny(folder, "tdt")


BUILDERS = {"moonshine": encdec_tiny.moonshine, "qwen2-audio": speech_llm_fixtures.tiny_qwen2_audio,
            "parakeet-tdt": _tdt}


def _pair(kind: str, tmp_path_factory) -> tuple[Path, Path]:
    """A family's tiny folder, and a copy of it as the contrast."""
    root = tmp_path_factory.mktemp(kind)
    model = BUILDERS[kind](root / "model")
    contrast = root / "contrast"
    shutil.copytree(model, contrast)
    return model, contrast


@pytest.fixture(scope="module", params=sorted(BUILDERS))
def pair(request, tmp_path_factory) -> tuple[Path, Path]:
    return _pair(request.param, tmp_path_factory)


@pytest.fixture(scope="module")
def tdt_pair(tmp_path_factory) -> tuple[Path, Path]:
    return _pair("parakeet-tdt", tmp_path_factory)


def check(pair, positions: str, text: str):
    model, contrast = pair
    entry = {"type": "steer", "site": "decoder", "model": str(model), "contrast": str(contrast), "layer": 0,
             "positive": {"field": "voice_role", "value": "benchmark"}, "pair_by": "sentence",
             "induce": {"field": "voice_role", "value": "fresh"}, "positions": positions}
    clips = [Clip(f"s{s}-{role}", np.zeros(16000, np.float32), text, speaker=role,
                  metadata={"sentence": f"s{s}", "voice_role": role}) for s in range(4) for role in ("benchmark", "fresh")]
    return check_mechanism(parse_mechanism((entry,), "spec.toml", Path(".")), clips, "spec.toml")


@pytest.mark.parametrize("positions", ["each:40", "first:40"])
def test_positions_past_the_references_are_refused_by_the_check(pair, positions):
    with pytest.raises(SpecError) as err:
        check(pair, positions, "a tone")
    message = re.sub(r"clip s[0-3]-benchmark's", "clip S-benchmark's", str(err.value))
    tokens = 5 if "parakeet" in str(pair[0]) else 6  # the character tokenizers; the TDT's has a word-start piece
    assert message == (f"spec.toml: [[mechanism]] #1: positions {positions!r} force the first 39 tokens of each "
                       f"learning clip's reference, but clip S-benchmark's has {tokens} in {pair[0]}'s tokenizer "
                       "('a tone'): use fewer positions, or select longer clips")


def test_the_count_is_the_models_own(pair):
    """The check's count is the loaded model's ``text_token_ids``, and a count the references fill still plans."""
    model = load_model(f"whitebox:hf:{pair[0]}")
    counter = token_counter(str(pair[0]))
    for text in ("a tone", "the cat sat on the mat", " leading space", ""):
        assert counter(text) == len(model.text_token_ids(text))
    n = counter("the cat sat on the mat")
    assert len(check(pair, f"each:{n + 1}", "the cat sat on the mat")) == 1
    with pytest.raises(SpecError):
        check(pair, f"each:{n + 2}", "the cat sat on the mat")


def test_a_reference_a_transducer_cannot_write_is_refused_by_the_check(tdt_pair):
    pair = tdt_pair
    with pytest.raises(SpecError) as err:
        check(pair, "each:3", "A Tone!")
    message = re.sub(r"clip s[0-3]-benchmark's", "clip S-benchmark's", str(err.value))
    assert message.startswith(f"spec.toml: [[mechanism]] #1: clip S-benchmark's reference cannot be forced in "
                              f"{pair[0]}: candidate 'A Tone!' has characters outside the transducer vocabulary")
