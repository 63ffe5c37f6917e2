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
import html
import http.client
import io
import json
import os
import re
import uuid
import wave
from concurrent.futures import ThreadPoolExecutor
from typing import Sequence
from urllib.error import HTTPError, URLError
from urllib.parse import urljoin, urlsplit
from urllib.request import HTTPRedirectHandler, Request, build_opener

import numpy as np

from asraudit.models.base import audio_batch, model_options
from asraudit.audio.constants import SAMPLE_RATE
from asraudit.data.rows import lone_surrogate
from asraudit.errors import InputError, ServiceError

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


class _NoRedirect(HTTPRedirectHandler):
    """Redirects are not followed: urllib resends a POST redirected by 301, 302 or 303 as a GET without its body,
    and whatever the new address answers that GET would be taken for the model's answer."""

    def redirect_request(self, req, fp, code, msg, headers, newurl):
        return None  # the 3xx reaches post() as an HTTPError


_OPENER = build_opener(_NoRedirect)
_TITLE = re.compile(rb"<title[^>]*>(.*?)</title", re.IGNORECASE | re.DOTALL)


def describe_body(raw: bytes, content_type: str, *, quoted: bool = True) -> str:
    """A short description of an answer body for an error line: an HTML page by its title, else its first
    characters on one line (in quotes unless ``quoted`` is false: a server's own error message)."""
    head = raw[:4096]
    if content_type == "text/html" or head.lstrip()[:1] == b"<":
        title = _TITLE.search(head)
        if title:
            return f"an HTML page titled {' '.join(html.unescape(title.group(1).decode('utf-8', 'replace')).split())!r}"
        return "an HTML page"
    if not raw.strip():
        return "an empty answer"
    text = " ".join(raw[:300].decode("utf-8", "replace").split())
    return repr(text) if quoted else text


def post(url: str, body: bytes, headers: dict[str, str], timeout: float) -> bytes:
    """POST ``body`` to ``url`` and return the 2xx answer's body.  Every way the exchange can fail (no server, an
    HTTP error, a redirect, no answer within ``timeout``, a connection closed or an answer cut short) is one
    ``ServiceError`` naming ``url``; nothing of a failed exchange is returned."""
    request = Request(url, data=body, headers=headers, method="POST")
    try:
        with _OPENER.open(request, timeout=timeout) as response:
            return response.read()
    except HTTPError as exc:
        if 300 <= exc.code < 400:
            target = exc.headers.get("Location") if exc.headers else None
            target = urljoin(url, target) if target else "(no address)"
            raise ServiceError(f"{url}: HTTP {exc.code} {exc.reason}: the server redirects to {target}, "
                               "and asraudit does not follow redirects (the request would be resent without its body): "
                               "give the address it redirects to as the model's URL") from None
        try:
            detail = describe_body(exc.read(), exc.headers.get_content_type() if exc.headers else "", quoted=False)
        except (OSError, http.client.HTTPException):
            detail = "(its message was cut short)"
        raise ServiceError(f"{url}: HTTP {exc.code} {exc.reason}: {detail}") from None
    except URLError as exc:
        if isinstance(exc.reason, TimeoutError):
            raise ServiceError(_timed_out(url, timeout)) from None
        raise ServiceError(f"{url}: cannot reach the server ({exc.reason})") from None
    except TimeoutError:
        raise ServiceError(_timed_out(url, timeout)) from None
    except http.client.IncompleteRead as exc:
        raise ServiceError(f"{url}: the answer was cut short ({len(exc.partial)} bytes read, "
                           f"{exc.expected if exc.expected is not None else 'more'} more expected)") from None
    except http.client.RemoteDisconnected:
        raise ServiceError(f"{url}: the server closed the connection without an answer") from None
    except http.client.BadStatusLine as exc:
        raise ServiceError(f"{url}: the answer is not HTTP (its first line: {str(exc.args[0] if exc.args else '')[:80]!r})") from None
    except (http.client.HTTPException, OSError) as exc:
        raise ServiceError(f"{url}: the connection broke off ({type(exc).__name__}: {exc})") from None


def _timed_out(url: str, timeout: float) -> str:
    return (f"{url}: no answer within {timeout:g} s (the model's timeout option, 120 s unless set): "
            "a busy or stalled server, or a clip too long for this timeout")


def json_answer(url: str, raw: bytes) -> object:
    """The JSON of an answer body; an answer that is not UTF-8 JSON (a proxy's HTML page, plain text, an empty
    body) is a ``ServiceError`` naming ``url`` and what came instead, never a transcript."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ServiceError(f"{url}: the answer is not UTF-8 text (byte 0x{raw[exc.start]:02x} at offset {exc.start})") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        kind = "text/html" if text.lstrip()[:1] == "<" else ""
        raise ServiceError(f"{url}: the answer is not JSON but {describe_body(raw, kind)}: "
                           "is the address a model server (not a proxy or another service)?") from None


def seconds_option(url: str, name: str, value: object, what: str) -> float:
    """A model option in seconds: a finite number above 0 (0 would make every socket non-blocking), else one line."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value < float("inf"):
        raise InputError(f"model {url!r}: {name}={value!r} is not a number of seconds above 0 ({what})")
    return float(value)


def count_option(url: str, name: str, value: object, what: str) -> int:
    """A model option that counts: a whole number of at least 1, else one line (never rounded or raised to 1)."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise InputError(f"model {url!r}: {name}={value!r} is not a whole number of at least 1 ({what})")
    return value


def text_option(url: str, name: str, value: object, what: str, *, required: bool = False) -> str | None:
    """A model option that is text, or None for "not set" (unless ``required``: then a text of at least one
    character), else one line.  A number or a switch went into the request as Python writes it (``prompt=true`` as
    the prompt ``True``, ``model=null`` as the model ``None``), a list as its repr."""
    if value is None and not required:
        return None
    if not isinstance(value, str) or (required and not value.strip()):
        raise InputError(f"model {url!r}: {name}={value!r} is not {'a non-empty text' if required else 'a text'} "
                         f"({what})")
    return value


def form_field(url: str, name: str, value: object) -> str | None:
    """An extra option's value as the request's form carries it: a text as it is, a whole or finite number as JSON
    writes it, a switch as ``true``/``false``; None (``null``) is a field not sent.  A list or a table cannot be one
    form field, and an infinite number is no value: one line each.  They were sent as Python writes them
    (``None``, ``True``, ``['word']``, ``inf``)."""
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, bool) or (isinstance(value, (int, float)) and value == value and abs(value) != float("inf")):
        return json.dumps(value)
    raise InputError(f"model {url!r}: {name}={value!r} cannot be sent as a form field: give a text or a "
                     "finite number (a list or a table is no one field's value)")


def transcript_text(url: str, text: str, field: str) -> str:
    """An answer's transcript, stripped; one holding a lone surrogate (a JSON ``\\ud800`` escape without its
    partner: a server that cut a character in two) is a ``ServiceError``, as nothing can store it as UTF-8."""
    at = lone_surrogate(text)
    if at >= 0:
        raise ServiceError(f"{url}: the answer's {field} holds a lone surrogate (\\u{ord(text[at]):04x} at character "
                           f"{at}), half of a UTF-16 pair and no character: the server split a character")
    return text.strip()


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
        self.model = text_option(url, "model", model, "the model the server is asked for", required=True)
        self.model_id = model_id or f"{self.url}#{model}"
        # in lower case, as every other backend reads it (models.base.model_options, case 183): the request and the
        # config hash carry `fr` for `language=FR`, not the spelling given
        language = text_option(url, "language", language, "a language code, such as en")
        self.language = model_options({"language": language})["language"]
        self.prompt = text_option(url, "prompt", prompt, "text the server conditions its transcript on")
        # The usual variable for OpenAI-compatible servers; local servers need none.
        api_key = text_option(url, "api_key", api_key, "the key sent as the Authorization header")
        self.api_key = api_key if api_key is not None else os.environ.get("OPENAI_API_KEY")
        self.timeout = seconds_option(url, "timeout", timeout, "the time to wait for each answer")
        self.concurrency = count_option(url, "concurrency", concurrency, "requests in flight")
        fields = {k: form_field(url, k, v) for k, v in extra_fields.items()}
        self.extra_fields = {k: v for k, v in fields.items() if v is not None}

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
        raw = post(self.url, body, headers, self.timeout)
        # The request asks for response_format=json: the answer is {"text": ...}.  Anything else (an HTML page a
        # proxy sends with 200, plain text, an empty body) is refused, never stored as the clip's transcript.
        payload = json_answer(self.url, raw)
        if not isinstance(payload, dict) or not isinstance(payload.get("text"), str):
            raise ServiceError(f"{self.url}: response has no 'text' field: {raw.decode('utf-8')[:200]!r}")
        return transcript_text(self.url, payload["text"], "text")

    def transcribe(self, audio: Sequence[np.ndarray]) -> list[str]:
        audio = audio_batch(audio)
        if self.concurrency == 1 or len(audio) <= 1:
            return [self._post(clip) for clip in audio]
        with ThreadPoolExecutor(max_workers=self.concurrency) as pool:
            return list(pool.map(self._post, audio))
