"""A local HTTP server for the HTTP-backend tests: serve a handler class on a free port, reply with JSON.

Shared by the transcription backend's tests (test_models_registry) and the
vLLM scoring tests (test_models_http_scoring), so each keeps only what its
stub answers."""

from __future__ import annotations

import contextlib
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Iterator


def send_json(handler: BaseHTTPRequestHandler, payload: object) -> None:
    """A 200 reply carrying ``payload`` as JSON."""
    send(handler, 200, json.dumps(payload).encode())


def send(handler: BaseHTTPRequestHandler, status: int, body: bytes, content_type: str = "application/json",
         headers: dict[str, str] | None = None, length: int | None = None) -> None:
    """A reply with ``status`` and ``body``; ``length`` announces another Content-Length (an answer cut short)."""
    handler.send_response(status)
    handler.send_header("Content-Type", content_type)
    handler.send_header("Content-Length", str(len(body) if length is None else length))
    for name, value in (headers or {}).items():
        handler.send_header(name, value)
    handler.end_headers()
    handler.wfile.write(body)


@contextlib.contextmanager
def serving(handler: type[BaseHTTPRequestHandler]) -> Iterator[str]:
    """``http://127.0.0.1:PORT`` while ``handler`` serves in a thread; shut down however the test ends."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def form_recorder(text: str) -> type[BaseHTTPRequestHandler]:
    """A handler class that answers every clip with ``text`` and keeps the form fields (not the audio file) of
    each request in its ``forms``, a list of its own: what a transcription request carried."""
    from email.parser import BytesParser
    from email.policy import HTTP

    class Recorder(BaseHTTPRequestHandler):
        forms: list[dict[str, str]] = []

        def do_POST(self):  # noqa: N802 (the handler's protocol)
            body = self.rfile.read(int(self.headers["Content-Length"]))
            head = f"Content-Type: {self.headers['Content-Type']}\r\n\r\n".encode()
            message = BytesParser(policy=HTTP).parsebytes(head + body)
            type(self).forms.append({part.get_param("name", header="content-disposition"): part.get_content()
                                     for part in message.iter_parts() if part.get_filename() is None})
            send_json(self, {"text": text})

        def log_message(self, *args):
            pass

    return Recorder
