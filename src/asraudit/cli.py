"""The ``asraudit`` command line.

Each subcommand lives in its own module under ``asraudit.commands`` and
exposes ``register(subparsers)``; this file only collects them, so adding a
command never touches another command's code.  Errors about the user's input
(``InputError``) are printed as one clear line, never as a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import os
import re
import signal
import sys
import threading

from asraudit.version import __version__
from asraudit.errors import InputError, ServiceError
from asraudit.terminal_text import one_line

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
    "translate",
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


class _Version(argparse.Action):
    """``--version``: the version, and whether the compiled fast paths are built (``asraudit.compiled``)."""

    def __init__(self, option_strings, dest, **kwargs):
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, **kwargs)

    def __call__(self, parser, namespace, values, option_string=None):
        from asraudit.compiled import describe

        sys.stdout.write(f"asraudit {__version__}\n{describe()}\n")
        parser.exit()


def build_parser(argv: list[str] | None = None) -> argparse.ArgumentParser:
    """The parser with every command, or, when ``argv`` starts with a command's name, with that one only:
    importing every command's libraries (pyarrow, jsonschema, the model backends) would cost a run of
    ``asraudit refdis`` on a few thousand rows a second of start-up; the listing and errors of
    ``asraudit --help`` or an unknown command still see them all."""
    parser = argparse.ArgumentParser(
        prog="asraudit",
        description="Audit ASR models for benchmark optimization.",
    )
    parser.add_argument("--version", action=_Version, help="show the version and which compiled fast paths are built")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    names = (argv[0],) if argv and argv[0] in COMMAND_MODULES else COMMAND_MODULES
    for name in names:
        importlib.import_module(f"asraudit.commands.{name}").register(sub)
    _one_value_each(parser)
    _negative_numbers_are_values(parser)
    return parser


# What argparse reads as a negative number (a value, not an option) for every parser: Python's float spellings,
# exponent, trailing point and digit groups included, infinities and NaN.  argparse's own (``-1``, ``-.5``) let
# ``--alpha -1e5`` or ``--alpha -1.`` through as an unknown option, refused as "expected one argument" before the
# option's type could read it, and ``--alpha -inf`` the same, while ``--alpha=-inf`` read the value and was refused
# by what it is.  No option of the command line is spelled like a number, so none is shadowed.
NEGATIVE_NUMBER = re.compile(r"^-(?:(?:\d[\d_]*(?:\.[\d_]*)?|\.\d[\d_]*)(?:[eE][+-]?\d[\d_]*)?|inf(?:inity)?|nan)$",
                             re.IGNORECASE)


def _negative_numbers_are_values(parser: argparse.ArgumentParser) -> None:
    """Every parser (commands and their subcommands) reads ``NEGATIVE_NUMBER`` as a value."""
    parser._negative_number_matcher = NEGATIVE_NUMBER
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in set(action.choices.values()):
                _negative_numbers_are_values(sub)


class _OneValue(argparse._StoreAction):
    """An option that takes one value, refused when given again with another value (case 306): argparse keeps the
    last, without a word, so ``transcribe --out a --out b`` wrote into b, ``wer --normalizer none --normalizer
    whisper`` scored with whisper, ``refdis --seed 1 --seed 2`` drew with 2.  The same value again (an alias plus
    the typed option) goes through; flags (``--no-progress``) and repeatable options (``--model``, ``--option``)
    are other actions and are left alone."""

    def __call__(self, parser, namespace, values, option_string=None):
        seen = self.__dict__.setdefault("_given", [])  # the namespaces this option was given in, by identity
        if any(ns is namespace for ns in seen):
            before = getattr(namespace, self.dest, None)
            if before != values:
                raise argparse.ArgumentError(
                    self, f"given twice ({str(before)!r} and {str(values)!r}); a run takes one value, so the "
                    "first would be dropped without a word: give it once")
        else:
            seen.append(namespace)
        setattr(namespace, self.dest, values)


def _one_value_each(parser: argparse.ArgumentParser) -> None:
    """Every option of every command that stores one value (``--out``, ``--json``, ``--store``, ``--seed``,
    ``--bootstrap``, ``--normalizer``...) becomes a ``_OneValue``: the one place the rule is applied."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in set(action.choices.values()):
                _one_value_each(sub)
        elif type(action) is argparse._StoreAction and action.option_strings and action.nargs is None:
            action.__class__ = _OneValue


class Terminated(KeyboardInterrupt):
    """SIGTERM (what a batch scheduler or ``kill`` sends) or SIGHUP (the terminal closed), raised where the run is,
    as Ctrl-C is: without it Python dies at once, so no ``finally`` runs; the store's claims stayed behind (another
    host's run sharing the store waited 10 minutes for them) and a file being written left its temporary file."""

    def __init__(self, signum: int):
        super().__init__(signum)
        self.signum = signum


_HANDLER_PID: list[int] = []  # the process that installed the handler


def _raise_terminated(signum, frame):
    if _HANDLER_PID and os.getpid() != _HANDLER_PID[-1]:
        # A worker forked from the command (a process pool) inherits the handler; a pool stops its workers with
        # SIGTERM, which must end them as it always did, not raise inside their task loop.
        signal.signal(signum, signal.SIG_DFL)
        os.kill(os.getpid(), signum)
        return
    raise Terminated(signum)


def _handle_termination() -> dict:
    """Raise ``Terminated`` on SIGTERM and SIGHUP while the command runs; a signal its caller set a handler for or
    ignores (``nohup``) keeps it.  Returns the handlers to put back."""
    if threading.current_thread() is not threading.main_thread():
        return {}
    previous = {}
    _HANDLER_PID[:] = [os.getpid()]
    for name in ("SIGTERM", "SIGHUP"):
        signum = getattr(signal, name, None)
        if signum is not None and signal.getsignal(signum) == signal.SIG_DFL:
            previous[signum] = signal.signal(signum, _raise_terminated)
    return previous


def main(argv: list[str] | None = None) -> int:
    previous = _handle_termination()
    try:
        return _main(argv)
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


def _main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser(argv)
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return int(args.func(args) or 0)
    except InputError as exc:
        print(f"asraudit: error: {one_line(str(exc))}", file=sys.stderr)
        return 2
    except ServiceError as exc:  # a model server down or answering oddly: one line; finished results are stored
        print(f"asraudit: error: {one_line(str(exc))}", file=sys.stderr)
        return 1
    except BrokenPipeError:
        return 0
    except Terminated as exc:
        print(f"asraudit: stopped by {signal.Signals(exc.signum).name}; a command that runs models keeps every "
              "result it stored, and running it again resumes from them", file=sys.stderr)
        return 128 + exc.signum
    except KeyboardInterrupt:
        # Ctrl-C is the user's own stop, not a fault: one line instead of the traceback of wherever the model was
        # (40 lines into CTranslate2).  What the store holds was committed call by call and stays.
        print("asraudit: interrupted; a command that runs models keeps every result it stored, and running it "
              "again resumes from them", file=sys.stderr)
        return 130
    except OSError as exc:
        # A filesystem failure the up-front checks could not foresee (disk full, a folder removed
        # mid-run): one line naming the path, like bad input, rather than a traceback.
        if exc.filename is None:
            raise
        print(f"asraudit: error: {one_line(f'{exc.filename}: {exc.strerror or exc}')}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
