"""An OpenAI-compatible ``/v1/audio/transcriptions`` endpoint as a model.

Many servers speak this API (vLLM, whisper.cpp's server, speaches, hosted
services), so one small client covers them.  Audio goes up as 16-bit PCM WAV
in a multipart form with ``model``, ``response_format=json`` and
``temperature=0`` (deterministic decoding, so reruns are comparable).  The
standard library does the HTTP: no client dependency for a dozen lines.

The spec is the server's base URL (``http://host:8000`` or ``.../v1``) or
the full endpoint URL; the model name is the ``model`` option.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import uuid
import wave
from concurrent.futures import ThreadPoolExecutor
from typing import Sequence
from urllib.error import HTTPError, URLError
from urllib.parse import urlsplit
from urllib.request import Request, urlopen

import numpy as np

from asraudit.models.base import audio_batch
from asraudit.audio.constants import SAMPLE_RATE
from asraudit.errors import ServiceError

ENDPOINT = "/v1/audio/transcriptions"


def endpoint_url(base: str) -> str:
    """The transcription URL for a server base URL (or the URL itself if it is one)."""
    base = base.rstrip("/")
    path = urlsplit(base).path
    if path.endswith("/audio/transcriptions"):
        return base
    if path.endswith("/v1"):
        return base + "/audio/transcriptions"
    return base + ENDPOINT


def wav_bytes(audio: np.ndarray) -> bytes:
    """Mono float32 audio as a 16-bit PCM WAV file in memory."""
    pcm = np.round(np.clip(np.asarray(audio, dtype=np.float32), -1.0, 1.0) * 32767.0).astype("<i2")
    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(SAMPLE_RATE)
        w.writeframes(pcm.tobytes())
    return buffer.getvalue()


def multipart_body(fields: dict[str, str], file_field: str, filename: str, payload: bytes, content_type: str) -> tuple[bytes, str]:
    """An RFC 7578 multipart/form-data body and its Content-Type header."""
    boundary = f"asraudit-{uuid.uuid4().hex}"
    parts = []
    for name, value in fields.items():
        parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n{value}\r\n'.encode())
    parts.append(
        f'--{boundary}\r\nContent-Disposition: form-data; name="{file_field}"; filename="{filename}"\r\n'
        f"Content-Type: {content_type}\r\n\r\n".encode()
        + payload
        + b"\r\n"
    )
    parts.append(f"--{boundary}--\r\n".encode())
    return b"".join(parts), f"multipart/form-data; boundary={boundary}"


class HTTPTranscriptionModel:
    """Transcribe by POSTing each clip to an OpenAI-compatible endpoint."""

    backend = "http"

    def __init__(
        self,
        url: str,
        *,
        model: str = "whisper-1",
        model_id: str | None = None,
        language: str | None = None,
        prompt: str | None = None,
        api_key: str | None = None,
        timeout: float = 120.0,
        concurrency: int = 4,
        **extra_fields,
    ):
        self.url = endpoint_url(url)
        self.model = model
        self.model_id = model_id or f"{self.url}#{model}"
        self.language = language
        self.prompt = prompt
        # The usual variable for OpenAI-compatible servers; local servers need none.
        self.api_key = api_key if api_key is not None else os.environ.get("OPENAI_API_KEY")
        self.timeout = timeout
        self.concurrency = max(1, int(concurrency))
        self.extra_fields = {k: str(v) for k, v in extra_fields.items()}

    def _fields(self) -> dict[str, str]:
        fields = {"model": self.model, "response_format": "json", "temperature": "0"}
        if self.language:
            fields["language"] = self.language
        if self.prompt:
            fields["prompt"] = self.prompt
        fields.update(self.extra_fields)
        return fields

    @property
    def config_hash(self) -> str:
        settings = {"backend": self.backend, "url": self.url, "fields": self._fields()}
        return hashlib.sha256(json.dumps(settings, sort_keys=True).encode()).hexdigest()[:16]

    def _post(self, audio: np.ndarray) -> str:
        body, content_type = multipart_body(self._fields(), "file", "audio.wav", wav_bytes(audio), "audio/wav")
        headers = {"Content-Type": content_type, "Accept": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        request = Request(self.url, data=body, headers=headers, method="POST")
        try:
            with urlopen(request, timeout=self.timeout) as response:
                raw = response.read()
                kind = response.headers.get_content_type()
        except HTTPError as exc:
            detail = exc.read()[:300].decode("utf-8", "replace")
            raise ServiceError(f"{self.url}: HTTP {exc.code} {exc.reason}: {detail}") from None
        except URLError as exc:
            raise ServiceError(f"{self.url}: cannot reach the server ({exc.reason})") from None
        text = raw.decode("utf-8")
        if kind == "application/json" or text.lstrip().startswith("{"):
            try:
                payload = json.loads(text)
            except json.JSONDecodeError:
                raise ServiceError(f"{self.url}: response is not valid JSON: {text[:200]!r}") from None
            if not isinstance(payload, dict) or not isinstance(payload.get("text"), str):
                raise ServiceError(f"{self.url}: response has no 'text' field: {text[:200]!r}")
            return payload["text"].strip()
        return text.strip()

    def transcribe(self, audio: Sequence[np.ndarray]) -> list[str]:
        audio = audio_batch(audio)
        if self.concurrency == 1 or len(audio) <= 1:
            return [self._post(clip) for clip in audio]
        with ThreadPoolExecutor(max_workers=self.concurrency) as pool:
            return list(pool.map(self._post, audio))
