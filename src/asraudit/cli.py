"""The ``asraudit`` command line.

Each subcommand lives in its own module under ``asraudit.commands`` and
exposes ``register(subparsers)``; this file only collects them, so adding a
command never touches another command's code.  Errors about the user's input
(``InputError``) are printed as one clear line, never as a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import sys

from asraudit.version import __version__
from asraudit.errors import InputError

# Modules under asraudit.commands, in the order `asraudit --help` lists them.
COMMAND_MODULES = (
    "wer",
    "preds",
    "refdis",
    "conventions",
    "models",
    "transcribe",
    "score",
    "mask",
    "lift",
    "battery",
    "whitebox",
    "steer",
    "patch",
    "demo",
    "calibrate",
    "audit",
    "report",
    "schema",
    "reference",
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="asraudit",
        description="Audit ASR models for benchmark optimization.",
    )
    parser.add_argument("--version", action="version", version=f"asraudit {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES:
        importlib.import_module(f"asraudit.commands.{name}").register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return int(args.func(args) or 0)
    except InputError as exc:
        print(f"asraudit: error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0
    except OSError as exc:
        # A filesystem failure the up-front checks could not foresee (disk full, a folder removed
        # mid-run): one line naming the path, like bad input, rather than a traceback.
        if exc.filename is None:
            raise
        print(f"asraudit: error: {exc.filename}: {exc.strerror or exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
