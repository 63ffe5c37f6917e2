"""Case 84: square brackets in a name or value shown in a terminal table.

On a terminal the tables are drawn by rich, which read every cell as its
markup: a prediction file ``whisper [beam5].jsonl`` was listed as model
``whisper``, a ``--group-field`` value ``[noise] s1`` (the tag style of many
conversational-speech references) as `` s1``, and a value holding a closing
tag (``a/[/b]``) stopped ``asraudit wer`` with ``rich.errors.MarkupError``, a
traceback, after every file had been scored.  Piped output was right; the
terminal's was not.  Every cell, header and title is now plain text.
"""

from __future__ import annotations

import io
import json
import os
import pty
import re
import subprocess
import sys

from asraudit.report.tables import render_table

from conftest import PROJECT_ROOT

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)")


def _in_a_terminal(*args, cwd) -> tuple[int, str]:
    """``python -m asraudit ARGS`` with its stdout and stderr on a pseudo-terminal; its exit code and output."""
    env = {**os.environ, "PYTHONPATH": str(PROJECT_ROOT / "src"), "COLUMNS": "200", "TERM": "xterm"}
    env.pop("NO_COLOR", None)
    leader, follower = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "asraudit", *map(str, args)], cwd=cwd, env=env,
                            stdin=subprocess.DEVNULL, stdout=follower, stderr=follower)
    os.close(follower)
    out = b""
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # the child closed the terminal
            break
        if not chunk:
            break
        out += chunk
    os.close(leader)
    return proc.wait(timeout=120), ANSI.sub("", out.decode("utf-8", "replace"))


def test_names_and_group_values_keep_their_brackets_on_a_terminal(tmp_path):
    preds = tmp_path / "p"
    preds.mkdir()
    speakers = ["[noise] s1", "a/[/b]", "[noise] s1"]
    for model in ("whisper [beam5]", "m1"):
        with (preds / f"{model}.jsonl").open("w", encoding="utf-8") as fh:
            for i, speaker in enumerate(speakers):
                fh.write(json.dumps({"audio_filepath": f"c{i}.wav", "text": "the cat sat", "speaker": speaker,
                                     "pred_text": "the cat sat" if model == "m1" else "the cat sat down"}) + "\n")
    code, out = _in_a_terminal("wer", "--preds", preds, "--group-field", "speaker", cwd=tmp_path)
    assert code == 0, out
    assert "Traceback" not in out and "MarkupError" not in out
    rows = [[c.strip() for c in line.strip("│ ").split("│")] for line in out.splitlines() if line.startswith("│")]
    assert ["whisper [beam5]", "33.33%"] == rows[1][:2]  # the first table: models by name (m1, then this one)
    groups = {(r[0], r[1]) for r in rows if len(r) == 7}
    assert groups == {(g, m) for g in ("[noise] s1", "a/[/b]") for m in ("m1", "whisper [beam5]")}


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_headers_and_titles_are_text_too():
    out = _Terminal()
    render_table(["[bold]field", "[/x]"], [["[red]v", "1"]], title="[link=http://example.invalid]t[/link]", file=out)
    text = ANSI.sub("", out.getvalue())
    assert "[bold]field" in text and "[/x]" in text and "[red]v" in text
    assert "[link=http://example.invalid]t[/link]" in "".join(text.split())  # the title wraps over the table
