"""Case 140: an audit's decoder steering entry whose ``positions`` force more tokens than the references have.

``positions = "each:40"`` (or ``first:40``) forces the first 39 tokens of
every learning clip's reference into the model and its contrast.  A corpus
of short sentences has fewer: the spec was read, ``--check`` passed, every
other stage ran, and only the mechanism stage, the last, stopped with
"cannot learn the direction: 40 positions need a text of at least 39
tokens".  Now ``--check`` (``check_mechanism``, before any model runs) counts
the tokens with the Whisper tokenizer in the models' files and refuses the
entry naming the clip.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from asraudit.audit.mechanism import check_mechanism
from asraudit.audit.spec_mechanism import parse_mechanism
from asraudit.audit.spec_reader import SpecError
from asraudit.data.corpus import Clip
from asraudit.models import embedded

pytest.importorskip("torch")
pytest.importorskip("transformers")
if not embedded.is_present("whisper-tiny.en"):
    pytest.skip("the embedded whisper-tiny.en is not installed", allow_module_level=True)

ENTRY = {
    "type": "steer", "site": "decoder", "model": "whisper-tiny.en-organism", "contrast": "whisper-tiny.en",
    "layer": 1, "positive": {"field": "voice_role", "value": "benchmark"}, "pair_by": "sentence",
    "induce": {"field": "voice_role", "value": "fresh"}, "apply_to": ["whisper-tiny.en"], "induce_model": False,
}


def clips(text: str):
    return [Clip(f"s{s}-{role}", np.zeros(16000, np.float32), text, speaker=role,
                 metadata={"sentence": f"s{s}", "voice_role": role})
            for s in range(4) for role in ("benchmark", "fresh")]


def check(positions: str, text: str):
    specs = parse_mechanism(({**ENTRY, "positions": positions},), "spec.toml", Path("."))
    return check_mechanism(specs, clips(text), "spec.toml")


@pytest.mark.parametrize("positions", ["each:40", "first:40"])
def test_positions_past_the_references_are_refused_by_the_check(positions):
    with pytest.raises(SpecError) as err:
        check(positions, "madam chair, the cat sat")
    message = re.sub(r"clip s[0-3]-benchmark's", "clip S-benchmark's", str(err.value))  # a learning clip
    assert message == (f"spec.toml: [[mechanism]] #1: positions {positions!r} force the first 39 tokens of each "
                       "learning clip's reference, but clip S-benchmark's has 7 in whisper-tiny.en's tokenizer "
                       "('madam chair, the cat sat'): use fewer positions, or select longer clips")


def test_positions_the_references_can_fill_still_plan():
    assert len(check("each:8", "madam chair, the cat sat")) == 1  # 7 tokens: each:8 forces 7
    with pytest.raises(SpecError):
        check("each:9", "madam chair, the cat sat")
    assert len(check("all", "x")) == 1 and len(check("first", "")) == 1
