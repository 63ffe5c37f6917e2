"""Case 139: a speech LLM given ``max_new_tokens`` past the positions its language model reads.

``--option max_new_tokens=1000000`` (a digit slip, or "no limit") to a
transformers speech LLM (Qwen2-Audio, Voxtral, Granite-Speech, ...) was
taken: a window whose answer did not end ran on for minutes, past the
positions the model was trained on.  Encoder-decoder families already refuse
it (``check_decoder_length``).  Now the speech LLM's load refuses it in one
line naming the limit (its text config's ``max_position_embeddings``), before
the weights are read.
"""

from __future__ import annotations

import json

import pytest

pytest.importorskip("transformers")
pytest.importorskip("torch")


@pytest.fixture(scope="module", params=["tiny_qwen2_audio", "tiny_voxtral"])
def folder(request, tmp_path_factory):
    import speech_llm_fixtures

    return getattr(speech_llm_fixtures, request.param)(tmp_path_factory.mktemp(request.param))


def _limit(folder) -> int:
    return json.loads((folder / "config.json").read_text(encoding="utf-8"))["text_config"]["max_position_embeddings"]


def test_past_the_text_positions_is_one_line_at_load(folder):
    from asraudit import InputError
    from asraudit.models.registry import load_model

    limit = _limit(folder)
    for asked in (1_000_000, limit):
        with pytest.raises(InputError) as err:
            load_model(f"hf:{folder}", max_new_tokens=asked)
        message = str(err.value)
        assert message.endswith(f" reads at most {limit} positions (its text config's max_position_embeddings), "
                                f"prompt and audio included, but max_new_tokens={asked} was asked: use "
                                f"max_new_tokens below {limit}")
    assert load_model(f"hf:{folder}", max_new_tokens=8).options.max_new_tokens == 8
