"""Case 287: an audit rerun into an ``out`` an earlier audit filled, stopped in its first stage (transcription).

A stop in a stage writes the outputs of the stages done (case 110), so that a
folder never holds two runs' outputs side by side.  In the first stage no
stage is done: the stopped rerun replaced the earlier audit's summary.json and
report.html with empty ones (no models) and removed its
``tables/clips.parquet``, finished work lost for nothing new.  Here a model
added to the spec is served by a server that fails (exit 1), and the rerun is
stopped by Ctrl-C in that stage (exit 130).  Now a stop in the first stage
writes nothing: the earlier outputs stay byte for byte, and a rerun that
finishes writes its own.
"""

from __future__ import annotations

import sys
from http.server import BaseHTTPRequestHandler
from pathlib import Path

import asraudit.audit.text_stages as text_stages

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from http_stub import send, send_json, serving  # noqa: E402
from conftest import silent_clips_manifest  # noqa: E402


class _Answers(BaseHTTPRequestHandler):
    """Answers ``clip`` on every path but ``/down``, which is a server error (HTTP 500)."""

    def do_POST(self):  # noqa: N802 (the handler's protocol)
        self.rfile.read(int(self.headers["Content-Length"]))
        if self.path.startswith("/down"):
            send(self, 500, b'{"error": "out of memory"}')
        else:
            send_json(self, {"text": "clip"})

    def log_message(self, *args):
        pass


def _spec(folder: Path, url: str, *extra: str) -> Path:
    models = "".join(f'[[model]]\nname = "{name}"\nspec = "{url}/{name}"\npanel = true\n\n'
                     for name in ("a", "b", "c", *extra))
    spec = folder / f"audit{len(extra)}.toml"
    spec.write_text(f'name = "rerun"\nout = "out"\nbootstrap = 20\n[corpus]\nmanifest = "corpus.jsonl"\n\n{models}'
                    '[refdis]\nmajority = 0.66\nmin_panel = 2\n', encoding="utf-8")
    return spec


def _outputs(out: Path) -> dict[str, bytes]:
    return {str(p.relative_to(out)): p.read_bytes() for p in out.rglob("*") if p.is_file() and p.suffix != ".sqlite"}


def test_a_stop_in_the_first_stage_leaves_the_earlier_outputs(tmp_path, cli, monkeypatch):
    monkeypatch.chdir(tmp_path)
    silent_clips_manifest(tmp_path)
    out = tmp_path / "out"
    with serving(_Answers) as url:
        ran = cli("audit", _spec(tmp_path, url), "--no-progress")
        assert ran.code == 0, ran.err
        before = _outputs(out)
        assert {"summary.json", "report.html", "tables/clips.parquet"} <= set(before)

        ran = cli("audit", _spec(tmp_path, url, "down"), "--no-progress")  # a model added; its server fails
        assert ran.code == 1
        assert ran.error_lines[0].startswith("asraudit: error: audit stage 'transcribe' stopped (results so far are "
                                             "in out): ")
        assert _outputs(out) == before

        def interrupted(*a, **kw):
            raise KeyboardInterrupt

        with monkeypatch.context() as patched:
            patched.setattr(text_stages, "transcribe", interrupted)
            ran = cli("audit", _spec(tmp_path, url, "d"), "--no-progress")  # Ctrl-C in transcription
        assert ran.code == 130
        assert _outputs(out) == before
        assert not list(out.rglob("*.tmp"))

        ran = cli("audit", _spec(tmp_path, url, "d"), "--no-progress")  # the rerun that finishes writes its own
        assert ran.code == 0, ran.err
        assert _outputs(out)["summary.json"] != before["summary.json"]
        assert b'"d"' in _outputs(out)["summary.json"]
