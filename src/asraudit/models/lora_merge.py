"""A checkpoint's own LoRA adapter merged into its weights, without peft.

Granite-Speech keeps a speech LoRA next to its weights (``adapter_config.json``
and ``adapter_model.safetensors`` in the model folder) and Phi-4-Multimodal
keeps one in ``speech-lora/``.  transformers applies them only through its peft
integration, which transformers 5.24 runs with peft >= 0.22 alone, newer than
any peft on PyPI here; without this module a user could not audit the models
as they are meant to run.

Why a merge is exact: a LoRA layer computes ``W x + s * B (A x)`` with
``s = lora_alpha / r`` (``/ sqrt(r)`` with rsLoRA; dropout is off at eval), the
same linear map as ``(W + s * B @ A) x``.  Granite enables its adapter exactly
when the input has audio (its ``generate``); an ASR request always has audio,
so the merged model is the model's audio path.  Phi-4's card activates the
speech adapter for speech requests.  The merge is done in float32 and the
merged weight rounded once to the checkpoint's dtype (float32: rounding noise
only; bfloat16/float16: one rounding of the sum, as a merged checkpoint has).

It is used whatever peft is installed: one code path, so a score does not
depend on the peft version, needs no peft at all, and the network keeps plain
``nn.Linear`` layers, so hooks and interventions see the base family's modules.

Strict: a config feature this merge does not implement (DoRA, trained biases,
rank or alpha patterns, ...) is refused in one line naming the field; every
adapter key must name a linear layer of the model (found directly, through
transformers' own checkpoint renamings for the family, or relative to the
language model when peft wrapped only it), as an A/B pair of the declared rank
that the config's ``target_modules`` selects, or the load is refused naming
the key.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from pathlib import Path

from asraudit.errors import InputError
from asraudit.models.peft_adapter import ADAPTER_CONFIG as CONFIG_NAME
from asraudit.models.peft_adapter import adapter_digest

WEIGHT_NAMES = ("adapter_model.safetensors", "adapter_model.bin")
PREFIX = "base_model.model."  # peft's save_pretrained puts every key under it
_PAIR = re.compile(r"^(?P<module>.+)\.lora_(?P<half>[AB])\.weight$")

# Fields that cannot change the merged function: bookkeeping, training-time
# settings, and initialisers (the saved A and B replace whatever they drew).
_IGNORED = {
    "task_type", "auto_mapping", "peft_version", "base_model_name_or_path", "revision", "inference_mode",
    "lora_dropout", "fan_in_fan_out", "init_lora_weights", "loftq_config", "eva_config", "corda_config",
    "lora_ga_config", "megatron_config", "megatron_core", "qalora_group_size", "runtime_config",
    "ensure_weight_tying",
}
# Fields the merge reads.
_USED = {"peft_type", "r", "lora_alpha", "use_rslora", "target_modules", "exclude_modules", "layers_to_transform",
         "layers_pattern", "bias"}
_DEFAULT_LAYER_PATTERNS = ("layers", "h", "blocks", "layer")  # peft's, for layers_to_transform


@dataclass(frozen=True)
class LoraConfig:
    """The settings of a plain LoRA adapter that decide what the merge adds."""

    r: int
    alpha: float
    rslora: bool
    targets: tuple[str, ...] | str | None  # names (suffix match) or one regular expression (full match)
    exclude: tuple[str, ...] | str | None
    layers: tuple[int, ...] | None
    layer_patterns: tuple[str, ...]

    @property
    def scale(self) -> float:
        return self.alpha / (math.sqrt(self.r) if self.rslora else self.r)

    def selects(self, name: str) -> bool:
        """Whether peft, given this config, puts a LoRA on the module called ``name``."""
        if _matches(self.exclude, name):
            return False
        if self.targets != "all-linear" and not _matches(self.targets, name):
            return False
        if self.layers is None:
            return True
        found = re.search(rf"(?:^|\.)(?:{'|'.join(map(re.escape, self.layer_patterns))})\.(\d+)\.", name)
        return found is not None and int(found.group(1)) in self.layers


def _matches(rule, name: str) -> bool:
    if not rule:
        return False
    if isinstance(rule, str):
        return re.fullmatch(rule, name) is not None
    return any(name == t or name.endswith("." + t) for t in rule)


def read_config(folder: Path) -> LoraConfig:
    """The adapter's config, refusing (one line naming the field) what a plain merge cannot reproduce."""
    path = folder / CONFIG_NAME
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise InputError(f"cannot read the adapter config: {exc}", path) from None
    if not isinstance(raw, dict):
        raise InputError("the adapter config is not a JSON object", path)
    if raw.get("peft_type", "LORA") != "LORA":
        raise InputError(f"peft_type {raw.get('peft_type')!r} is not LoRA; asraudit merges LoRA adapters only", path)
    if raw.get("bias", "none") != "none":
        raise InputError(f"bias={raw['bias']!r} (trained biases) is not supported; asraudit merges LoRA without biases", path)
    for name, value in raw.items():
        if name not in _IGNORED and name not in _USED and value not in (None, False, {}, [], ""):
            raise InputError(f"{name}={value!r} is not supported: asraudit merges plain LoRA (W + scale * B @ A) only", path)
    try:
        r, alpha = int(raw.get("r", 8)), float(raw.get("lora_alpha", 8))
    except (TypeError, ValueError):
        raise InputError("r and lora_alpha must be numbers", path) from None
    if r <= 0:
        raise InputError(f"r={r} must be positive", path)

    def rule(value):
        return value if isinstance(value, str) or value is None else tuple(value)

    layers = raw.get("layers_to_transform")
    pattern = raw.get("layers_pattern")
    return LoraConfig(
        r=r, alpha=alpha, rslora=bool(raw.get("use_rslora", False)),
        targets=rule(raw.get("target_modules")), exclude=rule(raw.get("exclude_modules")),
        layers=None if layers is None else tuple(int(x) for x in ([layers] if isinstance(layers, int) else layers)),
        layer_patterns=_DEFAULT_LAYER_PATTERNS if not pattern else ((pattern,) if isinstance(pattern, str) else tuple(pattern)),
    )


def read_weights(folder: Path) -> dict:
    for name in WEIGHT_NAMES:
        path = folder / name
        if not path.is_file():
            continue
        if name.endswith(".safetensors"):
            from safetensors.torch import load_file

            return load_file(str(path))
        import torch

        return torch.load(str(path), map_location="cpu", weights_only=True)
    raise InputError(f"the adapter has no weights ({' or '.join(WEIGHT_NAMES)})", folder)


def _renamer(network):
    """transformers' own checkpoint renamings for this model (legacy layouts, e.g. Granite's
    ``language_model.model.*`` -> ``model.language_model.*``), as ``load_adapter`` applies them."""
    try:
        from transformers.conversion_mapping import get_model_conversion_mapping
        from transformers.core_model_loading import WeightRenaming, apply_renamings
    except ImportError:  # an older transformers: checkpoint names are module names
        return lambda key: key
    renamings = [t for t in get_model_conversion_mapping(network) if isinstance(t, WeightRenaming)]
    return lambda key: apply_renamings(key, renamings)


def _language_model_prefix(network) -> str | None:
    """The qualified name of the language model inside ``network`` (for adapters peft wrapped around it alone)."""
    try:
        decoder = network.get_decoder()
    except (AttributeError, ValueError, NotImplementedError):
        return None
    for name, module in network.named_modules():
        if module is decoder:
            return name
    return None


def _resolve(network, path: str, key: str, rename, lm_prefix: str | None, folder: Path):
    """The ``nn.Linear`` the adapter's module ``path`` names: one module, or a refusal naming ``key``."""
    import torch

    candidates = [rename(path + ".weight")[: -len(".weight")]]
    if lm_prefix:
        candidates.append(f"{lm_prefix}.{path}")
    found: dict[int, tuple[str, object]] = {}
    for name in candidates:
        try:
            module = network.get_submodule(name)
        except AttributeError:
            continue
        found.setdefault(id(module), (name, module))
    if not found:
        raise InputError(f"adapter key {key!r} names module {path!r}, which the model does not have", folder)
    if len(found) > 1:
        names = " or ".join(name for name, _ in found.values())
        raise InputError(f"adapter key {key!r} is ambiguous: module {names}", folder)
    (name, module), = found.values()
    if type(module) is not torch.nn.Linear:
        raise InputError(f"adapter key {key!r} targets {name} ({type(module).__name__}); asraudit merges LoRA into "
                         "linear layers only", folder)
    return name, module


def merge_lora(network, folder: Path) -> str:
    """Merge the LoRA in ``folder`` into ``network``'s weights in place; returns the adapter's digest.

    Everything is checked before any weight changes, so a refusal leaves the network as loaded."""
    import torch

    config = read_config(folder)
    weights = read_weights(folder)
    pairs: dict[str, dict[str, tuple[str, object]]] = {}
    for key, tensor in weights.items():
        match = _PAIR.match(key[len(PREFIX):]) if key.startswith(PREFIX) else None
        if match is None:
            raise InputError(f"adapter key {key!r} is not a LoRA A/B weight (base_model.model.<module>.lora_A|B.weight); "
                             "asraudit merges plain LoRA only", folder)
        pairs.setdefault(match["module"], {})[match["half"]] = (key, tensor)

    rename, lm_prefix = _renamer(network), _language_model_prefix(network)
    shared = {}
    for _, parameter in network.named_parameters(remove_duplicate=False):
        shared[parameter.data_ptr()] = shared.get(parameter.data_ptr(), 0) + 1
    updates = {}
    for path, halves in pairs.items():
        key = next(iter(halves.values()))[0]
        if set(halves) != {"A", "B"}:
            raise InputError(f"adapter key {key!r} has no lora_{'B' if 'A' in halves else 'A'} partner", folder)
        if not config.selects(path):
            raise InputError(f"adapter key {key!r}: module {path!r} is not one the config's target_modules / "
                             "layers_to_transform select", folder)
        name, module = _resolve(network, path, key, rename, lm_prefix, folder)
        if name in updates:
            raise InputError(f"adapter key {key!r}: module {name} is adapted twice", folder)
        (_, a), (_, b) = halves["A"], halves["B"]
        out_features, in_features = module.weight.shape
        if a.shape != (config.r, in_features) or b.shape != (out_features, config.r):
            raise InputError(f"adapter key {key!r}: lora_A {tuple(a.shape)} and lora_B {tuple(b.shape)} do not fit "
                             f"{name} ({out_features}x{in_features}) at r={config.r}", folder)
        if shared[module.weight.data_ptr()] > 1:  # a tied weight: merging would change its twin too
            raise InputError(f"adapter key {key!r}: {name}'s weight is tied to another layer's; merging would change "
                             "both", folder)
        updates[name] = (module, a, b)
    with torch.no_grad():
        for module, a, b in updates.values():
            weight = module.weight
            delta = config.scale * (b.to(weight.device, torch.float32) @ a.to(weight.device, torch.float32))
            weight.copy_((weight.float() + delta).to(weight.dtype))
    return adapter_digest(folder)


# transformers' from_pretrained applies an adapter_config.json it finds in the model folder itself
# (through peft); pointing its adapter lookup at a subfolder no checkpoint has leaves that to merge_lora.
NO_TRANSFORMERS_ADAPTER = {"adapter_kwargs": {"subfolder": "asraudit-merges-the-adapter-itself"}}


def find_adapter(source: str, subfolder: str = "", revision: str | None = None) -> Path | None:
    """The local folder holding ``source``'s adapter (in ``subfolder``), fetched like the model's own
    files when ``source`` is a hub id; None when the checkpoint has none."""
    local = Path(source).expanduser()
    if local.is_dir():
        folder = local / subfolder if subfolder else local
        return folder if (folder / CONFIG_NAME).is_file() else None
    from transformers.utils import cached_file

    def fetch(name):
        return cached_file(source, name, subfolder=subfolder, revision=revision,
                           _raise_exceptions_for_missing_entries=False, _raise_exceptions_for_connection_errors=False,
                           _raise_exceptions_for_gated_repo=False)

    config = fetch(CONFIG_NAME)
    if config is None:
        return None
    for name in WEIGHT_NAMES:
        if fetch(name) is not None:
            break
    return Path(config).parent


def attach(network, folder: Path) -> None:
    """Merge the adapter in ``folder`` and record its digest on the network, where ``hf._HFModel.config_hash``
    reads it (on the network, so that variants sharing it carry the adapter into their hash too)."""
    if getattr(network, "_hf_peft_config_loaded", False):  # transformers applied an adapter already: never twice
        raise InputError(f"the model at {folder} already carries an adapter applied by transformers; "
                         "asraudit cannot merge its LoRA on top of it")
    network.asraudit_adapter = {"path": str(folder), "digest": merge_lora(network, folder)}


def attach_folder_adapter(network, source: str, revision: str | None = None) -> None:
    """Granite-Speech's layout: the speech LoRA saved next to the weights, in the model folder itself,
    and ``has_lora_adapter`` in the config saying the model needs it."""
    folder = find_adapter(source, revision=revision)
    if folder is not None:
        attach(network, folder)
    elif getattr(network.config, "has_lora_adapter", False):
        raise InputError(f"model {source!r}: its config says it has a LoRA adapter (has_lora_adapter), but the folder "
                         f"has no {CONFIG_NAME}; without it the model answers audio wrongly: use the complete checkpoint")
