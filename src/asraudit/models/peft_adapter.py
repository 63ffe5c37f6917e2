"""A folder holding only a PEFT adapter (LoRA) over a transformers speech model.

Fine-tuned speech models are often shared as an adapter: ``adapter_config.json``
and ``adapter_model.safetensors`` written by peft's ``save_pretrained``, with
the base model named in ``base_model_name_or_path``.  Such a folder has no
``config.json``, so it cannot be recognised by its model type; the base can.
The base is loaded through the same family path a user's folder takes, then
wrapped as peft's ``PeftModel.from_pretrained(base, folder)`` and merged into
the base's weights (``merge_and_unload``): the function the PeftModel
computes, up to float rounding of ``W + scale * B @ A``, in the base's own
class, so prompts, scoring, hooks and interventions are unchanged.  (Not
transformers' ``load_adapter``: transformers 5.24 requires peft >= 0.22 for
it, newer than the peft on PyPI here, 0.21.2.  A checkpoint's *built-in*
speech LoRA, Granite-Speech's and Phi-4's, is merged without peft by
``lora_merge``.)  The adapter's weight digest
enters ``config_hash``: a different adapter is a different model.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import re
from pathlib import Path

from asraudit.errors import InputError

ADAPTER_CONFIG = "adapter_config.json"


def is_adapter_folder(path: Path) -> bool:
    """True for a folder with an adapter but no model config of its own."""
    return path.is_dir() and (path / ADAPTER_CONFIG).is_file() and not (path / "config.json").is_file()


def base_of(folder: Path) -> str:
    """The base model the adapter was trained over (a local folder or a hub id), as its config names it.

    A base that is an adapter folder is loaded the same way, its own base first; a chain that comes back to a
    folder on it (``base_model_name_or_path = "."``, the adapter's own folder; two adapters naming each other)
    would never reach a model, and was a ``RecursionError`` traceback: it is one line naming the folders."""
    base = _named_base(folder)
    chain = [folder.resolve()]
    step = Path(base)
    while is_adapter_folder(step):
        if step.resolve() in chain:
            loop = " -> ".join(str(p) for p in chain + [step.resolve()])
            raise InputError(f"the adapter's base model is an adapter folder whose chain of bases comes back to a "
                             f"folder on it ({loop}), so no model is ever reached: set base_model_name_or_path to "
                             "the base model's folder or hub id", folder / ADAPTER_CONFIG)
        chain.append(step.resolve())
        step = Path(_named_base(step))
    return base


def _named_base(folder: Path) -> str:
    """The base ``folder``'s adapter config names: a local folder (resolved, relative ones against the adapter's
    folder first) or, when no such folder is there, the name as written (a hub id)."""
    try:
        config = json.loads((folder / ADAPTER_CONFIG).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise InputError(f"cannot read the adapter config: {exc}", folder / ADAPTER_CONFIG) from None
    base = config.get("base_model_name_or_path") if isinstance(config, dict) else None
    if not base or not isinstance(base, str):
        raise InputError("the adapter config names no base model (base_model_name_or_path); "
                         "set it to the base model's folder or hub id", folder / ADAPTER_CONFIG)
    local = Path(base).expanduser()
    if not local.is_absolute() and (folder / local).is_dir():
        local = folder / local
    return str(local.resolve()) if local.is_dir() else base


def require_peft(folder: Path) -> None:
    if importlib.util.find_spec("peft") is None:
        raise InputError(f"model {str(folder)!r} is a PEFT adapter, which transformers only applies with peft "
                         "installed: pip install peft (or pip install 'asraudit[hf]')")


ADAPTER_WEIGHTS = ("adapter_model.safetensors", "adapter_model.bin")


def check_adapter_weights(folder: Path) -> None:
    """The adapter's weights are there and whole, checked before its base loads (headers only): a folder without
    them was peft's hub error (``Repo id must be in the form ...``) once the base had loaded, one cut short
    safetensors' ``SafetensorError: Error while deserializing header``, a traceback."""
    from asraudit.models.folder_check import check_safetensors

    present = [folder / name for name in ADAPTER_WEIGHTS if (folder / name).is_file()]
    if not present:
        raise InputError(f"no adapter weights: the folder has adapter_config.json but neither "
                         f"{' nor '.join(ADAPTER_WEIGHTS)} (an interrupted download or copy? fetch the adapter's "
                         "files again)", folder)
    if present[0].suffix == ".safetensors":
        check_safetensors(present[0])


_ADAPTER_NAME = re.compile(r"\.default(?=\.|$)")  # the segment peft names an adapter's tensors by, left out in its file


def _unfilled(wrapped, folder: Path) -> tuple[list[str], list[str]]:
    """``(tensors of the adapter file that name no adapter module of the base, adapter modules of the base that the
    file does not fill)``, by peft's saved names (the adapter's name, ``default``, left out)."""
    path = folder / ADAPTER_WEIGHTS[0]
    if not path.is_file():
        return [], []
    from safetensors import safe_open

    with safe_open(str(path), "pt") as handle:
        saved = set(handle.keys())
    names = [name for name, _ in wrapped.named_parameters()]
    adapter = [name for name in names if _ADAPTER_NAME.search(name)]
    wanted = {_ADAPTER_NAME.sub("", name.replace(".modules_to_save.default", "")) for name in adapter}
    # A file may also carry base weights by their own names (embeddings saved with save_embedding_layers).
    return sorted(saved - wanted - set(names)), sorted(wanted - saved)


def adapter_digest(folder: Path) -> str:
    """A digest of the adapter's config and weights (what makes two adapters different models)."""
    digest = hashlib.sha256()
    for path in sorted(folder.iterdir()):
        if path.name == ADAPTER_CONFIG or path.name.startswith("adapter_model"):
            digest.update(path.name.encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def apply_adapter(model, folder: Path) -> None:
    """Merge the adapter into a loaded asraudit transformers model (its ``model`` attribute)."""
    from peft import PeftModel

    network = getattr(model, "model", None)
    if network is None or not hasattr(network, "config"):
        raise InputError(f"model {model.model_id!r} takes no PEFT adapter (its backend {model.backend} has no "
                         "transformers network to merge one into)")
    try:
        wrapped = PeftModel.from_pretrained(network, str(folder))
    except (ValueError, KeyError, RuntimeError) as exc:  # target modules the base lacks, mismatched shapes
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise InputError(f"the adapter does not fit its base model: {first}", folder) from None
    # Tensors named for modules the base does not have by that name (an adapter trained over another model: its
    # target modules, q_proj and v_proj, exist in both) were passed over with a warning among the log lines: the
    # base's modules kept their initial adapter weights, and the run was the base's (or noise), exit 0.
    unused, unfilled = _unfilled(wrapped, folder)
    if unused or unfilled:
        first = (unused or unfilled)[0]
        raise InputError(f"the adapter does not fit its base model: {len(unused)} of its tensors name no adapter "
                         f"module of the base and {len(unfilled)} adapter tensor(s) the base takes are not in it "
                         f"(first: {first}): base_model_name_or_path names another model than the adapter was "
                         "trained over", folder)
    merged = wrapped.merge_and_unload()
    merged.to(model.device).eval()
    # On the network, so that variants (which share it) carry the adapter into their config hash too.
    merged.asraudit_adapter = {"path": str(folder), "digest": adapter_digest(folder)}
    model.model = merged
