"""Case 48: an HTTP model server that cannot be reached, or that starts failing in the middle of a run.

``asraudit transcribe --model http://HOST:PORT`` with nothing listening
there, or a server that answered some clips and then returned HTTP 500,
ended in a ``RuntimeError`` traceback (its last line was clear, the rest was
asraudit's call stack).  Now it is one line, exit 1 (not bad input: the
server), and the clips transcribed before the failure are in the store, so
the rerun once the server is back sends only the rest.
"""

from __future__ import annotations

import sys
from http.server import BaseHTTPRequestHandler
from pathlib import Path

from asraudit.run.store import ResultStore

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from http_stub import send_json, serving  # noqa: E402
from conftest import silent_clips_manifest  # noqa: E402


class _FailsAfterTwo(BaseHTTPRequestHandler):
    """Answers the first two requests, then HTTP 500 (a server that runs out of memory mid-run)."""

    answered = 0
    failing = True

    def do_POST(self):  # noqa: N802 (the handler's protocol)
        self.rfile.read(int(self.headers["Content-Length"]))
        cls = type(self)
        if cls.failing and cls.answered >= 2:
            reply = b"CUDA out of memory"
            self.send_response(500)
            self.send_header("Content-Length", str(len(reply)))
            self.end_headers()
            self.wfile.write(reply)
            return
        cls.answered += 1
        send_json(self, {"text": f"answer {cls.answered}"})

    def log_message(self, *args):
        pass


def test_an_unreachable_server_is_one_line(tmp_path, cli):
    corpus = silent_clips_manifest(tmp_path, 1)
    ran = cli("transcribe", "--corpus", corpus, "--model", "http://127.0.0.1:9", "--option", "timeout=5",
              "--out", tmp_path / "out")
    assert ran.code == 1 and "Traceback" not in ran.err
    assert ran.error_lines == ["asraudit: error: http://127.0.0.1:9/v1/audio/transcriptions: cannot reach the server "
                               "([Errno 111] Connection refused)"]


def test_a_server_failing_mid_run_is_one_line_and_the_clips_before_it_stay(tmp_path, cli):
    corpus = silent_clips_manifest(tmp_path, 5)
    out = tmp_path / "out"
    with serving(_FailsAfterTwo) as url:
        args = ["transcribe", "--corpus", corpus, "--model", url, "--option", "concurrency=1", "--batch-size", "1",
                "--out", out]
        ran = cli(*args)
        assert ran.code == 1 and "Traceback" not in ran.err
        assert ran.error_lines == [f"asraudit: error: {url}/v1/audio/transcriptions: HTTP 500 Internal Server Error: "
                                   "CUDA out of memory"]
        with ResultStore(out / "asraudit.sqlite") as store:
            assert sorted(r.text for r in store.results()) == ["answer 1", "answer 2"]
        _FailsAfterTwo.failing = False  # the server is back
        assert cli(*args).code == 0
    assert _FailsAfterTwo.answered == 5  # the rerun sent only the three clips not yet stored
