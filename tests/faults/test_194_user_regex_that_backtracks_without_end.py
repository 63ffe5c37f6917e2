"""Case 194: a regular expression of a user's that backtracks without end.

A convention family's pattern (``conventions --families``, ``[conventions] families``) or a translation
lexicon's (``translate --lexicon``, ``[translation] lexicon``) whose repeated group has alternatives that can
match the same characters, ``(a|aa)+c``, tries every way of splitting a run of ``a`` before it gives up: about
10^12 ways for 58 of them. ``asraudit conventions`` over a reference holding such a run never ended (killed after
60 s at 100% of a core, no output), and a family or lexicon example holding one hung the file's loading. Every
search with a user's pattern now has a time limit (``probes.user_regex``: 2 s and 10 µs per character, far over
the 0.3 s the built-in catalogues take on a 1-MB text), past which the run stops with one line naming the file,
the family or span, the pattern and the text.

Each run is a child process, so that the code before the fix fails the test (its guard kills the child) rather
than hanging the suite.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

from conftest import PROJECT_ROOT, asraudit_subprocess

EVIL = "(a|aa)+c"
RUN = "a" * 58 + "b"
GUARD_S = 300  # the child answers within the time limit; only a search that never ends reaches this
REASON = ("it backtracks without end (a repeated group whose alternatives can match the same characters, as "
          "(a|aa)+): rewrite it so that each character can be matched one way only")


def _families(tmp_path, **extra) -> object:
    family = {"name": "evil", "class": "spelling", "arms": ["x", "y"], "patterns": [[EVIL, "Mister"]], **extra}
    path = tmp_path / "fam.json"
    path.write_text(json.dumps({"family": [family]}), encoding="utf-8")
    return path


def _python(code: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(PROJECT_ROOT / "src") + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=GUARD_S)


def test_conventions_over_a_text_the_pattern_cannot_finish_stops_with_one_line(tmp_path):
    families = _families(tmp_path)
    preds = tmp_path / "m.jsonl"
    reference = f"Mr Smith {RUN} home"
    preds.write_text(json.dumps({"audio_filepath": "c0", "text": reference,
                                 "pred_text": "Mister Smith went home"}) + "\n", encoding="utf-8")
    proc = asraudit_subprocess("conventions", "--preds", preds, "--families", families, cwd=tmp_path)
    try:
        out, err = proc.communicate(timeout=GUARD_S)
    finally:
        if proc.poll() is None:  # a search that never ends: stop the child, not only the wait
            proc.kill()
            proc.communicate()
    errors = [line for line in err.splitlines() if line.startswith("asraudit: error:")]
    assert proc.returncode == 2 and len(errors) == 1, err
    assert errors[0] == (f"asraudit: error: fam.json: family 'evil': regular expression '{EVIL}' did not finish "
                         f"searching a text of {len(reference)} characters ('{reference[:57]}...') in 2 s: {REASON}")


def test_a_family_example_the_pattern_cannot_finish_is_refused_when_the_file_is_read(tmp_path):
    families = _families(tmp_path, no_match=[RUN])
    ran = _python("from asraudit.probes.families import load_catalogue\nfrom asraudit.errors import InputError\n"
                  f"try:\n    load_catalogue({str(families)!r})\nexcept InputError as exc:\n    print(exc)\n")
    assert ran.stdout.strip() == (f"{families}: family 'evil': regular expression '{EVIL}' did not finish searching "
                                  f"a text of {len(RUN)} characters ({RUN!r}) in 2 s: {REASON}")


def test_a_lexicon_pattern_that_cannot_finish_its_example_is_refused_when_read(tmp_path):
    lexicon = tmp_path / "lex.toml"
    lexicon.write_text(f'target = "es"\n[[span]]\nen = "thank you"\npatterns = ["gracias", "{EVIL}"]\n'
                       f'match = ["muchas gracias"]\nno_match = ["{RUN}"]\n', encoding="utf-8")
    ran = _python("from asraudit.probes.translation_lexicon import load_lexicon\nfrom asraudit.errors import "
                  f"InputError\ntry:\n    load_lexicon({str(lexicon)!r})\nexcept InputError as exc:\n    print(exc)\n")
    assert ran.stdout.strip() == (f"{lexicon}: span 'thank you': regular expression '{EVIL}' did not finish "
                                  f"searching a text of {len(RUN)} characters ({RUN!r}) in 2 s: {REASON}")


def test_sound_patterns_still_find_their_renderings(tmp_path):
    from asraudit.probes.families import load_catalogue

    family = load_catalogue(str(_families(tmp_path, match=["Mister Smith", "aac"]))).family("evil")
    assert [hit[:3] for hit in family.find("aac and Mister")] == [(0, 3, 0), (8, 14, 1)]


def test_audit_check_finds_it_on_the_references_before_any_model_runs(tmp_path, cli):
    """In an audit the conventions stage scans after every model has run; ``--check`` scans the references with
    a family file first (in this process: the code before the fix passed ``--check`` without scanning)."""
    import numpy as np
    import soundfile as sf

    sf.write(tmp_path / "c0.wav", np.zeros(16_000, dtype=np.float32), 16_000)
    (tmp_path / "m.jsonl").write_text(json.dumps({"audio_filepath": "c0.wav", "text": RUN}) + "\n", encoding="utf-8")
    families = _families(tmp_path)
    spec = tmp_path / "audit.toml"
    spec.write_text('[corpus]\nmanifest = "m.jsonl"\n[[model]]\nspec = "whisper-base"\n'
                    '[conventions]\nlanguage = "fam.json"\n', encoding="utf-8")
    ran = cli("audit", spec, "--check")
    assert (ran.code, ran.error_lines) == (2, [
        f"asraudit: error: {families}: family 'evil': regular expression '{EVIL}' did not finish searching a text "
        f"of {len(RUN)} characters ({RUN!r}) in 2 s: {REASON}"])
