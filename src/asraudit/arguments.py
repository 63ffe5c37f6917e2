"""Checks of the arguments a Python caller passes to the public functions, in a module without numpy.

The command line's parser only ever hands the library a list of strings or
an ``int``; a notebook hands it whatever it has: one string where a list of
names belongs (iterated, it is a list of characters), a dict (iterated, its
keys), ``None``, ``1.5`` or ``True`` for a count.  Those failed deep inside
(an ``AttributeError`` from ``str.split``, numpy's ``TypeError``) or, worse,
ran and returned a number for the wrong input.  Each check here names the
argument and says what it takes, as one line (:class:`InputError`); an audit
spec's tables are read through the same checks (``audit.spec_reader``), so a
knob says the same in a spec and in Python.
"""

from __future__ import annotations

import dataclasses
import math
import operator
import os
import re
import types
import typing
from collections.abc import Iterable, KeysView, Mapping, Set
from pathlib import Path
from typing import Any

from asraudit.errors import InputError


_DIGITS = re.compile(r"[\d_]+")
_THOUSANDS = re.compile(r"\d{1,3}(?:_\d{3})+")
STRAY_UNDERSCORE = "'_' groups digits by three (1_000), and here it does not"


def stray_underscore(text: str) -> bool:
    """Whether ``text`` holds an underscore that groups no thousands (``1_0``, ``10_00``, ``1__0``, ``0.0_2``).

    Python's ``int()`` and ``float()`` read an underscore between any two digits, so ``patch --positions 1_0`` (a
    typo for ``1,0``) patched position 10 and ``--bootstrap 1_0`` drew 10 resamples, without a word (case 336).
    The grouping Python's digit separators are for, by thousands (``10_000``, ``-1_000`` as case 328 reads it for
    ``--alpha``), still reads; any other underscore is refused as the typo it most likely is."""
    return any("_" in run and not _THOUSANDS.fullmatch(run) for run in _DIGITS.findall(text))


def _shown(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _frame(value: object) -> bool:
    """A data frame (pandas, polars): iterated, it gives its column names (pandas) or its columns, never its
    rows, so where a list goes it was read as its column labels (``corpus_wer(df[["text"]], df[["pred_text"]])``
    scored the word "text" against "pred_text": WER 1.0 whatever the transcripts)."""
    return type(value).__name__ == "DataFrame" and hasattr(value, "columns")


def plain(value: object) -> object:
    """A numpy scalar (``np.int64(20)``, ``np.float32(0.5)``, ``np.True_``: what a DataFrame's cell or an
    array's element is) as the Python value it holds; anything else as it is.  Kept as numpy, an integer passed
    every check and then stopped ``json.dump`` (summary.json) after every model had run, and a numpy bool or
    float32 was refused as not a bool or not a number."""
    if type(value).__module__ == "numpy" and getattr(value, "shape", None) == () and hasattr(value, "item"):
        return value.item()
    return value


def plain_values(value: object) -> object:
    """``value`` with every numpy scalar in it, at any depth of dicts, lists and tuples, as its Python value
    (:func:`plain`): a model's options from a DataFrame's cells (``beam_size=np.int64(2)``) were refused by
    every backend's type check, and in a spec they reached summary.json, which ``json`` cannot write."""
    if isinstance(value, Mapping):
        return {key: plain_values(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(plain_values(item) for item in value)
    return plain(value)


def whole_number(value: object, name: str, minimum: int | None = None) -> int:
    """``value`` as an int: refused when it is not a whole number (``1.5``, ``inf``, ``nan``, ``"10"``, ``True``)
    or is below ``minimum``.  numpy's integers are whole numbers; a bool is not a count."""
    if isinstance(value, bool):
        raise InputError(f"{name} must be an integer, got {value!r}")
    try:
        number = operator.index(value)
    except TypeError:
        raise InputError(f"{name} must be an integer, got {_shown(value)}") from None
    if minimum is not None and number < minimum:
        raise InputError(f"{name} must be at least {minimum}, got {number}")
    return number


def _real(value: object, name: str) -> float:
    value = plain(value)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InputError(f"{name} must be an integer or a number, got {_shown(value)}")
    return float(value)


def number(value: object, name: str, lo: float | None = None, hi: float | None = None) -> float:
    """``value`` as a float: an int or a float, not a bool, not NaN (it passes every range comparison, and then
    every threshold), within ``[lo, hi]`` where given."""
    value = _real(value, name)
    if value != value:
        raise InputError(f"{name} must be a number, got nan")
    if (lo is not None and value < lo) or (hi is not None and value > hi):
        if hi is None:
            raise InputError(f"{name} must be at least {lo}, got {value}")
        raise InputError(f"{name} must be in [{lo}, {hi}], got {value}")
    return value


def flag(value: object, name: str) -> bool:
    """A switch: ``True`` or ``False`` only (the string ``"no"`` is true to Python)."""
    value = plain(value)
    if not isinstance(value, bool):
        raise InputError(f"{name} must be true or false, got {_shown(value)}")
    return value


def bare_annotation(annotation) -> tuple[Any, bool]:
    """The annotation without ``| None``, and whether None is allowed."""
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(annotation) if a is not type(None)]
        if len(args) == 1:
            return args[0], True
    return annotation, False


def check_field_types(params: object) -> None:
    """Each bool, int and float field of a Params dataclass holds one, as a spec table is read onto it
    (``audit.spec_reader.read_params``, through the same checks): built by hand in Python, ``min_run_len=1.5``
    mined nothing, ``include_middle="no"`` was true, ``majority="0.8"`` a TypeError comparing str and int.
    Ranges (NaN among them) are the class's own ``validate()``.  A numpy scalar in a field is replaced by its
    Python value (``plain``; frozen or not: the same value), so the params write to JSON."""
    hints = typing.get_type_hints(type(params))
    for f in dataclasses.fields(params):
        kind, optional = bare_annotation(hints[f.name])
        value = getattr(params, f.name)
        if plain(value) is not value:
            value = plain(value)
            object.__setattr__(params, f.name, value)
        if value is None and optional:
            continue
        if kind is bool:
            flag(value, f.name)
        elif kind is int:
            whole_number(value, f.name)
        elif kind is float:
            _real(value, f.name)  # NaN and the range: validate(), whose messages name the command's flags


def names(value: object, name: str, what: str = "model names") -> list[str]:
    """A list of names (models, clips) from any iterable of strings, a set's sorted; one string, a dict or ``None``
    refused.

    One string iterated is its characters (``"whisper-tiny.en"`` became models ``w``, ``h``...), a dict its
    keys; a name that is not a string never matches a file's."""
    if _frame(value):
        raise InputError(f"{name} is a list of {what}, got a DataFrame (iterated, it gives its column names, not "
                         "its rows): pass a list, or one column's values (df[COLUMN].tolist())")
    if isinstance(value, (str, bytes)):
        raise InputError(f"{name} is a list of {what}, got the string {_shown(value)}")
    if value is None or isinstance(value, Mapping) or not isinstance(value, Iterable):
        raise InputError(f"{name} is a list of {what}, got {_shown(value)}")
    out = list(value)
    for item in out:
        if not isinstance(item, str):
            raise InputError(f"{name} holds {_shown(item)}, not a name: {name} is a list of {what}")
    # A set iterates in hash order, another each run (PYTHONHASHSEED): the models' order in every table followed it.
    return sorted(out) if isinstance(value, (set, frozenset)) else out


def once_each(values: list, name: str, what: str = "clip") -> None:
    """Refuse a list naming one item twice (``clip_ids=["c1", "c1"]``): that clip counted twice in every sum,
    silently weighting the score, as a panel member named twice voted twice (``distinct_panel``)."""
    seen: dict = {}
    for i, value in enumerate(values):
        if value in seen:
            raise InputError(f"{name} names {what} {value!r} twice (at {seen[value]} and {i}): each {what} counts "
                             "once: list it once")
        seen[value] = i


def texts(value: object, name: str, each: str = "one per clip") -> list[str]:
    """A list of texts, one per clip (``corpus_wer``'s references or hypotheses).

    One string iterated is one clip per character; a dict iterated is its keys (the clip ids were scored,
    not the texts), as is its ``.keys()``; a set pairs in hash order (``PYTHONHASHSEED``: another pairing each
    run) and keeps one of equal texts; bytes never equal a word of text.  A text that is not a ``str`` (``None``, a float NaN
    from a pandas column) is refused at its index."""
    if _frame(value):
        raise InputError(f"{name} is a list of texts, {each}, got a DataFrame (iterated, it gives its column "
                         "names: they would be scored, not its texts): pass one column, df['text'], not df[['text']]")
    if isinstance(value, str):
        raise InputError(f"{name} is a list of texts, {each}, got the string {_shown(value)}: "
                         "wrap one text in a list")
    if isinstance(value, (Mapping, KeysView)):
        raise InputError(f"{name} is a list of texts, {each}, got a {type(value).__name__} (its keys "
                         "would be scored, not its texts): pass its values as a list, in the clip order of "
                         "the other list")
    if isinstance(value, Set):
        raise InputError(f"{name} is a list of texts, {each}, got a {type(value).__name__}: a set has no order "
                         "(its texts would pair up with the other list's in hash order, a different one each "
                         "run) and keeps one of equal texts: pass a list")
    if value is None or not isinstance(value, Iterable):
        raise InputError(f"{name} is a list of texts, {each}, got {_shown(value)}")
    out = value if isinstance(value, list) else list(value)
    for i, item in enumerate(out):
        if not isinstance(item, str):
            kind = "NaN (a missing value)" if isinstance(item, float) and math.isnan(item) else _shown(item)
            raise InputError(f"{name}[{i}] is {kind}, not a text: give {'every clip' if each == 'one per clip' else 'each'} "
                             "a str ('' for an empty one)")
    return out


def _labels(value: object) -> object | None:
    """A pandas Series' index (its row labels), else None: iterated, a Series gives its values in row order."""
    index = getattr(value, "index", None)
    return index if type(value).__name__ == "Series" and hasattr(index, "equals") else None


def paired_texts(refs: object, hyps: object) -> tuple[list[str], list[str]]:
    """``refs`` and ``hyps`` as lists of texts of one length: the clips pair up by position.

    Two pandas Series whose indexes differ (one frame sorted or filtered, the other not) would pair by
    position rows that pandas pairs by label: another clip's reference for each hypothesis, a WER with no
    error, so they are refused."""
    r_labels, h_labels = _labels(refs), _labels(hyps)
    if r_labels is not None and h_labels is not None and not r_labels.equals(h_labels):
        def first(labels) -> str:
            shown = ", ".join(map(repr, list(labels[:3])))
            return shown + (", ..." if len(labels) > 3 else "")

        raise InputError(f"refs and hyps are pandas Series with different indexes (refs {first(r_labels)}; hyps "
                         f"{first(h_labels)}): the clips pair up by position, not by index, so each hypothesis "
                         "would meet another row's reference: align them (hyps.reindex(refs.index)), or pass "
                         ".tolist() of each if their orders already match")
    r, h = texts(refs, "refs"), texts(hyps, "hyps")
    if len(r) != len(h):
        raise InputError(f"refs and hyps pair up clip by clip, but refs has {len(r)} text(s) and hyps {len(h)}")
    return r, h


def path(value: object, name: str) -> Path:
    """A path a caller names: a ``str`` or a ``pathlib.Path`` (any ``os.PathLike``), not empty.

    ``None`` or a number was pathlib's ``TypeError`` from deep inside; bytes a list of numbers (iterated);
    ``""`` is the working directory to ``pathlib`` (an audit's ``out = ""`` wrote into the folder it ran
    from)."""
    if isinstance(value, os.PathLike):
        value = os.fspath(value)
    if isinstance(value, bytes):
        raise InputError(f"{name} is a path (a str or pathlib.Path), got the bytes {_shown(value)}: decode it "
                         "(os.fsdecode)")
    if not isinstance(value, str):
        raise InputError(f"{name} is a path (a str or pathlib.Path), got {_shown(value)}")
    if not value.strip():
        raise InputError(f"{name} is an empty path: name a file or folder ('.' for the working directory)")
    return Path(value)


def paths(value: object, name: str) -> list[Path]:
    """One path or an iterable of them (``load_predictions``' folders and files), at least one; a set's sorted."""
    if _frame(value):
        raise InputError(f"{name} is a path or a list of paths (str or pathlib.Path), got a DataFrame (iterated, "
                         "its column names would be read as files): write each model's rows to a file named "
                         "after it (df.to_json('MODEL.jsonl', orient='records', lines=True)) and pass the files")
    if isinstance(value, (str, bytes, os.PathLike)):
        return [path(value, name)]
    if value is None or isinstance(value, Mapping) or not isinstance(value, Iterable):
        raise InputError(f"{name} is a path or a list of paths (str or pathlib.Path), got {_shown(value)}")
    out = [path(v, name) for v in value]
    if not out:
        raise InputError(f"{name} is empty: name a folder of files or the files")
    # A set iterates in hash order (another each run, by PYTHONHASHSEED), which became the models' order in every
    # table: its paths are taken sorted, as a folder's files are.
    return sorted(out) if isinstance(value, (set, frozenset)) else out
