"""Which of asraudit's optional compiled fast paths this installation has.

The hot loops of the normalizers and of the reference-error miner have C
versions, built by ``pip install`` where a C compiler is found
(``optional = true`` in pyproject.toml).  Without a compiler the install
still succeeds and the same pure-Python code runs, with the same results
and slower; ``asraudit --version`` says which, so a slow leaderboard run can
be told apart from a broken one.
"""

from __future__ import annotations

import importlib

# module -> what it speeds up
FAST_PATHS = {
    "asraudit.text._basic_fast": "basic normalizer",
    "asraudit.text._whisper_fast": "Whisper English normalizer",
    "asraudit.probes._refdis_fast": "reference-error miner",
}


def compiled_paths() -> dict[str, bool]:
    """What each fast path speeds up -> whether its compiled module imports here."""
    out = {}
    for module, what in FAST_PATHS.items():
        try:
            importlib.import_module(module)
            out[what] = True
        except ImportError:
            out[what] = False
    return out


def describe() -> str:
    """One line for ``asraudit --version``."""
    paths = compiled_paths()
    built = [what for what, ok in paths.items() if ok]
    if len(built) == len(paths):
        return "compiled fast paths: all built (" + ", ".join(built) + ")"
    missing = [what for what, ok in paths.items() if not ok]
    return (f"compiled fast paths: {len(built)} of {len(paths)} built; pure Python (same results, slower) for "
            + ", ".join(missing) + " (reinstall with a C compiler to build them)")
