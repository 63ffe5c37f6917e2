"""The encoder steer entry's keys for the paper's mechanism: splice pairs and the sweeps.

``splice`` replaces ``negative``: each positive clip is spliced once with
benchmark donor audio (clips of the audited corpus, ``donors``) and once with
other audio (``other``), and the direction is the mean paired difference
(``mechanism.splice_pairs``)::

    splice = { other = "corpus:other_speech/manifest.jsonl",      # or "tts:espeak-ng"
               donors = { field = "voice_role", value = "benchmark" },  # default every clip
               seconds = 6, where = "append", seed = 0 }
    pair_counts = [8, 16, 22, 44]   # a direction from the first n learning pairs (a seeded order), each
                                    # ablated at rank 1 with its random control
    layers = [0, 1, 2, 3]           # a direction at each encoder layer (every learning pair), ditto

Every sweep point is a variant of the entry's ablation (the same baseline
and clips), so it needs ``ablate``; ``ablate_ranks = [1, 2, 3, 4]`` (with
``rank = 4``) gives the rank curve and the share of the full effect k = 1
gives.
"""

from __future__ import annotations

import hashlib

from pathlib import Path

from asraudit.audio.conditions import TTS_ENGINES
from asraudit.data.corpus import HF_PREFIX
from asraudit.mechanism.pairs import Selection
from asraudit.mechanism.splice_pairs import Splice

SWEEP_KEYS = {"splice", "pair_counts", "layers"}
SPLICE_KEYS = {"other", "donors", "seconds", "where", "seed"}


def _ints(e, key: str, minimum: int | None) -> tuple[int, ...]:
    values = e.get(key, (list,), "a list of integers", [])
    if key in e.data and (not values or not all(isinstance(v, int) and not isinstance(v, bool) for v in values)
                          or (minimum is not None and min(values) < minimum)):
        floor = "" if minimum is None else f" (each at least {minimum})"
        raise e.fail(f"{key} must be a non-empty list of integers{floor}, got {values!r}")
    return tuple(dict.fromkeys(values))


def _corpus_digest(path: Path) -> str:
    """What a donor corpus is, independent of where it lies: a manifest's bytes, or a folder's file list
    with sizes (its audio is not read here: the spec is checked before any audio is decoded)."""
    digest = hashlib.sha256()
    if path.is_file():
        digest.update(path.read_bytes())
    else:
        for file in sorted(p for p in path.rglob("*") if p.is_file()):
            digest.update(f"{file.relative_to(path).as_posix()}\0{file.stat().st_size}\n".encode())
    return digest.hexdigest()[:16]


def _splice(e) -> Splice | None:
    if "splice" not in e.data:
        return None
    if "negative" in e.data:
        raise e.fail("give negative or splice, not both (splice makes each pair's negative from its positive)")
    value = e.data["splice"]
    if not isinstance(value, dict):
        raise e.fail(f"splice must be a table {{ other = \"corpus:PATH\" | \"tts:ENGINE\", ... }}, got {value!r}")
    extra = sorted(set(value) - SPLICE_KEYS)
    if extra:
        raise e.fail(f"splice: unknown key(s) {', '.join(extra)} (it takes {', '.join(sorted(SPLICE_KEYS))})")
    other = value.get("other")
    if not isinstance(other, str) or not other.startswith(("corpus:", "tts:")):
        raise e.fail(f"splice.other must be \"corpus:PATH\" or \"tts:ENGINE\" (the other audio), got {other!r}")
    if other.startswith(f"corpus:{HF_PREFIX}"):  # a hub dataset: no path to resolve against the spec
        other_key = other
    elif other.startswith("corpus:"):
        path = Path(other[len("corpus:"):]).expanduser()
        path = path if path.is_absolute() else e.base / path
        if not path.exists():
            raise e.fail(f"splice.other: no such corpus {path}")
        other = f"corpus:{path.resolve()}"
        other_key = f"corpus:{path.name}@{_corpus_digest(path)}"
    else:
        if other[len("tts:"):] not in TTS_ENGINES:  # found only when the mechanism stage, the last, built its pairs
            raise e.fail(f"splice.other {other!r}: the engine must be one of {', '.join(TTS_ENGINES)}")
        other_key = None
    seconds = value.get("seconds", 6.0)
    if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or not seconds > 0:
        raise e.fail(f"splice.seconds must be a number above 0, got {seconds!r}")
    where = value.get("where", "append")
    if where not in ("append", "prepend"):
        raise e.fail(f"splice.where must be append or prepend, got {where!r}")
    seed = value.get("seed", 0)
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise e.fail(f"splice.seed must be an integer, got {seed!r}")
    # the donors selection is read with the entry's own reader, so its errors name "splice"
    donors = type(e)(value, f"{e.where} splice", e.source, e.base).selection("donors") or Selection()
    return Splice(other, donors, float(seconds), where, seed, other_key)


def parse_sweeps(e) -> dict:
    """The SteerSpec fields these keys fill: ``splice``, ``pair_counts``, ``layers`` (checked)."""
    out = {"splice": _splice(e), "pair_counts": _ints(e, "pair_counts", 1), "layers": _ints(e, "layers", None)}
    if (out["pair_counts"] or out["layers"]) and "ablate" not in e.data:
        raise e.fail("pair_counts and layers are ablation sweeps: give ablate (the clips to ablate on)")
    return out
