"""Case 97: an HTTP model server whose answer breaks off, stalls, is not HTTP, or redirects.

Case 48 covered a server that is not there or answers HTTP 500.  Other ways
an exchange fails went past asraudit's checks: an answer cut short (its
Content-Length not reached), a connection closed without an answer, no answer
within the timeout, a reply that is not HTTP and a body that is not UTF-8
were tracebacks (``IncompleteRead``, ``RemoteDisconnected``, ``TimeoutError``,
``BadStatusLine``, ``UnicodeDecodeError``); a 302 redirect was followed by
urllib as a GET without the audio, and what the new address answered that GET
was stored as the clip's transcript, exit 0; a proxy's HTML error page with
line breaks and control characters was printed as several raw lines.  Now each
is one line naming the endpoint and what went wrong, exit 1; nothing of the
failed answer is stored; the clip answered before it stays, and the rerun
sends only the rest.
"""

from __future__ import annotations

import contextlib
import sys
import threading
from http.server import BaseHTTPRequestHandler
from pathlib import Path

import pytest

from asraudit.run.store import ResultStore

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from http_stub import send, send_json, serving  # noqa: E402
from conftest import silent_clips_manifest  # noqa: E402

RELEASE = threading.Event()  # lets a stalled answer go once the test is done with it


class _BreaksOnTheSecondClip(BaseHTTPRequestHandler):
    """Answers the first clip, then misbehaves as ``mode`` says (``ok``: answers every clip)."""

    mode = "ok"
    answered = 0

    def do_POST(self):  # noqa: N802 (the handler's protocol)
        self.rfile.read(int(self.headers["Content-Length"]))
        cls = type(self)
        if cls.mode == "ok" or cls.answered == 0:
            cls.answered += 1
            send_json(self, {"text": f"answer {cls.answered}"})
        elif cls.mode == "cut short":
            send(self, 200, b'{"text": "ans', length=40)
        elif cls.mode == "closed":
            self.close_connection = True  # no status line, nothing
        elif cls.mode == "not http":
            self.wfile.write(b"NOT HTTP AT ALL\r\n\r\n")
        elif cls.mode == "not utf-8":
            send(self, 200, b'{"text": "caf\xe9"}')
        elif cls.mode == "redirect":
            send(self, 302, b"", headers={"Location": "/v1/elsewhere"})
        elif cls.mode == "proxy error":
            page = b"<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\x1b[2J upstream gone</body>\r\n</html>"
            send(self, 502, page, "text/html")
        elif cls.mode == "stalled":
            RELEASE.wait(10)
            with contextlib.suppress(OSError):  # asraudit has given up on this answer and closed the connection
                send_json(self, {"text": "too late"})

    def do_GET(self):  # noqa: N802 - where a followed redirect lands: not the model's answer to the audio
        send_json(self, {"text": "the answer to a GET"})

    def log_message(self, *args):
        pass


CASES = {
    "cut short": "the answer was cut short (13 bytes read, 27 more expected)",
    "closed": "the server closed the connection without an answer",
    "not http": "the answer is not HTTP (its first line: 'NOT HTTP AT ALL\\r\\n')",
    "not utf-8": "the answer is not UTF-8 text (byte 0xe9 at offset 13)",
    "redirect": ("HTTP 302 Found: the server redirects to {url}/v1/elsewhere, and asraudit does not follow redirects "
                 "(the request would be resent without its body): give the address it redirects to as the model's URL"),
    "proxy error": "HTTP 502 Bad Gateway: an HTML page titled '502 Bad Gateway'",
    "stalled": ("no answer within 0.5 s (the model's timeout option, 120 s unless set): a busy or stalled server, "
                "or a clip too long for this timeout"),
}


@pytest.mark.parametrize("mode", list(CASES))
def test_a_broken_answer_is_one_line_and_the_clip_before_it_stays(tmp_path, cli, mode):
    corpus, out = silent_clips_manifest(tmp_path), tmp_path / "out"
    _BreaksOnTheSecondClip.mode, _BreaksOnTheSecondClip.answered = mode, 0
    RELEASE.clear()
    try:
        with serving(_BreaksOnTheSecondClip) as url:
            args = ["transcribe", "--corpus", corpus, "--model", url, "--option", "concurrency=1",
                    "--option", "timeout=0.5", "--batch-size", "1", "--no-progress", "--out", out]
            ran = cli(*args)
            assert ran.code == 1 and "Traceback" not in ran.err
            assert ran.error_lines == [f"asraudit: error: {url}/v1/audio/transcriptions: " + CASES[mode].format(url=url)]
            assert len(ran.err.strip().splitlines()) == 1  # one line, whatever the server's page held
            with ResultStore(out / "asraudit.sqlite") as store:
                assert [r.text for r in store.results()] == ["answer 1"]  # nothing of the failed answer

            _BreaksOnTheSecondClip.mode = "ok"  # the server is mended: the rerun sends the one clip left
            RELEASE.set()
            assert cli(*args).code == 0
            assert _BreaksOnTheSecondClip.answered == 2
            with ResultStore(out / "asraudit.sqlite") as store:
                assert sorted(r.text for r in store.results()) == ["answer 1", "answer 2"]
    finally:
        RELEASE.set()


class _Fails(BaseHTTPRequestHandler):
    def do_POST(self):  # noqa: N802 (the handler's protocol)
        self.rfile.read(int(self.headers["Content-Length"]))
        send(self, 500, b"CUDA out of memory", "text/plain")

    def log_message(self, *args):
        pass


@pytest.mark.slow
def test_under_the_ray_executor_the_servers_failure_and_a_bad_option_are_the_same_one_line(tmp_path, cli):
    """A ServiceError (or InputError) raised in a Ray actor reached the driver as a RayTaskError whose text is the
    actor's traceback, and that was what the CLI printed; an error in the actor's model load killed the actor
    (Ray restarted it once, and it failed again) and printed Ray's traceback too.  The executor now re-raises the
    error itself."""
    pytest.importorskip("ray")
    import ray

    if ray.is_initialized():
        pytest.skip("a Ray instance from another test is running")
    ray.init(num_cpus=1, include_dashboard=False, log_to_driver=False)  # one instance for both runs
    try:
        with serving(_Fails) as url:
            common = ["transcribe", "--corpus", silent_clips_manifest(tmp_path), "--model", url, "--executor", "ray", "--no-progress"]
            ran = cli(*common, "--out", tmp_path / "out")
            assert ran.code == 1 and "Traceback" not in ran.err
            assert ran.error_lines == [f"asraudit: error: {url}/v1/audio/transcriptions: HTTP 500 Internal Server "
                                       "Error: CUDA out of memory"]
            ran = cli(*common, "--option", "timeout=0", "--out", tmp_path / "out2")
            assert ran.code == 2 and "Traceback" not in ran.err
            assert ran.error_lines == [f"asraudit: error: model {url!r}: timeout=0 is not a number of seconds above 0 "
                                       "(the time to wait for each answer)"]
    finally:
        ray.shutdown()


class _Counts(BaseHTTPRequestHandler):
    requests = 0

    def do_POST(self):  # noqa: N802 (the handler's protocol)
        self.rfile.read(int(self.headers["Content-Length"]))
        type(self).requests += 1
        send_json(self, {"text": "answer"})

    def log_message(self, *args):
        pass


OPTIONS = {
    "timeout=0": "timeout=0 is not a number of seconds above 0 (the time to wait for each answer)",
    "timeout=-1": "timeout=-1 is not a number of seconds above 0 (the time to wait for each answer)",
    "timeout=abc": "timeout='abc' is not a number of seconds above 0 (the time to wait for each answer)",
    "concurrency=0": "concurrency=0 is not a whole number of at least 1 (requests in flight)",
    "concurrency=1.5": "concurrency=1.5 is not a whole number of at least 1 (requests in flight)",
    "concurrency=four": "concurrency='four' is not a whole number of at least 1 (requests in flight)",
    "max_tokens=0": "max_tokens=0 is not a whole number of at least 1 (the most tokens of a transcript through chat)",
}


@pytest.mark.parametrize("option", list(OPTIONS))
def test_the_timeout_and_counts_of_an_http_model_are_checked_before_any_request(tmp_path, cli, option):
    """``timeout=0`` made the socket non-blocking (``cannot reach the server ([Errno 115] Operation now in progress)``),
    ``timeout=-1`` and ``timeout=abc`` were tracebacks at the first request, ``concurrency=abc`` and
    ``max_tokens=abc`` tracebacks, ``concurrency=0`` and ``1.5`` silently one request at a time, ``max_tokens=0``
    taken as it came."""
    _Counts.requests = 0
    with serving(_Counts) as url:
        ran = cli("transcribe", "--corpus", silent_clips_manifest(tmp_path), "--model", url, "--option", option,
                  "--option", "scoring=vllm-prompt-logprobs", "--no-progress", "--out", tmp_path / "out")
    assert ran.code == 2 and "Traceback" not in ran.err
    assert ran.error_lines == [f"asraudit: error: model {url!r}: {OPTIONS[option]}"]
    assert _Counts.requests == 0 and not (tmp_path / "out").exists()
