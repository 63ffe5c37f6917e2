"""The edit browser's audio and review loop in a real browser: headless Debian ``chromium``, driven over DevTools.

``--dump-dom`` (tests/test_report_chromium.py) shows a page after its script
ran but cannot click, reload or read the clock of an audio element; this
module drives Chromium through the DevTools protocol over a pipe
(``--remote-debugging-pipe``: commands on fd 3, replies on fd 4, each a JSON
message ended by a NUL byte), so no websocket library and no port is needed.
It checks what a reviewer relies on: every clip decodes, a span button plays
from just before the span past its start, marks survive a reload, and the
exported CSV is what ``asraudit refdis --review`` reads.

The networking flags keep an offline Chromium from hanging (see the other
module); ``--autoplay-policy`` lets a script-driven click play audio, and
there is no sound device (playback still advances the clock).  Skips when
``chromium`` is not installed (``.ci/run`` installs it).
"""

from __future__ import annotations

import csv
import io
import json
import os
import select
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from asraudit.cli import main
from asraudit.metrics.stats import wilson_interval
from asraudit.probes.review import SHEET_COLUMNS
from asraudit.report.html import render_report
from asraudit.report.listen import prepare_audio
from asraudit.report.schema import from_json

from test_report_chromium import CHROMIUM_FLAGS
from test_report_listen import tone, with_times
from test_report_html import EVIL, realistic_summary

TIMEOUT_S = 60
SPAN = (1.2, 1.5)
NOTE = 'said "madam", then, a cough; ' + EVIL


class DevTools:
    """One headless Chromium and its first page, spoken to over the DevTools pipe."""

    def __init__(self, profile: Path):
        cmd_read, self._cmd = os.pipe()
        self._res, res_write = os.pipe()

        def plumb():  # in the child: the protocol's fixed descriptors
            a, b = os.dup(cmd_read), os.dup(res_write)
            os.dup2(a, 3)
            os.dup2(b, 4)

        self.proc = subprocess.Popen(
            [shutil.which("chromium"), *CHROMIUM_FLAGS, "--remote-debugging-pipe",
             "--autoplay-policy=no-user-gesture-required", f"--user-data-dir={profile}", "about:blank"],
            preexec_fn=plumb, close_fds=False, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            start_new_session=True)
        os.close(cmd_read)
        os.close(res_write)
        self._buffer, self._id = b"", 0
        pages = [t for t in self.send("Target.getTargets")["targetInfos"] if t["type"] == "page"]
        self.session = self.send("Target.attachToTarget", targetId=pages[0]["targetId"], flatten=True)["sessionId"]
        self.send("Page.enable", session=True)

    def send(self, method: str, session: bool = False, **params) -> dict:
        self._id += 1
        message = {"id": self._id, "method": method, "params": params}
        if session:
            message["sessionId"] = self.session
        os.write(self._cmd, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + TIMEOUT_S
        while True:
            while b"\0" not in self._buffer:
                if not select.select([self._res], [], [], max(0.0, deadline - time.monotonic()))[0]:
                    pytest.fail(f"chromium did not answer {method} within {TIMEOUT_S} s")
                chunk = os.read(self._res, 1 << 16)
                if not chunk:
                    pytest.fail(f"chromium closed the DevTools pipe during {method}")
                self._buffer += chunk
            raw, self._buffer = self._buffer.split(b"\0", 1)
            reply = json.loads(raw)
            if reply.get("id") == self._id:
                assert "error" not in reply, f"{method}: {reply['error']}"
                return reply["result"]

    def evaluate(self, expression: str):
        """The value of a JavaScript expression in the page (promises awaited)."""
        result = self.send("Runtime.evaluate", session=True, expression=expression, awaitPromise=True,
                           returnByValue=True)
        assert "exceptionDetails" not in result, result["exceptionDetails"]
        return result["result"].get("value")

    def wait_for(self, expression: str, timeout: float = 20.0):
        """Poll until the expression is truthy; its last value."""
        deadline = time.monotonic() + timeout
        while True:
            value = self.evaluate(expression)
            if value or time.monotonic() > deadline:
                return value
            time.sleep(0.1)

    def open(self, url: str) -> None:
        """A fresh load of ``url`` (through a blank page: a change of fragment alone would not rerun the script)."""
        self.send("Page.navigate", session=True, url="about:blank")
        assert self.wait_for("location.href === 'about:blank' && document.readyState === 'complete'")
        self.send("Page.navigate", session=True, url=url)
        assert self.wait_for("document.readyState === 'complete' && document.body.dataset.ready === '1'"), url

    def reload(self) -> None:
        self.evaluate("document.body.dataset.ready = ''")
        self.send("Page.reload", session=True)
        assert self.wait_for("document.readyState === 'complete' && document.body.dataset.ready === '1'")

    def close(self) -> None:
        for fd in (self._cmd, self._res):
            os.close(fd)
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, 9)
        self.proc.wait()


def page_with_audio(folder: Path, title: str = "") -> Path:
    summary = with_times(realistic_summary(n_edits=6), *SPAN)
    if title:
        summary["title"] = title
    clips = list(dict.fromkeys(e["clip"] for e in summary["edits"]))
    audio = prepare_audio({c: (lambda k=k: tone(3.0, 200.0 + 40 * k)) for k, c in enumerate(clips)}, folder)
    page = folder / "report.html"
    page.write_text(render_report(from_json(summary), audio), encoding="utf-8")
    return page


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    if shutil.which("chromium") is None:
        pytest.skip("Debian chromium is not installed (apt-get install chromium)")
    tmp = tmp_path_factory.mktemp("listen-chromium")
    tools = DevTools(tmp / "profile")
    try:
        yield tools, tmp
    finally:
        tools.close()


@pytest.fixture(scope="module")
def report_page(browser):
    tools, tmp = browser
    folder = tmp / "first"
    folder.mkdir()
    page = page_with_audio(folder)
    tools.open(page.as_uri())
    assert not tools.evaluate("document.body.dataset.errors || ''")
    return page


def test_every_clip_decodes_in_the_browser(browser, report_page):
    tools, _ = browser
    states = tools.wait_for("(function () { var a = Array.from(document.querySelectorAll('audio'));"
                            " return a.every(function (x) { return x.readyState >= 1; }) &&"
                            " a.map(function (x) { return [x.readyState, x.duration]; }); })()")
    assert states and len(states) == 6
    for ready, duration in states:
        assert ready >= 1 and abs(duration - 3.0) < 0.1   # Opus frames: at most 20 ms of padding


def test_the_span_button_plays_from_just_before_the_span_past_its_start_and_stops_after_it(browser, report_page):
    tools, _ = browser
    tools.evaluate("window.__audio = document.getElementById("
                   "document.querySelector('#edits .edit .play').getAttribute('data-audio'));"
                   "document.querySelector('#edits .edit .play-span').click(); true")
    started = tools.wait_for("window.__audio.currentTime > 0 && window.__audio.currentTime", timeout=5)
    assert started is not None and started >= SPAN[0] - 0.5 - 0.05   # it began at start − 0.5 s, not at 0
    assert tools.wait_for(f"window.__audio.currentTime > {SPAN[0]}", timeout=10)
    # It stops on its own after end + 0.5 s (the clock is checked every frame, so a little past is allowed).
    assert tools.wait_for("window.__audio.paused", timeout=10)
    assert SPAN[1] + 0.5 - 0.05 <= tools.evaluate("window.__audio.currentTime") < 3.0
    playhead = float(tools.evaluate("document.querySelector('#edits .edit svg.wave .playhead').getAttribute('x1')"))
    assert playhead > SPAN[0] / 3.0 * 240


def _mark(tools: DevTools, index: int, judgement: str, note: str = "") -> None:
    tools.evaluate(f"(function () {{ var block = document.querySelectorAll('#edits .edit')[{index}]"
                   f".querySelector('.review'); block.querySelector('input[value={judgement}]').click();"
                   f" var n = block.querySelector('.review-note'); n.value = {json.dumps(note)};"
                   " n.dispatchEvent(new Event('input', {bubbles: true})); return true; })()")


def test_marks_survive_a_reload_and_export_as_the_sheet_refdis_reads(browser, report_page, tmp_path, capsys):
    tools, _ = browser
    _mark(tools, 0, "yes", NOTE)
    _mark(tools, 1, "no")
    _mark(tools, 2, "unsure", "too quiet")
    tools.reload()
    restored = tools.evaluate(
        "Array.from(document.querySelectorAll('#edits .edit')).slice(0, 4).map(function (e) {"
        " var c = e.querySelector('.review input:checked'); return [c ? c.value : '',"
        " e.querySelector('.review-note').value]; })")
    assert restored == [["yes", NOTE], ["no", ""], ["unsure", "too quiet"], ["", ""]]
    assert tools.evaluate("document.getElementById('review-count').textContent") == "3"
    tools.evaluate("document.getElementById('review-export').click(); true")
    text = tools.evaluate("document.getElementById('review-csv').value")
    link = tools.evaluate("document.getElementById('review-download').getAttribute('href')")
    assert link.startswith("data:text/csv")
    rows = list(csv.DictReader(io.StringIO(text, newline="")))
    assert list(rows[0]) == list(SHEET_COLUMNS) and len(rows) == 6
    assert [r["judgement"] for r in rows] == ["yes", "no", "unsure", "", "", ""]
    assert rows[0]["note"] == NOTE and rows[3]["clip_id"] == EVIL
    sheet = tmp_path / "review.csv"
    sheet.write_text(text, encoding="utf-8", newline="")
    capsys.readouterr()
    assert main(["refdis", "--review", str(sheet)]) == 0
    printed = capsys.readouterr().out
    # 1 real of 2 judged: precision 50% with its Wilson interval; the unclear and the unmarked are skipped.
    low, high = wilson_interval(1, 2)
    assert f"2 judged (4 skipped), miner precision 50.00% [{100 * low:.2f}, {100 * high:.2f}] (Wilson 95%)" in printed


def test_marks_belong_to_their_report(browser, report_page):
    tools, tmp = browser
    # Its own marks (the ones the reload test makes, so either order leaves the same three): the test workers
    # split a module's tests between them, each with its own browser, so marks made by another test may be
    # in another browser.
    tools.open(report_page.as_uri())
    _mark(tools, 0, "yes", NOTE)
    _mark(tools, 1, "no")
    _mark(tools, 2, "unsure", "too quiet")
    assert tools.evaluate("document.getElementById('review-count').textContent") == "3"
    other = tmp / "second"
    other.mkdir()
    tools.open(page_with_audio(other, title="another audit").as_uri())
    assert tools.evaluate("document.querySelectorAll('#edits .review input:checked').length") == 0
    assert tools.evaluate("document.getElementById('review-count').textContent") == "0"
    tools.open(report_page.as_uri())
    assert tools.evaluate("document.getElementById('review-count').textContent") == "3"


def test_only_what_went_wrong_hides_agreeing_edits_and_orders_by_disagreement(browser, report_page):
    tools, _ = browser
    tools.open(report_page.as_uri() + "#wrong=1&order=disagree")
    shown = tools.evaluate("Array.from(document.querySelectorAll('#edits .edit')).filter(function (e) {"
                           " return !e.hidden; }).map(function (e) { return [Number(e.dataset.disagree),"
                           " Number(e.dataset.rank)]; })")
    assert shown and all(d > 0 for d, _ in shown)
    assert [r for _, r in shown] == sorted(r for _, r in shown)
    assert [d for d, _ in shown] == sorted((d for d, _ in shown), reverse=True)
