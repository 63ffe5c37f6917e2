"""Case 164: what asraudit prints on the terminal quotes the user's strings with their control characters.

Error lines escaped newlines and ESC (case 36) and tables did (case 95), but warnings and status lines were each
worded by their own ``print``: a model name from a prediction file's name (``m\\x1b[2J.jsonl``), a plug-in's own
exception text, a replayed model's id reached the terminal as they were (``\\x1b[2J`` clears the screen, ``\\r``
draws over the start of the line).  The escaping rule itself left the bidirectional controls and invisible format
characters: a clip id with U+202E (right-to-left override) turned the rest of an error line around.  The
progress bar read its label (the corpus's file name) as rich markup: ``corpus [v2].jsonl`` lost ``[v2]``, and
``a[/]b.jsonl`` raised ``MarkupError``.  Now every warning goes through ``terminal_text.warn``, every status line
through ``note``, the progress bar takes its label as plain escaped text, and ``one_line`` escapes the format
characters too (but the joiners U+200C and U+200D, which scripts and emoji need).  Files keep every id as it was.
"""

from __future__ import annotations

import io
import json
import sys
import unicodedata

import pytest

from asraudit.models import registry
from asraudit.terminal_text import one_line

from conftest import one_clip_manifest, write_preds

HOSTILE = "\x1b[2J\r\u202e"
SHOWN = "\\x1b[2J\\r\\u202e"


def _raw_controls(text: str) -> list[str]:
    """The characters of ``text`` that a terminal would act on rather than show (tabs and line ends aside)."""
    return [c for c in text if c not in "\t\n" and (unicodedata.category(c) in ("Cc", "Cs")
                                                     or unicodedata.category(c) == "Cf" and c not in "\u200c\u200d")]


def test_an_error_line_escapes_a_bidirectional_override(tmp_path, cli):
    manifest = tmp_path / "m.jsonl"
    manifest.write_text(json.dumps({"audio_filepath": "cat\u202egnp.wav", "text": "x"}) + "\n", encoding="utf-8")
    ran = cli("transcribe", "--model", "pocketsphinx", "--corpus", manifest, "--out", tmp_path / "out", "--no-progress")
    assert ran.code == 2
    assert ran.err.splitlines() == [f"asraudit: error: {manifest}, row 1: audio file {tmp_path}/cat\\u202egnp.wav "
                                    "is missing"]


def test_a_warning_naming_a_model_from_a_file_name_is_escaped(tmp_path, cli):
    rows = [(f"k{i}", "the cat sat", "the cat sat") for i in range(6)]
    for name in (f"m{HOSTILE}", "n1", "n2"):
        write_preds(tmp_path / f"{name}.jsonl", rows)
    ran = cli("refdis", "--preds", tmp_path, "--panel", f"m{HOSTILE},n1,n2", "--models", f"m{HOSTILE}")
    assert ran.code == 0, ran.err
    warnings = [line for line in ran.err.splitlines() if line.startswith("asraudit: warning:")]
    assert warnings == [f"asraudit: warning: panel member(s) m{SHOWN} are also under test; each is scored "
                        "leave-one-out, by edits mined without it"], ran.err
    assert not _raw_controls(ran.err)


def test_a_plugins_exception_text_in_the_models_warning_is_escaped(monkeypatch, tmp_path, cli):
    for name, value in (("_registered", {}), ("_discovered", False), ("_broken", []), ("_owners", {}),
                        ("_third_party", set()), ("_built_in", set())):
        if hasattr(registry, name):
            monkeypatch.setattr(registry, name, value)
    site = tmp_path / "site"
    info = site / "noisy-0.1.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: noisy\nVersion: 0.1\n", encoding="utf-8")
    (info / "entry_points.txt").write_text("[asraudit.models]\nnoisy = plug_noisy:register\n", encoding="utf-8")
    (site / "plug_noisy.py").write_text("def register():\n    raise RuntimeError('licence\\x1b[2J\\rOK')\n",
                                        encoding="utf-8")
    monkeypatch.syspath_prepend(str(site))
    ran = cli("models")
    assert ran.code == 0
    assert ("asraudit: warning: plug-in 'noisy' (plug_noisy:register, package noisy) could not register its models "
            "(RuntimeError: licence\\x1b[2J OK): its models are not listed; every other model works") in ran.err
    assert not _raw_controls(ran.err)


def test_a_status_line_naming_a_replayed_model_is_escaped_and_the_file_keeps_the_id(tmp_path, cli):
    manifest = one_clip_manifest(tmp_path)
    preds = write_preds(tmp_path / f"p{HOSTILE}.jsonl", [("a.wav", "a tone", "a tone")])
    ran = cli("transcribe", "--model", f"replay:{preds}", "--corpus", manifest, "--out", tmp_path / "o",
              "--no-progress")
    assert ran.code == 0, ran.err
    assert f"asraudit: replay:p{SHOWN}: 1 job(s) run now, 0 already stored; RTFx -" in ran.err.splitlines()
    assert not _raw_controls(ran.err + ran.out)
    written = [json.loads(line) for p in (tmp_path / "o").glob("*.jsonl") for line in p.read_text().splitlines()]
    assert [r["pred_text"] for r in written] == ["a tone"]


@pytest.mark.parametrize("label", ["transcribe a[/]b.jsonl", "transcribe corpus [v2].jsonl",
                                   f"transcribe x{HOSTILE}.jsonl"])
def test_the_progress_bar_shows_its_label_as_plain_escaped_text(monkeypatch, label):
    class Terminal(io.StringIO):
        def isatty(self):
            return True

    monkeypatch.setattr(sys, "stderr", Terminal())
    from asraudit.run.progress import Progress

    bar = Progress(2, True, label)
    bar.advance(2, 1.0, 0.5)
    bar.close()
    assert one_line(label) in sys.stderr.getvalue()


def test_every_format_character_but_the_joiners_is_escaped():
    """The escaped ranges are written out (a scan of every code point at import would cost a CLI start); they must
    cover what the running Python calls a format character."""
    missed = [hex(c) for c in range(sys.maxunicode + 1)
              if unicodedata.category(chr(c)) in ("Cc", "Cf", "Cs", "Zl", "Zp") and chr(c) not in "\t\u200c\u200d"
              and one_line(chr(c)) == chr(c)]
    assert missed == []
    assert one_line("e\u0301 \u05d0 \u0645\u200c\u06cc \U0001F469\u200d\U0001F4BB") == \
        "e\u0301 \u05d0 \u0645\u200c\u06cc \U0001F469\u200d\U0001F4BB"  # marks, scripts and joiners as they are


def test_lines_beside_the_tables_that_name_a_model_are_escaped(tmp_path, cli):
    """The tables escaped a model's name (case 95), the lines around them did not: ``wer --show-alignments``'s
    ``== MODEL: N worst clips ==`` and ``refdis``'s ``panel: ...`` line."""
    rows = [(f"k{i}", "the cat sat", "the cat sat") for i in range(6)]
    for name in (f"m{HOSTILE}", "n1", "n2"):
        write_preds(tmp_path / f"{name}.jsonl", rows)
    shown = cli("wer", "--preds", tmp_path / f"m{HOSTILE}.jsonl", "--show-alignments", "1")
    assert shown.code == 0, shown.err
    assert f"== m{SHOWN}: 1 worst clips ==" in shown.out.splitlines()
    mined = cli("refdis", "--preds", tmp_path, "--panel", f"m{HOSTILE},n1,n2")
    assert mined.code == 0, mined.err
    assert any(line.startswith(f"panel: m{SHOWN}, n1, n2 (3)") for line in mined.out.splitlines()), mined.out
    assert not _raw_controls(shown.out + shown.err + mined.out + mined.err)
