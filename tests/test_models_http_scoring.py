"""Scoring through a vLLM-style server: the exact request sent and the parse of its prompt log-probs.

A stub server (http.server in a thread) records each request body and
answers with a response shaped like vLLM's chat completion with
``prompt_logprobs``: one entry per rendered prompt token, the first null.
"""

from __future__ import annotations

import base64
import io
import json
import wave
from http.server import BaseHTTPRequestHandler

import numpy as np
import pytest
from http_stub import send_json, serving

from asraudit.errors import InputError
from asraudit.models.http_scoring import HTTPScoringModel, candidate_scores, chat_url
from asraudit.models.registry import load_model

# The stub's "chat template" renders the turns as these tokens; the
# candidate's own tokens are appended by splitting it into 3-character pieces.
PROMPT_HEAD = ["<|im_start|>", "user", "\n", "<|audio|>", "<|im_end|>", "\n", "<|im_start|>", "assistant", "\n"]
TAIL = ["<|im_end|>", "\n"]


def _pieces(text: str) -> list[str]:
    return [text[i : i + 3] for i in range(0, len(text), 3)]


def _logprob(position: int) -> float:
    return -0.25 - 0.125 * position  # exact in binary, distinct per position


class _Stub(BaseHTTPRequestHandler):
    bodies: list = []

    def do_POST(self):  # noqa: N802 - http.server's name
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        type(self).bodies.append((self.path, body))
        if body["messages"][-1]["role"] == "user":  # a transcription request
            send_json(self, {"choices": [{"index": 0, "message": {"role": "assistant", "content": " heard text "}}]})
            return
        candidate = body["messages"][-1]["content"]
        rendered = PROMPT_HEAD + _pieces(candidate) + TAIL
        entries = [None] + [{str(100 + k): {"logprob": _logprob(k), "rank": 1, "decoded_token": tok}}
                            for k, tok in enumerate(rendered) if k > 0]
        send_json(self, {"id": "x", "object": "chat.completion",
                         "choices": [{"index": 0, "message": {"role": "assistant", "content": "a"}}],
                         "prompt_logprobs": entries})

    def log_message(self, *args):
        pass


@pytest.fixture()
def server():
    _Stub.bodies = []
    with serving(_Stub) as url:
        yield url


def test_the_request_body_and_the_parsed_scores(server):
    model = load_model(server, model="qwen-audio", scoring="vllm-prompt-logprobs", instruction="Transcribe.")
    assert isinstance(model, HTTPScoringModel)
    clip = (0.1 * np.sin(np.arange(1600) / 5)).astype(np.float32)
    text = "the cat sat"
    (scores,) = model.score(clip, [text])

    (path, body), = _Stub.bodies
    assert path == "/v1/chat/completions"
    audio_part = body["messages"][0]["content"][0]
    assert body == {
        "model": "qwen-audio",
        "messages": [
            {"role": "user", "content": [audio_part, {"type": "text", "text": "Transcribe."}]},
            {"role": "assistant", "content": text},
        ],
        "max_tokens": 1, "temperature": 0, "prompt_logprobs": 0,
        "add_generation_prompt": False, "continue_final_message": False,
    }
    assert audio_part["type"] == "input_audio" and audio_part["input_audio"]["format"] == "wav"
    with wave.open(io.BytesIO(base64.b64decode(audio_part["input_audio"]["data"]))) as w:
        assert (w.getframerate(), w.getnchannels(), w.getnframes()) == (16000, 1, 1600)

    first = len(PROMPT_HEAD)
    pieces = _pieces(text)
    assert scores.tokens == tuple(pieces) + ("<|im_end|>",)
    assert scores.logprobs == tuple(_logprob(first + k) for k in range(len(pieces) + 1))
    assert scores.token_ids == tuple(100 + first + k for k in range(len(pieces) + 1))
    assert scores.offsets == ((0, 3), (3, 6), (6, 9), (9, 11), (11, 11))


def test_empty_candidate_scores_the_end_of_turn_alone(server):
    model = HTTPScoringModel(server + "/v1", model="m")
    (scores,) = model.score(np.zeros(800, np.float32), [""])
    assert scores.tokens == ("<|im_end|>",) and scores.logprobs == (_logprob(len(PROMPT_HEAD)),)
    assert "text" not in json.dumps(_Stub.bodies[0][1]["messages"][0]["content"])  # no instruction part


def test_a_response_that_does_not_spell_the_candidate_fails_loudly():
    payload = {"prompt_logprobs": [None, {"5": {"logprob": -1.0, "decoded_token": "dog"}}, {"6": {"logprob": -0.5, "decoded_token": "<|im_end|>"}}]}
    with pytest.raises(RuntimeError, match="spell 'dog', not the candidate 'cat'"):
        candidate_scores(payload, "cat", "<|im_end|>", "srv")
    with pytest.raises(RuntimeError, match="no '</s>' token"):
        candidate_scores(payload, "dog", "</s>", "srv")
    two = {"prompt_logprobs": [None, {"5": {"logprob": -1.0, "decoded_token": "dog"}, "7": {"logprob": -2.0, "decoded_token": "cat"}}]}
    with pytest.raises(RuntimeError, match="not a one-token map"):
        candidate_scores(two, "dog", "<|im_end|>", "srv")
    with pytest.raises(RuntimeError, match="no prompt_logprobs"):
        candidate_scores({"choices": []}, "dog", "<|im_end|>", "srv")


def test_settings_enter_the_hash_and_unknown_protocols_are_refused():
    a = HTTPScoringModel("http://h:1", model="m")
    b = HTTPScoringModel("http://h:1", model="m", instruction="Transcribe the audio.")
    assert a.config_hash != b.config_hash
    assert chat_url("http://h:1/v1/audio/transcriptions") == "http://h:1/v1/chat/completions"
    with pytest.raises(InputError, match="not a scoring protocol"):
        HTTPScoringModel("http://h:1", scoring="openai-logprobs")


def test_chat_only_servers_transcribe_through_the_chat_endpoint(server):
    model = load_model(server, model="kimi", scoring="vllm-prompt-logprobs", transcribe_via="chat", max_tokens=64)
    assert model.transcribe([np.zeros(1600, np.float32)]) == ["heard text"]
    (path, body), = _Stub.bodies
    assert path == "/v1/chat/completions"
    assert [m["role"] for m in body["messages"]] == ["user"]
    assert {k: v for k, v in body.items() if k != "messages"} == {
        "model": "kimi", "max_tokens": 64, "temperature": 0, "add_generation_prompt": True}
    assert load_model(server, model="kimi", scoring="vllm-prompt-logprobs").config_hash != model.config_hash
    with pytest.raises(InputError, match="transcribe_via"):
        HTTPScoringModel(server, transcribe_via="grpc")
