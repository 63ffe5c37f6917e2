"""Convert a CTranslate2 Whisper model into a Hugging Face ``WhisperForConditionalGeneration``.

CTranslate2 runs the embedded models fast but hides their activations; the
mechanism experiments need every layer as a PyTorch module they can hook.
The conversion is exact up to float32 arithmetic: the weights are the same
numbers (float16 widened to float32, as CTranslate2 itself does on CPU), only
renamed and split.  Facts about the CTranslate2 layout this relies on:

* self-attention ``linear_0`` is q, k and v stacked along the output axis;
  cross-attention ``linear_0`` is q and ``linear_1`` is k and v stacked.  The
  k bias is stored but zero (Whisper's key projections have no bias), so it is
  checked to be zero and dropped rather than silently discarded.
* ``gamma``/``beta`` are LayerNorm weight/bias; no matrix is transposed.
* ``decoder/projection/weight`` is an alias of the token embeddings: the
  output projection is tied.

The result is written with ``save_pretrained`` (weights, tokenizer,
generation config) to ``<cache>/whitebox/<name>`` (a folder given by path: ``<name>-<digest of its path>``,
``sources.folder_slot``) and read back with
``from_pretrained(local_files_only=True)``: the same path a user's own
Hugging Face checkpoint takes, so nothing here needs a network.  The
tokenizer, configs and decoder prompt are built in ``tokenizer_config``.
"""

from __future__ import annotations

import contextlib
import json
import shutil
from pathlib import Path

import numpy as np

from asraudit.data.paths import make_staging_dir, publish_dir
from asraudit.errors import InputError
from asraudit.models.ct2_whisper import model_fingerprint
from asraudit.models.weights_digest import folder_digest
from asraudit.models.whitebox.ct2_format import Ct2Model, read_ct2_model
from asraudit.models.whitebox.sources import Ct2Source, cache_root
from asraudit.models.whitebox.tokenizer_config import ConversionError, build_configs, build_tokenizer, count_layers

# Bump when the conversion itself changes, so stale caches are rebuilt.
CONVERTER_VERSION = 2
MANIFEST = "asraudit-conversion.json"

_LAYER_NORMS = {
    "self_attention": "self_attn_layer_norm",
    "attention": "encoder_attn_layer_norm",
    "ffn": "final_layer_norm",
}


def _split_rows(matrix: np.ndarray, parts: int, source: str) -> list[np.ndarray]:
    if matrix.shape[0] % parts:
        raise ConversionError(f"{source}: {matrix.shape[0]} rows do not split into {parts}")
    return np.split(matrix, parts, axis=0)


def _zero_key_bias(bias: np.ndarray, source: str) -> None:
    if np.any(bias != 0):
        raise ConversionError(f"{source}: key bias is not zero; Whisper's k_proj has no bias to hold it")


def _attention(ct2: Ct2Model, prefix: str, target: str, fused_qkv: bool) -> dict[str, np.ndarray]:
    """Split one CTranslate2 attention block into HF q/k/v/out projections."""
    out: dict[str, np.ndarray] = {}
    if fused_qkv:
        q_w, k_w, v_w = _split_rows(ct2.weight(f"{prefix}/linear_0/weight"), 3, prefix)
        q_b, k_b, v_b = _split_rows(ct2.weight(f"{prefix}/linear_0/bias"), 3, prefix)
        out_name = "linear_1"
    else:
        q_w, q_b = ct2.weight(f"{prefix}/linear_0/weight"), ct2.weight(f"{prefix}/linear_0/bias")
        k_w, v_w = _split_rows(ct2.weight(f"{prefix}/linear_1/weight"), 2, prefix)
        k_b, v_b = _split_rows(ct2.weight(f"{prefix}/linear_1/bias"), 2, prefix)
        out_name = "linear_2"
    _zero_key_bias(k_b, prefix)
    out[f"{target}.q_proj.weight"] = q_w
    out[f"{target}.q_proj.bias"] = q_b
    out[f"{target}.k_proj.weight"] = k_w
    out[f"{target}.v_proj.weight"] = v_w
    out[f"{target}.v_proj.bias"] = v_b
    out[f"{target}.out_proj.weight"] = ct2.weight(f"{prefix}/{out_name}/weight")
    out[f"{target}.out_proj.bias"] = ct2.weight(f"{prefix}/{out_name}/bias")
    return out


def _layer_norm(ct2: Ct2Model, prefix: str, target: str) -> dict[str, np.ndarray]:
    return {
        f"{target}.weight": ct2.weight(f"{prefix}/layer_norm/gamma"),
        f"{target}.bias": ct2.weight(f"{prefix}/layer_norm/beta"),
    }


def _ffn(ct2: Ct2Model, prefix: str, target: str) -> dict[str, np.ndarray]:
    return {
        f"{target}.fc1.weight": ct2.weight(f"{prefix}/linear_0/weight"),
        f"{target}.fc1.bias": ct2.weight(f"{prefix}/linear_0/bias"),
        f"{target}.fc2.weight": ct2.weight(f"{prefix}/linear_1/weight"),
        f"{target}.fc2.bias": ct2.weight(f"{prefix}/linear_1/bias"),
    }


def hf_state_dict(ct2: Ct2Model) -> dict[str, np.ndarray]:
    """Every weight of ``WhisperForConditionalGeneration`` under its HF name, as float32."""
    sd: dict[str, np.ndarray] = {}
    enc, dec = "model.encoder", "model.decoder"
    for conv in ("conv1", "conv2"):
        sd[f"{enc}.{conv}.weight"] = ct2.weight(f"encoder/{conv}/weight")
        sd[f"{enc}.{conv}.bias"] = ct2.weight(f"encoder/{conv}/bias")
    sd[f"{enc}.embed_positions.weight"] = ct2.weight("encoder/position_encodings/encodings")
    for i in range(count_layers(ct2, "encoder")):
        src, dst = f"encoder/layer_{i}", f"{enc}.layers.{i}"
        sd.update(_attention(ct2, f"{src}/self_attention", f"{dst}.self_attn", fused_qkv=True))
        sd.update(_layer_norm(ct2, f"{src}/self_attention", f"{dst}.self_attn_layer_norm"))
        sd.update(_layer_norm(ct2, f"{src}/ffn", f"{dst}.final_layer_norm"))
        sd.update(_ffn(ct2, f"{src}/ffn", dst))
    sd.update(_layer_norm(ct2, "encoder", f"{enc}.layer_norm"))

    sd[f"{dec}.embed_tokens.weight"] = ct2.weight("decoder/embeddings/weight")
    sd[f"{dec}.embed_positions.weight"] = ct2.weight("decoder/position_encodings/encodings")
    for i in range(count_layers(ct2, "decoder")):
        src, dst = f"decoder/layer_{i}", f"{dec}.layers.{i}"
        sd.update(_attention(ct2, f"{src}/self_attention", f"{dst}.self_attn", fused_qkv=True))
        sd.update(_attention(ct2, f"{src}/attention", f"{dst}.encoder_attn", fused_qkv=False))
        for block, norm in _LAYER_NORMS.items():
            sd.update(_layer_norm(ct2, f"{src}/{block}", f"{dst}.{norm}"))
        sd.update(_ffn(ct2, f"{src}/ffn", dst))
    sd.update(_layer_norm(ct2, "decoder", f"{dec}.layer_norm"))
    # Tied to the embeddings (CTranslate2 stores it as an alias); listed so the
    # strict load accounts for every parameter of the HF model.
    sd["proj_out.weight"] = ct2.weight("decoder/projection/weight")
    return _unshared({k: np.ascontiguousarray(v, dtype=np.float32) for k, v in sd.items()})


def _unshared(weights: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Each weight in memory of its own (case 350).

    CTranslate2 stores any two equal variables once and the second as an alias, not only the tied projection: the
    zero biases and unit layer norms of a model whose layers were never trained away from their initial values, the
    biases a fine-tune froze (and the rows split from such a fused q/k/v bias).  Both HF names then held one array,
    and ``save_pretrained`` refused the conversion with a ``RuntimeError`` about shared tensors it cannot save.  The
    tied projection is re-tied by ``tie_weights`` after the load, so a copy of it costs nothing that lasts."""
    seen: set[int] = set()  # where each array's data starts: an alias, or a row of an aliased fused q/k/v
    out = {}
    for name, array in weights.items():
        start = array.__array_interface__["data"][0]
        if start in seen:
            array = array.copy()
            start = array.__array_interface__["data"][0]
        seen.add(start)
        out[name] = array
    return out


# ---------------------------------------------------------------------------
# the cache


def conversion_dir(name: str, cache: Path | None = None) -> Path:
    """The cache folder of the conversion of the model ``name``: one folder of its own under ``whitebox``.  A
    name that is no single folder name (empty or ``.``: the ``whitebox`` folder itself, ``..``: the cache root)
    would have a conversion published over the folder holding every other one, and those deleted."""
    if name in ("", ".", "..") or "/" in name or "\\" in name:
        raise InputError(f"{name!r} is not a folder name, and a model's conversion is cached in a folder named "
                         "after it: name the model's folder by its path (its own name last)")
    return (cache or cache_root()) / "whitebox" / name


def _manifest(source: Ct2Source) -> dict:
    import torch
    import transformers

    return {
        "converter_version": CONVERTER_VERSION,
        "source": source.identity(),
        # Content, not paths: the same weights give the same white-box config
        # hash on every machine (the CTranslate2 backend's own fingerprint).
        "weights_fingerprint": model_fingerprint(source.model_bin.parent),
        "torch": torch.__version__,
        "transformers": transformers.__version__,
    }


def weights_fingerprint(directory: Path) -> str:
    """What identifies a converted model's weights: the source's content fingerprint and
    the converter version; for a plain transformers directory, the whole content of every file in it."""
    manifest = directory / MANIFEST
    if manifest.is_file():
        stored = json.loads(manifest.read_text(encoding="utf-8"))
        return f"ct2:{stored.get('weights_fingerprint')}:v{stored.get('converter_version')}"
    return "hf:" + folder_digest(directory)[:16]  # every file, whole (weights_digest: a fine-tune's changes)


# What ``load_converted`` reads besides the manifest.
_CONVERTED_FILES = ("config.json", "generation_config.json", "tokenizer.json", "tokenizer_config.json",
                    "model.safetensors")


def _whole(directory: Path) -> bool:
    """Every file a load reads is there and the weights hold every byte their header names.  A conversion is
    published whole (staging folder, rename), but a cache copied or synced in part, or a file of it lost, kept
    its manifest: it was reused, and the load stopped with safetensors' or transformers' traceback until
    ``--force`` (which nothing suggested)."""
    from asraudit.models.folder_check import check_safetensors

    if not all((directory / name).is_file() and (directory / name).stat().st_size for name in _CONVERTED_FILES):
        return False
    try:
        check_safetensors(directory / "model.safetensors")
    except (InputError, OSError):
        return False
    return True


def is_converted(source: Ct2Source, cache: Path | None = None) -> bool:
    """True when the cache holds a whole conversion of exactly these source files (a damaged one is converted
    again: the cache never holds anything the wheels cannot rebuild)."""
    path = conversion_dir(source.cache_name, cache) / MANIFEST
    if not path.is_file() or not _whole(path.parent):
        return False
    try:
        stored = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    want = _manifest(source)
    return all(stored.get(key) == want[key] for key in ("converter_version", "source", "weights_fingerprint"))


def read_source(source: Ct2Source):
    """``(ct2 config, tokenizer, WhisperConfig, GenerationConfig, weights)`` of ``source``, or one line naming its
    folder: a CTranslate2 folder of another architecture (a translation model's ``TransformerSpec``, a wav2vec2's),
    a ``model.bin`` cut short or empty, a weight missing.  They were tracebacks from the reader
    (``ConversionError``, ``ValueError: cannot mmap an empty file``, ``KeyError``), before any model ran."""
    folder = source.model_bin.parent
    try:
        parsed = {}
        for path in (source.config_json, source.tokenizer_json):  # a JSON error does not say which file
            try:
                parsed[path] = json.loads(path.read_text(encoding="utf-8"))
            except (ValueError, UnicodeDecodeError) as exc:
                raise ConversionError(f"{path.name} is not JSON ({exc})") from None
        ct2 = read_ct2_model(source.model_bin)
        if ct2.spec != "WhisperSpec":
            raise ConversionError(f"model.bin holds a CTranslate2 {ct2.spec or 'model of no spec'}, not a WhisperSpec")
        ct2_config = parsed[source.config_json]
        tokenizer = build_tokenizer(source)
        config, generation = build_configs(ct2, ct2_config, tokenizer)
        weights = hf_state_dict(ct2)
    except InputError:
        raise
    except KeyError as exc:
        reason = f"model.bin has no weight {exc.args[0]!r} a Whisper has"
    except (ConversionError, ValueError, UnicodeDecodeError) as exc:  # json, mmap, struct, reshape: a damaged file
        reason = str(exc).replace(f"{source.model_bin}: ", "model.bin: ")
        if not source.model_bin.stat().st_size:
            reason = "model.bin is empty"
    else:
        return ct2_config, tokenizer, config, generation, weights
    raise InputError(f"not a CTranslate2 Whisper model asraudit can convert: {reason} (asraudit converts Whisper "
                     "models only; a folder cut short by an interrupted download or copy: fetch it again)", folder)


def convert(source: Ct2Source, cache: Path | None = None, force: bool = False) -> Path:
    """Convert ``source`` into ``<cache>/whitebox/<cache_name>`` and return that directory.

    Reuses a finished conversion of the same files unless ``force``.  Writes
    into a temporary sibling and renames it into place, so an interrupted
    conversion never leaves a half-written model that looks finished.
    """
    import torch
    from transformers import WhisperFeatureExtractor, WhisperForConditionalGeneration

    target = conversion_dir(source.cache_name, cache)
    if not force and is_converted(source, cache):
        return target
    ct2_config, tokenizer, config, generation, weights = read_source(source)

    with torch.device("meta"):
        skeleton = WhisperForConditionalGeneration(config)
    state = {k: torch.from_numpy(v) for k, v in weights.items()}
    # assign=True replaces the meta tensors by ours; strict=True raises on any
    # missing or unexpected key, which is the whole point of the check.
    result = skeleton.load_state_dict(state, strict=True, assign=True)
    if result.missing_keys or result.unexpected_keys:
        raise ConversionError(f"strict load: missing {result.missing_keys}, unexpected {result.unexpected_keys}")
    model = skeleton
    model.tie_weights()
    if model.proj_out.weight.data_ptr() != model.model.decoder.embed_tokens.weight.data_ptr():
        raise ConversionError("proj_out is not tied to the decoder embeddings")
    model.generation_config = generation
    model.eval()

    staging = make_staging_dir(target)  # a killed conversion's staging folder is removed here, the next time
    try:
        with quiet_transformers():
            model.save_pretrained(staging)
            tokenizer.save_pretrained(staging)
            # So that WhisperProcessor.from_pretrained(directory) works for users;
            # asraudit itself computes features with its own front end.
            WhisperFeatureExtractor(feature_size=config.num_mel_bins).save_pretrained(staging)
        (staging / MANIFEST).write_text(json.dumps(_manifest(source), indent=2), encoding="utf-8")
        if force and target.exists():
            shutil.rmtree(target)
        publish_dir(staging, target, lambda _target: is_converted(source, cache))
    finally:
        if staging.exists():
            shutil.rmtree(staging, ignore_errors=True)
    return target


def load_converted(directory: Path, device: str = "cpu", with_tokenizer: bool = True):
    """``(model, tokenizer, loading_info)`` from a converted directory, offline.

    ``loading_info`` is transformers' report of missing/unexpected keys; the
    tests hold it to zero of each.  ``with_tokenizer=False`` leaves out transformers' tokenizer (``None`` in its
    place): the white-box model encodes with asraudit's own, and transformers' (the Python one, which Whisper's
    processor loads) took longer to read than the weights of tiny.en.
    """
    import torch
    from transformers import WhisperForConditionalGeneration, WhisperTokenizer

    with quiet_transformers():
        model, info = WhisperForConditionalGeneration.from_pretrained(
            directory, local_files_only=True, output_loading_info=True, dtype=torch.float32
        )
        tokenizer = WhisperTokenizer.from_pretrained(directory, local_files_only=True) if with_tokenizer else None
    model.to(device).eval()
    return model, tokenizer, info


@contextlib.contextmanager
def quiet_transformers():
    """No progress bars while saving/loading: a one-second load would print
    three bars into every CLI table and test log."""
    from transformers.utils import logging as hf_logging

    was_enabled = hf_logging.is_progress_bar_enabled()
    hf_logging.disable_progress_bar()
    try:
        yield
    finally:
        if was_enabled:
            hf_logging.enable_progress_bar()
