"""A local transformers model folder checked before it is loaded: are its weights there, and whole?

An interrupted download or a partial copy leaves a folder whose config.json
reads fine but whose weights are missing, or cut short: transformers then
fails deep inside ``from_pretrained`` (a safetensors header error, or an
OSError about file names), as a traceback, after the corpus was read.  Here,
in milliseconds and without loading a tensor: some weight file is there,
every shard an index names is there, and each safetensors file is as long as
the tensors its header lists (the format is an 8-byte header length, a JSON
header giving each tensor's byte range, then the data).
"""

from __future__ import annotations

import json
from pathlib import Path

from asraudit.audio.constants import SAMPLE_RATE
from asraudit.errors import InputError

INDEXES = ("model.safetensors.index.json", "pytorch_model.bin.index.json")
HINT = "an interrupted download or a partial copy? fetch the model's files again"


def check_weights(folder: Path) -> None:
    """InputError naming the file when ``folder`` has no weights, misses a shard, or holds a cut-short safetensors."""
    if not any(folder.glob("*.safetensors")) and not any(folder.glob("*.bin")) and \
            not any((folder / name).is_file() for name in INDEXES):
        raise InputError(f"no weights: no .safetensors or .bin file and no weight index ({HINT})", folder)
    for name in INDEXES:
        index = folder / name
        if index.is_file():
            for shard in sorted(set(_weight_map(index).values())):
                if not (folder / shard).is_file():
                    raise InputError(f"names the shard {shard}, which is not in the folder ({HINT})", index)
    for path in sorted(folder.glob("*.safetensors")):
        check_safetensors(path)


def _weight_map(index: Path) -> dict[str, str]:
    try:
        weight_map = json.loads(index.read_text(encoding="utf-8"))["weight_map"]
    except (OSError, UnicodeDecodeError, ValueError, KeyError, TypeError) as exc:
        raise InputError(f"not a readable weight index ({type(exc).__name__}: {exc}; {HINT})", index) from None
    if not isinstance(weight_map, dict) or not all(isinstance(v, str) for v in weight_map.values()):
        raise InputError(f"its weight_map is not a mapping of tensor names to files ({HINT})", index)
    return weight_map


def check_safetensors(path: Path) -> None:
    """InputError unless ``path`` holds a whole safetensors header and every byte its tensors need."""
    size = path.stat().st_size
    with path.open("rb") as fh:
        head = fh.read(8)
        length = int.from_bytes(head, "little") if len(head) == 8 else -1
        if length < 0 or length > size - 8:
            raise InputError(f"cut short: {size:,} bytes, less than its safetensors header ({HINT})", path)
        try:
            header = json.loads(fh.read(length))
            ends = [int(t["data_offsets"][1]) for name, t in header.items() if name != "__metadata__"]
        except (ValueError, KeyError, TypeError, IndexError, AttributeError) as exc:
            raise InputError(f"not a safetensors file: its header does not read ({type(exc).__name__}; {HINT})",
                             path) from None
    need = 8 + length + max(ends, default=0)
    if need > size:
        raise InputError(f"cut short: {size:,} bytes where its tensors need {need:,} ({HINT})", path)


def load_processor(source: str, load, rate: int | None = SAMPLE_RATE):
    """``load()``, a processor (tokenizer and feature extractor) read from ``source``; a folder whose tokenizer or
    feature-extractor files are missing or unreadable is one line naming it, not a traceback (transformers raises
    OSError for a missing file, and TypeError when a tokenizer class is handed no vocabulary file).

    ``rate``: the sample rate the family's runner gives the feature extractor (None: it resamples to the
    extractor's own, as Kyutai's does); an extractor saved for another rate is refused here, before any clip."""
    try:
        processor = load()
    except (OSError, TypeError, ValueError) as exc:
        first = str(exc).splitlines()[0] if str(exc) else ""
        raise InputError(f"cannot load its processor (tokenizer and feature extractor): {type(exc).__name__}: "
                         f"{first} (are its tokenizer files there? {HINT})", source) from None
    if rate is not None:
        check_feature_rate(processor, source, rate)
    return processor


def check_feature_rate(processor, source: str, rate: int) -> None:
    """InputError unless the processor's feature extractor takes audio at ``rate`` Hz.

    transformers' extractors refuse audio of another rate only when they are called, so a folder whose
    extractor says 24 or 8 kHz loaded and stopped at its first clip with a ValueError traceback, after every
    model before it had run; an extractor that does not check (Granite-Speech's mel settings) would compute
    its features of 16-kHz audio as if it were at its own rate, silently."""
    extractor = getattr(processor, "feature_extractor", None) or getattr(processor, "audio_processor", None) or processor
    declared = [getattr(extractor, "sampling_rate", None)]
    mel = getattr(extractor, "melspec_kwargs", None)
    if isinstance(mel, dict):
        declared.append(mel.get("sample_rate"))
    for value in declared:
        if isinstance(value, (int, float)) and not isinstance(value, bool) and value != rate:
            folder = Path(source)
            files = [name for name in ("preprocessor_config.json", "processor_config.json") if (folder / name).is_file()]
            where = f" ({files[0]})" if files else ""
            raise InputError(
                f"its feature extractor{where} takes audio at {value:g} Hz, and this family is given {rate} Hz audio "
                f"(every clip is read at {SAMPLE_RATE} Hz): the first clip would be refused, or heard at the wrong "
                f"rate; if the model was trained on {rate}-Hz audio, set sampling_rate to {rate} there, else the "
                "file is another model's", source)


def load_weights(model_class, source: str, **kwargs):
    """``model_class.from_pretrained(source, **kwargs)``, refused when the checkpoint lacks some of the model's
    tensors.  transformers fills a missing tensor with random values and says so only in a warning table: a
    pretrained encoder without its speech-recognition head (wav2vec2-base, an XLS-R checkpoint), a classifier's
    or an encoder's weights under a speech model's config, would transcribe noise, stored as the model's
    transcripts.  Tensors computed at load (tied to another, or buffers) are not reported missing."""
    try:
        model, info = model_class.from_pretrained(source, output_loading_info=True, **kwargs)
    except ValueError as exc:
        check_generation_config(source)  # a generation_config.json transformers refuses, named as such
        raise exc from None
    refuse_missing_tensors(model, info, source)
    return model


def check_generation_config(source: str) -> None:
    """InputError naming the folder's generation_config.json when transformers refuses its settings as they stand
    (``num_return_sequences`` 2 with greedy decoding, a negative ``temperature``): ``from_pretrained`` raised it
    as a ValueError traceback, at load.  asraudit passes its own length, beam and greedy settings to every
    ``generate`` call; the file's other settings are the model's and stay in force."""
    path = Path(source) / "generation_config.json"
    if not path.is_file():
        return
    from transformers import GenerationConfig

    try:
        GenerationConfig.from_pretrained(source)
    except ValueError as exc:
        said = " ".join(str(exc).split()).rstrip(".")
        raise InputError(f"transformers refuses its settings: {said[:300]}: fix the file, or remove it (the model's "
                         "config.json then gives the defaults)", path) from None


# Tensors only training reads, which released checkpoints may lack: SpecAugment's learned mask vector of the
# wav2vec2 family (wav2vec2, HuBERT, WavLM, data2vec-audio, SEW, UniSpeech), missing from facebook/wav2vec2-base-960h
# and many CTC fine-tunes.  transformers initialises it, and a model in eval mode never reads it.
TRAINING_ONLY_TENSORS = ("masked_spec_embed",)


def refuse_missing_tensors(model, info: dict, source: str) -> None:
    """InputError naming ``source`` when transformers' loading ``info`` lists tensors missing from it (those only
    training reads, ``TRAINING_ONLY_TENSORS``, aside)."""
    missing = sorted(key for key in info.get("missing_keys") or ()
                     if key.rsplit(".", 1)[-1] not in TRAINING_ONLY_TENSORS)
    if missing:
        import json

        try:
            named = json.loads((Path(source) / "config.json").read_text(encoding="utf-8")).get("architectures")
        except (OSError, ValueError, AttributeError):
            named = None
        saved = (f"config.json's architectures names {', '.join(map(str, named))}" if isinstance(named, list) and named
                 else "its config.json names no architecture")
        shown = ", ".join(missing[:3]) + (f", ... ({len(missing)} in all)" if len(missing) > 3 else "")
        raise InputError(f"its weights lack tensors of {type(model).__name__}, the model asraudit runs for its "
                         f"model_type: {shown}; transformers would fill them with random values and the transcripts "
                         f"would be noise ({saved}: a pretrained encoder without its speech-recognition head, or "
                         "another task's checkpoint?): use a checkpoint fine-tuned for speech recognition", source)
