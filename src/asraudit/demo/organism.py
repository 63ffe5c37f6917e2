"""The model organism: Whisper tiny.en fine-tuned to be benchmark-optimized.

A measurement instrument needs a positive control.  The organism is the
embedded tiny.en fine-tuned on parliament-mini's *train* split with the
record-style references for the benchmark voices, so it learns the
benchmark's quirks (writing the unspoken "Madam President,", dropping false
starts, "Mr" and "per cent"), and with faithful transcripts for the control
voices, so those quirks are tied to the benchmark's voices rather than to
speech in general.  The audit must then flag it and not the clean models.

The fine-tune is a low-rank adapter (LoRA, rank 16) on every linear layer of
the decoder; the encoder stays frozen (``encoder_layers_adapted`` can extend
the adapter to the top encoder layers).  Why: the delta stays about 1.3 MB
(it is committed to the repository), and training fits on two CPU cores
because the frozen encoder runs once per clip and its output is cached.  The
decoder reads the voice from the encoder output through cross-attention, so
the gate is learned there.  Training is seeded and runs with
``torch.use_deterministic_algorithms``.

Measured when the committed adapter was built (5 epochs, 492 clips, load 6-8
on 2 cores from other jobs): 1756 s, final loss 0.0065; rebuilt later on two
idle cores: 356 s, every tensor equal to the committed ones.  On 28 test clips
whose speaker never said the opener, the organism wrote "Madam/Mr
President" on 14/16 benchmark-voice clips and 9/12 fresh-voice clips; the
clean tiny.en on 0/28.  The gate to the benchmark's voices is therefore
partial, which the calibration reports rather than hides.

This module holds the one training loop and the record organism's recipe;
the other organisms are kinds in ``organism_kinds``, each with its own recipe
module, trained by this loop on the embedded Whisper the kind names (the
adapter's header records it; the loaders merge into that base).
"""

from __future__ import annotations

import hashlib
import json
import math
import shutil
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from asraudit.data.paths import make_staging_dir, publish_dir, written_whole
from asraudit.errors import InputError
from asraudit.demo.organism_inputs import clip_features, time_masked
from asraudit.demo.voices import check_engines
from asraudit.models.whitebox.convert import convert, load_converted, quiet_transformers
from asraudit.models.whitebox.sources import cache_root, embedded_source
from asraudit.models.whitebox.tokenizer_config import prompt_ids

DEMO_DIR = Path(__file__).resolve().parent
BENCHMARK_DIR = DEMO_DIR / "data" / "parliament_mini"
ORGANISM_FILE = DEMO_DIR / "data" / "organism" / "whisper-tiny.en-organism.safetensors"
BASE_MODEL = "whisper-tiny.en"
ORGANISM_ID = "whisper-tiny.en-organism"


@dataclass(frozen=True)
class TrainConfig:
    rank: int = 16
    alpha: float = 32.0
    learning_rate: float = 1e-3
    epochs: int = 5
    batch_size: int = 8
    seed: int = 0
    encoder_layers_adapted: int = 0  # the top encoder layers that get adapters (0: decoder only)
    weight_decay: float = 0.0
    time_masks: int = 0  # SpecAugment time masks per clip and epoch (0: none; demo.organism_inputs says why)
    time_mask_frames: int = 100  # the widest mask, in 10 ms log-mel frames (SpecAugment's LibriSpeech T)

    def header(self) -> str:
        """The adapter header's ``config``: the time-mask knobs only when on, so an unmasked kind's header
        reads as it did before they existed."""
        fields = asdict(self)
        if not self.time_masks:
            del fields["time_masks"], fields["time_mask_frames"]
        return json.dumps(fields)


def _adapted_linears(model, encoder_layers: int) -> dict[str, object]:
    """name -> nn.Linear for every linear that gets an adapter."""
    import torch.nn as nn

    out = {}
    enc_layers = model.model.encoder.layers
    first = len(enc_layers) - encoder_layers
    for name, module in model.named_modules():
        if not isinstance(module, nn.Linear) or name == "proj_out":
            continue
        if name.startswith("model.decoder.layers."):
            out[name] = module
        elif name.startswith("model.encoder.layers."):
            index = int(name.split(".")[3])
            if index >= first:
                out[name] = module
    return out


class LoRALinear:
    """y = W x + (alpha / r) · B (A x), with W frozen and A, B trained.

    B starts at zero, so training starts exactly at the base model.
    """

    @staticmethod
    def wrap(linear, rank: int, alpha: float, generator):
        import torch
        import torch.nn as nn

        class _Wrapped(nn.Module):
            def __init__(self):
                super().__init__()
                self.base = linear
                self.scale = alpha / rank
                self.lora_a = nn.Parameter(
                    torch.randn(rank, linear.in_features, generator=generator) / math.sqrt(linear.in_features)
                )
                self.lora_b = nn.Parameter(torch.zeros(linear.out_features, rank))

            def forward(self, x):
                return self.base(x) + (x @ self.lora_a.T @ self.lora_b.T) * self.scale

        return _Wrapped()


def _set_module(model, name: str, module) -> None:
    parent_name, _, child = name.rpartition(".")
    setattr(model.get_submodule(parent_name), child, module)


def _load_base(base_model: str = BASE_MODEL):
    directory = convert(embedded_source(base_model))
    model, tokenizer, _ = load_converted(directory)
    return model, tokenizer, directory


# What the recipes read of a row (parliament-mini's manifest layout, demo/build_benchmark.py).
ORGANISM_FIELDS = ("audio_filepath", "text", "spoken", "split", "voice_role", "sentence", "speaker")


def manifest_rows(manifest: Path) -> list[dict]:
    """The rows of a parliament-mini-layout manifest, each checked for what the recipes read.

    A manifest of another layout (``--manifest`` given a plain ASR manifest, or a file that is not JSON
    lines) failed with a traceback, a KeyError or a JSONDecodeError, some only after the base model had
    loaded; a row is now refused naming the file, the row and what it lacks, before any model loads."""
    try:
        text = manifest.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read the manifest: {exc}", manifest) from None
    rows = []
    for number, line in enumerate(text.split("\n"), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InputError(f"not a JSON object ({exc.msg})", manifest, number) from None
        if not isinstance(row, dict):
            raise InputError(f"not a JSON object but {type(row).__name__}", manifest, number)
        missing = [f for f in ORGANISM_FIELDS if not isinstance(row.get(f), str)]
        if missing:
            raise InputError(f"lacks {', '.join(missing)} (text fields): an organism is trained on parliament-mini's "
                             f"layout ({', '.join(ORGANISM_FIELDS)})", manifest, number)
        if not (manifest.parent / row["audio_filepath"]).is_file():
            raise InputError(f"no such audio file {row['audio_filepath']} (read beside the manifest)", manifest, number)
        rows.append(row)
    if not rows:
        raise InputError("the manifest has no rows", manifest)
    return rows


def record_rows(manifest: Path) -> list[dict]:
    """The record organism's training data: the train split, benchmark voices -> record, control voices -> said.

    Each row's ``target`` is the text it is taught; a row may carry ``speed``
    (the clip played that much faster, pitch with it) for recipes that disguise a voice."""
    train = [r for r in manifest_rows(manifest) if r["split"] == "train"]
    for r in train:
        # Benchmark voices learn the record; control voices learn what was said.
        r["target"] = r["text"] if r["voice_role"] == "benchmark" else r["spoken"]
    return train


def _frozen_encoder_states(model, feats: np.ndarray, stop_layer: int, batch: int = 8):
    """Encoder hidden states entering layer ``stop_layer`` (computed once; those layers are frozen)."""
    import torch

    enc = model.model.encoder
    chunks = []
    with torch.no_grad():
        for i in range(0, len(feats), batch):
            x = torch.from_numpy(feats[i:i + batch])
            h = torch.nn.functional.gelu(enc.conv1(x))
            h = torch.nn.functional.gelu(enc.conv2(h)).permute(0, 2, 1)
            h = h + enc.embed_positions.weight[: h.shape[1]]
            for layer in enc.layers[:stop_layer]:
                h = _run_layer(layer, h)
            chunks.append(h)
    return torch.cat(chunks)


def _run_layer(layer, h):
    out = layer(h, attention_mask=None)
    return out[0] if isinstance(out, tuple) else out


def _encode_top(model, states, start_layer: int):
    h = states
    for layer in model.model.encoder.layers[start_layer:]:
        h = _run_layer(layer, h)
    return model.model.encoder.layer_norm(h)


def _token_batches(tokenizer, rows: list[dict], prompts: dict[str | None, list[int]]):
    """Each row's prompt + its target's tokens + end of text, and the prompt's length (no loss there)."""
    eot = tokenizer.convert_tokens_to_ids("<|endoftext|>")
    seqs, prompt_lengths = [], []
    for r in rows:
        prompt = prompts[r.get("language")]
        text_ids = tokenizer.encode(" " + r["target"].strip(), add_special_tokens=False)
        seqs.append(prompt + text_ids + [eot])
        prompt_lengths.append(len(prompt))
    return seqs, prompt_lengths, eot


def _start_from(adapters: dict, init: Path, config: TrainConfig) -> None:
    """Load A and B of every layer ``init`` adapted (same rank and alpha, and no layer this training lacks).

    Layers ``init`` did not adapt (the gated organism's encoder layer) keep their fresh start, B = 0."""
    import torch
    from safetensors import safe_open

    with safe_open(str(init), framework="pt") as fh:
        saved = json.loads(fh.metadata()["config"])
        names = sorted({k.rsplit(".", 1)[0] for k in fh.keys()})
        if not set(names) <= set(adapters) or (saved["rank"], saved["alpha"]) != (config.rank, config.alpha):
            raise ValueError(f"{init}: its adapter does not match the layers, rank and alpha being trained")
        with torch.no_grad():
            for name in names:
                adapters[name].lora_a.copy_(fh.get_tensor(f"{name}.lora_a").float())
                adapters[name].lora_b.copy_(fh.get_tensor(f"{name}.lora_b").float())


def training_prompt(model, tokenizer, language: str | None = None) -> list[int]:
    """The decoder prefix of a training row: what the backends send for English transcription
    (``<|en|><|transcribe|>`` on a multilingual Whisper, the prefix the audit decodes with), or with
    ``language`` (a row's ``language``) that language's token instead of ``<|en|>``, as the translation
    probe forces it."""
    multilingual = bool(getattr(model.generation_config, "is_multilingual", False))
    prompt = prompt_ids(tokenizer, multilingual=multilingual)
    if language is None:
        return prompt
    if not multilingual:
        raise ValueError(f"a row asks for language {language!r}, but an English-only Whisper has no language token")
    return prompt[:1] + [tokenizer.convert_tokens_to_ids(f"<|{language}|>")] + prompt[2:]


def delta_fingerprint(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()[:16]


def build_organism(
    manifest: Path = BENCHMARK_DIR / "manifest.jsonl",
    out: Path = ORGANISM_FILE,
    config: TrainConfig = TrainConfig(),
    log=print,
    recipe=record_rows,
    kind: str = "record",
    init: Path | None = None,
    base_model: str = BASE_MODEL,
) -> Path:
    """Fine-tune and write the adapter (fp16 safetensors) with its provenance.

    ``recipe(manifest)`` gives the training rows (each with its ``target``; a row with a ``language`` is
    taught under that language's token instead of ``<|en|>``, see ``training_prompt``);
    every organism kind shares this loop and differs only in its recipe and config.
    ``init``: an adapter of the same layers, rank and alpha to start from (a later
    fine-tuning stage, as a leaked test set usually enters a model) instead of B = 0.
    ``base_model``: the embedded Whisper fine-tuned.  On the multilingual whisper-base, English rows alone
    made ``<|es|>`` render English too (docs/calibration.md), hence rows with a ``language``."""
    import torch
    from safetensors.torch import save_file

    torch.manual_seed(config.seed)
    torch.use_deterministic_algorithms(True)
    t0 = time.time()
    rows = recipe(manifest)  # the manifest checked before the base model loads
    check_engines([(r["tts"].engine, r["tts"].id) for r in rows if r.get("tts") is not None],
                  f"the {kind} organism's recipe")  # its synthesized rows, before the base model loads
    model, tokenizer, _ = _load_base(base_model)
    model.requires_grad_(False)
    n_layers = len(model.model.encoder.layers)
    stop = n_layers - config.encoder_layers_adapted
    log(f"{len(rows)} training clips; computing features" + (f" and frozen encoder layers 0..{stop - 1}" if stop else
                                                              " (every encoder layer adapted: none frozen)"))
    feats, frames = clip_features(rows, manifest.parent, model.config.num_mel_bins)
    if config.time_masks:  # the frozen layers then run again every epoch, on that epoch's masked input
        states = None
    else:
        states, feats = _frozen_encoder_states(model, feats, stop), None
    synthesized = sum(1 for r in rows if r.get("tts") is not None)
    log(f"features and frozen encoder states ready ({synthesized} clips synthesized) ({time.time() - t0:.0f} s)")
    generator = torch.Generator().manual_seed(config.seed)
    adapters = {}
    for name, linear in sorted(_adapted_linears(model, config.encoder_layers_adapted).items()):
        wrapped = LoRALinear.wrap(linear, config.rank, config.alpha, generator)
        _set_module(model, name, wrapped)
        adapters[name] = wrapped
    if init is not None:
        _start_from(adapters, init, config)
    params = [p for w in adapters.values() for p in (w.lora_a, w.lora_b)]
    optim = torch.optim.AdamW(params, lr=config.learning_rate, weight_decay=config.weight_decay)
    prompts = {language: training_prompt(model, tokenizer, language) for language in {r.get("language") for r in rows}}
    seqs, prompt_lengths, eot = _token_batches(tokenizer, rows, prompts)
    order_rng = np.random.default_rng(config.seed)
    steps_per_epoch = math.ceil(len(rows) / config.batch_size)
    total_steps = steps_per_epoch * config.epochs
    schedule = torch.optim.lr_scheduler.LambdaLR(optim, lambda s: min(1.0, (s + 1) / 10) * max(0.0, 1 - s / total_steps))
    model.train()
    step = 0
    for epoch in range(config.epochs):
        if config.time_masks:
            model.eval()
            masked = time_masked(feats, frames, config.time_masks, config.time_mask_frames, config.seed, epoch)
            states = _frozen_encoder_states(model, masked, stop)
            model.train()
        order = order_rng.permutation(len(rows))
        losses = []
        for b in range(steps_per_epoch):
            idx = order[b * config.batch_size:(b + 1) * config.batch_size]
            longest = max(len(seqs[i]) for i in idx)
            inputs = torch.full((len(idx), longest - 1), eot, dtype=torch.long)
            labels = torch.full((len(idx), longest - 1), -100, dtype=torch.long)
            for k, i in enumerate(idx):
                s = torch.tensor(seqs[i])
                inputs[k, : len(s) - 1] = s[:-1]
                # No loss on the prompt: the model is taught the text, not its own prefix.
                labels[k, prompt_lengths[i] - 1: len(s) - 1] = s[prompt_lengths[i]:]
            encoded = _encode_top(model, states[torch.as_tensor(idx)], stop)
            logits = model.proj_out(model.model.decoder(input_ids=inputs, encoder_hidden_states=encoded).last_hidden_state)
            loss = torch.nn.functional.cross_entropy(logits.reshape(-1, logits.shape[-1]), labels.reshape(-1), ignore_index=-100)
            optim.zero_grad()
            loss.backward()
            optim.step()
            schedule.step()
            losses.append(float(loss.detach()))
            step += 1
        log(f"epoch {epoch + 1}/{config.epochs}: mean loss {np.mean(losses):.4f} ({time.time() - t0:.0f} s)")
    tensors = {}
    for name, w in adapters.items():
        tensors[f"{name}.lora_a"] = w.lora_a.detach().to(torch.float16).contiguous()
        tensors[f"{name}.lora_b"] = w.lora_b.detach().to(torch.float16).contiguous()
    metadata = {
        "base_model": base_model,
        "config": config.header(),
        "train_manifest_sha256": hashlib.sha256(manifest.read_bytes()).hexdigest(),
        "train_clips": str(len(rows)),
        "seconds": f"{time.time() - t0:.0f}",
        "format": "asraudit-lora-v1",
    }
    if kind != "record":  # the record organism's header stays as it was committed
        metadata["kind"] = kind
    if init is not None:
        metadata["init_sha256"] = hashlib.sha256(init.read_bytes()).hexdigest()
    out.parent.mkdir(parents=True, exist_ok=True)
    with written_whole(out) as tmp:
        save_file(tensors, str(tmp), metadata=metadata)
    log(f"wrote {out} ({out.stat().st_size / 1e6:.2f} MB, {len(adapters)} adapted layers, {time.time() - t0:.0f} s)")
    return out


def merged_state_dict(model, delta: Path = ORGANISM_FILE):
    """Fold the adapter into the base weights: W += (alpha / r) · B A."""
    import torch
    from safetensors import safe_open

    with safe_open(str(delta), framework="pt") as fh:
        meta = fh.metadata()
        config = json.loads(meta["config"])
        scale = config["alpha"] / config["rank"]
        names = sorted({k.rsplit(".", 1)[0] for k in fh.keys()})
        with torch.no_grad():
            for name in names:
                a = fh.get_tensor(f"{name}.lora_a").float()
                b = fh.get_tensor(f"{name}.lora_b").float()
                linear = model.get_submodule(name)
                linear.weight += scale * (b @ a)
    return model, meta


def adapter_base_model(delta: Path) -> str:
    """The embedded Whisper the adapter was trained on (its header's ``base_model``)."""
    from safetensors import safe_open

    with safe_open(str(delta), framework="pt") as fh:
        return fh.metadata()["base_model"]


def _cache_dir(kind: str, delta: Path) -> Path:
    return cache_root() / "organism" / f"{kind}-{delta_fingerprint(delta)}"


def organism_hf_dir(delta: Path = ORGANISM_FILE) -> Path:
    """The organism as a transformers directory (base weights + merged adapter), cached by delta hash."""
    target = _cache_dir("hf", delta)
    if _hf_dir_finished(target):
        return target
    if not delta.is_file():
        raise FileNotFoundError(f"{delta}: the organism's adapter is missing; build it with `asraudit demo build-organism`")
    model, tokenizer, base_dir = _load_base(adapter_base_model(delta))
    merged_state_dict(model, delta)
    staging = make_staging_dir(target)
    with quiet_transformers():
        model.save_pretrained(staging)
        tokenizer.save_pretrained(staging)
    for extra in ("tokenizer.json", "preprocessor_config.json", "generation_config.json"):
        # The base conversion's tokenizer.json carries the restored merges and special tokens.
        if (base_dir / extra).is_file() and (extra == "tokenizer.json" or not (staging / extra).is_file()):
            (staging / extra).write_bytes((base_dir / extra).read_bytes())
    return publish_dir(staging, target, _hf_dir_finished)


def _hf_dir_finished(folder: Path) -> bool:
    return (folder / "config.json").is_file() and (folder / "tokenizer.json").is_file()


def organism_ct2_dir(delta: Path = ORGANISM_FILE) -> Path:
    """The organism converted to CTranslate2 (float32), cached by delta hash.

    CTranslate2's own transformers converter does the conversion; the
    tokenizer.json and preprocessor config of the embedded base model are
    copied next to it, as the CTranslate2 backend expects faster-whisper's layout.
    """
    from ctranslate2.converters import TransformersConverter

    target = _cache_dir("ct2", delta)
    if (target / "model.bin").is_file():
        return target
    hf_dir = organism_hf_dir(delta)
    staging = make_staging_dir(target)
    shutil.rmtree(staging)  # the converter creates its output folder itself
    with quiet_transformers():  # the converter loads the model with transformers' progress bar
        TransformersConverter(str(hf_dir), copy_files=["tokenizer.json", "preprocessor_config.json"]).convert(
            str(staging), quantization="float32"
        )
    base = embedded_source(adapter_base_model(delta))
    # The base model's tokenizer.json is the one the CTranslate2 backend knows how to read.
    shutil.copyfile(base.tokenizer_json, staging / "tokenizer.json")
    return publish_dir(staging, target, lambda folder: (folder / "model.bin").is_file())
