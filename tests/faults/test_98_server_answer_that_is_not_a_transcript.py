"""Case 98: an HTTP model server that answers 200 with something that is not a transcript.

asraudit asks ``/v1/audio/transcriptions`` for ``response_format=json``, but
took any answer that was not labelled JSON and did not start with ``{`` as
the transcript itself: a proxy's or captive portal's HTML page sent with
status 200, a plain-text "Service temporarily unavailable", an empty body
were stored as the clip's transcript, exit 0, and the store reused them on
every rerun.  A chat-only server (``transcribe_via=chat``) whose
``choices[0].message.content`` was null (a reasoning or tool-call turn)
stored the transcript "None".  A JSON transcript holding a lone surrogate
(``\\ud800`` without its partner: a server that cut a character in two) was
a ``UnicodeEncodeError`` traceback from the result store.  Now each is one
line naming the endpoint and what came instead, exit 1, nothing stored for
that clip, and the rerun asks the server again.
"""

from __future__ import annotations

import json
import sys
from http.server import BaseHTTPRequestHandler
from pathlib import Path

import pytest

from asraudit.run.store import ResultStore

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from http_stub import send, send_json, serving  # noqa: E402
from conftest import silent_clips_manifest  # noqa: E402


class _Answers(BaseHTTPRequestHandler):
    """Answers the first clip with a transcript, the next with ``body`` (``None``: a transcript again)."""

    body: tuple[bytes, str] | None = None
    answered = 0

    def do_POST(self):  # noqa: N802 (the handler's protocol)
        request = self.rfile.read(int(self.headers["Content-Length"]))
        cls = type(self)
        chat = self.path.endswith("/chat/completions")
        if cls.body is None or cls.answered == 0:
            cls.answered += 1
            text = f"answer {cls.answered}"
            send_json(self, {"choices": [{"message": {"content": text}}]} if chat else {"text": text})
        elif chat:
            assert json.loads(request)["messages"][-1]["role"] == "user"
            send_json(self, {"choices": [{"message": {"role": "assistant", "content": None}}]})
        else:
            send(self, 200, *cls.body)

    def log_message(self, *args):
        pass


PAGE = (b"<!DOCTYPE html>\n<html><head><title>Sign in to the guest network</title></head>\n"
        b"<body>Please accept the terms</body></html>")
CASES = {
    "html page": ((PAGE, "text/html"), "/v1/audio/transcriptions: the answer is not JSON but an HTML page titled "
                  "'Sign in to the guest network': is the address a model server (not a proxy or another service)?"),
    "plain text": ((b"Service temporarily unavailable\n", "text/plain"), "/v1/audio/transcriptions: the answer is not "
                   "JSON but 'Service temporarily unavailable': is the address a model server (not a proxy or "
                   "another service)?"),
    "empty": ((b"", "text/plain"), "/v1/audio/transcriptions: the answer is not JSON but an empty answer: is the "
              "address a model server (not a proxy or another service)?"),
    "lone surrogate": ((b'{"text": "the cat \\ud800sat"}', "application/json"), "/v1/audio/transcriptions: the "
                       "answer's text holds a lone surrogate (\\ud800 at character 8), half of a UTF-16 pair and no "
                       "character: the server split a character"),
    "chat content null": (("chat", ""), "/v1/chat/completions: choices[0].message.content is null, not a transcript"),
}


@pytest.mark.parametrize("case", list(CASES))
def test_an_answer_that_is_not_a_transcript_is_refused_not_stored(tmp_path, cli, case):
    body, message = CASES[case]
    corpus, out = silent_clips_manifest(tmp_path), tmp_path / "out"
    _Answers.body, _Answers.answered = body, 0
    with serving(_Answers) as url:
        args = ["transcribe", "--corpus", corpus, "--model", url, "--option", "concurrency=1", "--batch-size", "1",
                "--no-progress", "--out", out]
        if case.startswith("chat"):
            args += ["--option", "scoring=vllm-prompt-logprobs", "--option", "transcribe_via=chat"]
        ran = cli(*args)
        assert ran.code == 1 and "Traceback" not in ran.err
        assert ran.error_lines == [f"asraudit: error: {url}{message}"]
        with ResultStore(out / "asraudit.sqlite") as store:
            assert [r.text for r in store.results()] == ["answer 1"]  # the page is no clip's transcript

        _Answers.body = None  # the server answers again: the rerun asks for the clip left, it was not stored
        assert cli(*args).code == 0
        assert _Answers.answered == 2
        with ResultStore(out / "asraudit.sqlite") as store:
            assert sorted(r.text for r in store.results()) == ["answer 1", "answer 2"]
