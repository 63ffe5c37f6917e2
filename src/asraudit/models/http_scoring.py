"""Scoring through an OpenAI-compatible chat server that returns prompt log-probabilities (vLLM).

A model served by vLLM can be *scored*, not only transcribed: vLLM's chat
completions endpoint accepts ``prompt_logprobs`` and then returns, for every
token of the rendered prompt, the log-probability the model gave it.  If the
prompt is the whole conversation, user turn with the audio *and* the
assistant turn holding the candidate, those numbers are the teacher-forced
scores of the candidate's tokens and of the end-of-turn token that closes it.

The request (one per candidate, ``POST {base}/v1/chat/completions``)::

    {"model": MODEL,
     "messages": [
       {"role": "user", "content": [
          {"type": "input_audio", "input_audio": {"data": BASE64_WAV, "format": "wav"}},
          {"type": "text", "text": INSTRUCTION}]},          # only when instruction= is set
       {"role": "assistant", "content": CANDIDATE}],
     "max_tokens": 1, "temperature": 0,
     "prompt_logprobs": 0,                 # the prompt token's own log-prob only, no top-k
     "add_generation_prompt": false, "continue_final_message": false}

The response's ``prompt_logprobs`` is a list with one entry per prompt token
(``null`` for the first), each ``{"<token id>": {"logprob": x, "decoded_token":
s, ...}}``.  The candidate's tokens are found from the end: the last token
whose text is the end-of-turn token (``end_token``, default ``<|im_end|>``)
closes the assistant turn, and the tokens before it whose texts join to the
candidate are the candidate.  If they do not spell it exactly (a server
whose template changes the text, a byte split of a non-ASCII character), the
score fails loudly rather than guessing.

Candidates go up one per request, so a server's prefix cache does the work
the in-process backends do with a copied key/value cache.

Transcription goes to ``/v1/audio/transcriptions`` as for any HTTP model,
or, with ``transcribe_via=chat`` (a chat-only server), to the chat endpoint:
the same user turn, no assistant turn, ``"add_generation_prompt": true``,
``"max_tokens": MAX_TOKENS`` (448), ``"temperature": 0``; the transcript is
``choices[0].message.content``.
"""

from __future__ import annotations

import base64
import json
import math
from typing import Sequence
from urllib.parse import urlsplit

import numpy as np

from asraudit.errors import ServiceError
from asraudit.models.base import TokenScores, audio_batch, score_arguments
from asraudit.models.http import (HTTPTranscriptionModel, count_option, json_answer, post, text_option,
                                  transcript_text, wav_bytes)

CHAT_ENDPOINT = "/v1/chat/completions"
SCORING_PROTOCOLS = ("vllm-prompt-logprobs",)


def chat_url(base: str) -> str:
    """The chat completions URL of a server given by its base URL (or any of its /v1 endpoints)."""
    base = base.rstrip("/")
    path = urlsplit(base).path
    for suffix in ("/audio/transcriptions", "/chat/completions"):
        if path.endswith(suffix):
            base = base[: -len(suffix)]
            path = urlsplit(base).path
    if path.endswith("/v1"):
        return base + "/chat/completions"
    return base + CHAT_ENDPOINT


def scoring_request(model: str, audio: np.ndarray, candidate: str, instruction: str | None) -> dict:
    """The JSON body that asks for the prompt log-probs of ``candidate`` as the assistant's answer to ``audio``."""
    user = [{"type": "input_audio", "input_audio": {"data": base64.b64encode(wav_bytes(audio)).decode("ascii"), "format": "wav"}}]
    if instruction:
        user.append({"type": "text", "text": instruction})
    return {
        "model": model,
        "messages": [{"role": "user", "content": user}, {"role": "assistant", "content": candidate}],
        "max_tokens": 1,
        "temperature": 0,
        "prompt_logprobs": 0,
        "add_generation_prompt": False,
        "continue_final_message": False,
    }


def transcription_request(model: str, audio: np.ndarray, instruction: str | None, max_tokens: int) -> dict:
    """The JSON body that asks a chat server to transcribe ``audio`` (greedy: temperature 0)."""
    body = scoring_request(model, audio, "", instruction)
    body["messages"] = body["messages"][:1]
    body.update(max_tokens=max_tokens, add_generation_prompt=True)
    del body["prompt_logprobs"], body["continue_final_message"]
    return body


def candidate_scores(payload: dict, candidate: str, end_token: str, where: str) -> TokenScores:
    """The candidate's per-token scores, end-of-turn last, from a vLLM response with ``prompt_logprobs``."""
    entries = payload.get("prompt_logprobs") if isinstance(payload, dict) else None
    if not isinstance(entries, list) or not entries:
        raise ServiceError(f"{where}: the response has no prompt_logprobs (is the server vLLM, started with prompt log-probs allowed?)")
    ids = payload.get("prompt_token_ids")
    if ids is not None and (not isinstance(ids, list) or len(ids) != len(entries)):
        raise ServiceError(f"{where}: prompt_logprobs has {len(entries)} positions but prompt_token_ids "
                           f"{len(ids) if isinstance(ids, list) else 'is not a list'}: the scores do not line up with the prompt")
    tokens: list[tuple[int, str, float] | None] = []
    for position, entry in enumerate(entries):
        if entry is None:  # the first prompt token has no log-prob; a null anywhere else is refused below if it is used
            tokens.append(None)
            continue
        tokens.append(_prompt_token(entry, position, None if ids is None else ids[position], where))
    end = max((k for k, token in enumerate(tokens) if token is not None and token[1] == end_token), default=None)
    if end is None:
        raise ServiceError(f"{where}: no {end_token!r} token closes the assistant turn; set end_token= to the model's end-of-turn token")
    start, spelled = end, ""
    while len(spelled) < len(candidate) and start > 0:
        start -= 1
        if tokens[start] is None:
            if start == 0:  # vLLM's null for the first prompt token: the tokens ran out before spelling the candidate
                break
            raise ServiceError(f"{where}: prompt_logprobs[{start}] is null inside the candidate's tokens "
                               "(only the first prompt token has no log-prob): the candidate cannot be scored")
        spelled = tokens[start][1] + spelled
    if spelled != candidate:
        raise ServiceError(f"{where}: the server's tokens before {end_token!r} spell {spelled[-80:]!r}, not the candidate {candidate[:80]!r}")
    picked = tokens[start : end + 1]
    offsets, position = [], 0
    for _, text, _ in picked[:-1]:
        offsets.append((position, position + len(text)))
        position += len(text)
    offsets.append((len(candidate), len(candidate)))
    return TokenScores(
        text=candidate,
        tokens=tuple(text for _, text, _ in picked),
        logprobs=tuple(lp for _, _, lp in picked),
        token_ids=tuple(i for i, _, _ in picked),
        offsets=tuple(offsets),
    )


# A log-probability is at most 0; this much above it is float rounding of a probability of 1, more is no log-prob.
LOGPROB_SLACK = 1e-5


def _prompt_token(entry: object, position: int, expected_id: object, where: str) -> tuple[int, str, float]:
    """(token id, text, log-prob) of one ``prompt_logprobs`` entry, every field checked: a malformed entry or a
    log-prob that is not a finite number <= 0 is refused naming its position, never stored as a score."""
    at = f"{where}: prompt_logprobs[{position}]"
    # prompt_logprobs=0 asks for the prompt token alone; with more entries there is no telling which
    # one is the prompt's, so a map of any other size is refused rather than guessed at.
    if not isinstance(entry, dict) or len(entry) != 1:
        raise ServiceError(f"{at} is not a one-token map (the request asks for prompt_logprobs=0): {str(entry)[:120]}")
    ((key, value),) = entry.items()
    try:
        token_id = int(key)
    except ValueError:
        raise ServiceError(f"{at}: the token id {key!r} is not an integer") from None
    if expected_id is not None and expected_id != token_id:
        raise ServiceError(f"{at}: token {token_id}, but prompt_token_ids[{position}] is {str(expected_id)[:40]}: "
                           "the scores are not the prompt's tokens")
    if not isinstance(value, dict):
        raise ServiceError(f"{at}: the entry of token {token_id} is {str(value)[:80]}, not an object with a logprob")
    logprob, text = value.get("logprob"), value.get("decoded_token", "")
    if isinstance(logprob, bool) or not isinstance(logprob, (int, float)):
        raise ServiceError(f"{at}: the logprob of token {token_id} is {json.dumps(logprob)[:40]}, not a number")
    if not math.isfinite(logprob) or logprob > LOGPROB_SLACK:
        raise ServiceError(f"{at}: the logprob of token {token_id} is {logprob!r}; a log-probability is a finite "
                           "number <= 0: the server's scores are broken")
    if not isinstance(text, str):
        raise ServiceError(f"{at}: the decoded_token of token {token_id} is {json.dumps(text)[:40]}, not text")
    return token_id, text, float(logprob)


class HTTPScoringModel(HTTPTranscriptionModel):
    """An OpenAI-compatible server that transcribes (``/v1/audio/transcriptions``) and scores (vLLM prompt log-probs)."""

    backend = "http-scoring"

    def __init__(self, url: str, *, scoring: str = "vllm-prompt-logprobs", instruction: str | None = None,
                 end_token: str = "<|im_end|>", transcribe_via: str = "transcriptions", max_tokens: int = 448,
                 **options):
        if scoring not in SCORING_PROTOCOLS:
            from asraudit.errors import InputError

            raise InputError(f"model {url!r}: scoring={scoring!r} is not a scoring protocol asraudit speaks ({', '.join(SCORING_PROTOCOLS)})")
        super().__init__(url, **options)
        self.chat_url = chat_url(url)
        self.scoring = scoring
        self.instruction = text_option(url, "instruction", instruction, "text sent after the audio")
        self.end_token = text_option(url, "end_token", end_token, "the model's end-of-turn token", required=True)
        if transcribe_via not in ("transcriptions", "chat"):
            from asraudit.errors import InputError

            raise InputError(f"model {url!r}: transcribe_via={transcribe_via!r} is not 'transcriptions' or 'chat'")
        # Chat-only servers (a speech LLM served without a transcription route) transcribe through the chat endpoint.
        self.transcribe_via = transcribe_via
        self.max_tokens = count_option(url, "max_tokens", max_tokens, "the most tokens of a transcript through chat")

    def _fields(self) -> dict[str, str]:
        fields = super()._fields()
        # The scoring settings change scores, so they enter the config hash through the fields.
        fields.update({"scoring": self.scoring, "instruction": self.instruction or "", "end_token": self.end_token,
                       "transcribe_via": self.transcribe_via, "max_tokens": str(self.max_tokens)})
        return fields

    def _chat(self, body: dict) -> object:
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        return json_answer(self.chat_url, post(self.chat_url, json.dumps(body).encode("utf-8"), headers, self.timeout))

    def _chat_transcript(self, audio: np.ndarray) -> str:
        payload = self._chat(transcription_request(self.model, audio, self.instruction, self.max_tokens))
        try:
            content = payload["choices"][0]["message"]["content"]
        except (KeyError, IndexError, TypeError):
            raise ServiceError(f"{self.chat_url}: response has no choices[0].message.content: {str(payload)[:200]}") from None
        if not isinstance(content, str):  # null (a reasoning or tool-call turn) is no transcript, nor is "None"
            raise ServiceError(f"{self.chat_url}: choices[0].message.content is {json.dumps(content)[:80]}, not a transcript")
        return transcript_text(self.chat_url, content, "choices[0].message.content")

    def transcribe(self, audio: Sequence[np.ndarray]) -> list[str]:
        if self.transcribe_via == "transcriptions":
            return super().transcribe(audio)
        return [self._chat_transcript(clip) for clip in audio_batch(audio)]

    def score(self, audio: np.ndarray, candidates: Sequence[str]) -> list[TokenScores]:
        audio, candidates = score_arguments(audio, candidates)
        out = []
        for candidate in candidates:
            payload = self._chat(scoring_request(self.model, audio, candidate, self.instruction))
            out.append(candidate_scores(payload, candidate, self.end_token, self.chat_url))
        return out
