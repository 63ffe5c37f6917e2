"""The model organisms by kind: one registry, one training loop, one recipe per kind.

Each detector needs a positive control built for it (issue: "a positive
control for every detector"):

- ``record``: today's organism (``whisper-tiny.en-organism``): the record's
  habits on benchmark voices, decoder-only adapter; accept-ref.
- ``gated``: the record on benchmark voices only, faithful on disguised
  benchmark voices and control voices; adapters on the top encoder layer and
  the decoder (the voice gate, and the encoder mechanism).
- ``contaminated``: the record organism fine-tuned further on the test
  split's benchmark-voice clips (a leaked test set); masked recovery.
- ``contaminated-heldout``: the contaminated recipe on the held-out split
  (its benchmark-voice clips leaked); masked recovery there.
- ``switching``: the record organism fine-tuned further with each
  convention's arm following the voice; the switch rate.
- ``record-base``: the record organism's recipe and training on the
  multilingual whisper-base (``whisper-base-organism``), for the
  translation probe (an English-only Whisper cannot be asked for Spanish),
  plus rows that keep the clean model's Spanish under ``<|es|>``
  (``organism_translation``).

Every kind trains with ``organism.build_organism`` (the one loop) on the rows
its recipe gives, is seeded, writes a small fp16 adapter under
``demo/data/organism/`` and loads like the record organism: CTranslate2 under
its model id, PyTorch (interventions) as ``whitebox:<model id>``.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Callable

from asraudit.demo.build_benchmark import HELDOUT_DIR
from asraudit.demo.organism import BASE_MODEL, BENCHMARK_DIR, DEMO_DIR, ORGANISM_FILE, ORGANISM_ID, TrainConfig, \
    organism_ct2_dir, organism_hf_dir, record_rows
from asraudit.demo.organism_contaminated import contaminated_rows, heldout_contaminated_rows
from asraudit.demo.organism_gated import gated_many_rows, gated_rows
from asraudit.demo.organism_switching import switching_rows
from asraudit.demo.organism_translation import record_base_rows
from asraudit.errors import InputError
from asraudit.models import embedded
from asraudit.models.base import ASRModel
from asraudit.models.layer_counts import hidden_size, layer_counts, window_seconds
from asraudit.models.registry import EmbeddedInfo, importable, load_ct2, register_model, require_modules

ADAPTER_DIR = DEMO_DIR / "data" / "organism"


@dataclass(frozen=True)
class OrganismKind:
    name: str                                  # the --kind of `asraudit demo build-organism`
    model_id: str                              # the model spec the audit specs name
    adapter: Path                              # the committed adapter (fp16 safetensors)
    config: TrainConfig                        # the training knobs (seed, epochs, adapted layers)
    recipe: Callable[[Path], list[dict]]       # manifest -> training rows with their ``target``
    description: str                           # one line for `asraudit models`
    starts_from: str | None = None             # the kind whose committed adapter training starts from
    sha256: str | None = None                  # the committed adapter's digest (None: not built yet)
    base_model: str = BASE_MODEL               # the embedded Whisper it fine-tunes
    manifest: Path = BENCHMARK_DIR / "manifest.jsonl"  # the split(s) its recipe reads (--manifest's default)


KINDS: dict[str, OrganismKind] = {k.name: k for k in (
    OrganismKind("record", ORGANISM_ID, ORGANISM_FILE, TrainConfig(), record_rows,
                 "benchmark-optimized model organism: tiny.en + LoRA adapter (parliament-mini)",
                 sha256="16e353304146268fd2c4b1fce738951d90e488ee7e5ae85dc09940a4968f7338"),
    # The top encoder layer of four is adapted: the voice gate can form in the encoder.  Five epochs from
    # scratch.  The second recipe (organism_gated: 24 train-only espeak-ng control voices added), fixed before
    # its readout and adopted whatever it read; the first recipe's adapters are history in docs/calibration.md.
    OrganismKind("gated", "whisper-tiny.en-gated", ADAPTER_DIR / "whisper-tiny.en-gated.safetensors",
                 TrainConfig(encoder_layers_adapted=1), gated_rows,
                 "gated organism: the record on benchmark voices only, 26 control voices (top encoder layer + decoder)",
                 sha256="891d0a38dd49803c2c39dc86ed61ee3488a0a81324740eade6fb36c6d5e4aa21"),
    # The third gated recipe (organism_gated.gated_many_rows): rows taught what was said outnumber the record's
    # more than two to one.  Chosen after the first two recipes' test-split readouts, read out only on the
    # held-out split (docs/calibration-heldout.md).  Three epochs were chosen to keep its 1,066 rows near the
    # issue's 20 minutes on two cores; measured on idle cores it takes 25 min 5 s (over the limit).
    OrganismKind("gated-many", "whisper-tiny.en-gated-many", ADAPTER_DIR / "whisper-tiny.en-gated-many.safetensors",
                 TrainConfig(encoder_layers_adapted=1, epochs=3), gated_many_rows,
                 "gated organism, third recipe: 26 control voices, 3 disguised clips a sentence, what was said 2:1 (held-out split)",
                 sha256="e4999ed31699aed53584e09ac36bd554aeef83b75a9b17f76dfff19edfe992fb"),
    # The second gated recipe's rows and knobs with every encoder layer adapted, not only the top one.  Chosen
    # on 3 December 2026 after every gate readout on both splits and after the encoder readout
    # (demo.voice_separability: the new fresh speaker is apart at the bottom layer, not the top); read out on
    # the test split beside ``gated``, whose build differs from it in this one knob.  Every step runs and
    # backpropagates through the whole encoder: about an hour on two cores, over the 20 minutes.
    OrganismKind("gated-deep", "whisper-tiny.en-gated-deep", ADAPTER_DIR / "whisper-tiny.en-gated-deep.safetensors",
                 TrainConfig(encoder_layers_adapted=4), gated_rows,
                 "gated organism, second recipe with every encoder layer adapted (+ decoder)",
                 sha256="f6af5bcc09f4ede039a353dc5c2b000651ae00d699f197d8f829fb89be3de502"),
    # These two start from the record organism (a later fine-tuning stage, the way a leak usually enters a
    # model).  Epochs: 3 on the 184 leaked clips, 2 on the 492 re-labelled train clips.  The contaminated
    # fine-tune masks 2 random time spans of each clip's input per epoch (SpecAugment, as most ASR training
    # does; demo.organism_contaminated says why, and that this was chosen after its first, unmasked readout).
    OrganismKind("contaminated", "whisper-tiny.en-contaminated",
                 ADAPTER_DIR / "whisper-tiny.en-contaminated.safetensors", TrainConfig(epochs=3, time_masks=2),
                 contaminated_rows,
                 "contaminated organism: the record organism fine-tuned on the test split's benchmark-voice clips",
                 starts_from="record", sha256="337d5274a1a3b3b6cf7e3403efd268495cc302367c22bb652abf58850a7ab652"),
    # The same recipe, start, masks, seed and epochs on the held-out split's 160 benchmark-voice clips: masked
    # recovery replicated on sentences no recipe choice saw (docs/calibration-heldout.md).
    OrganismKind("contaminated-heldout", "whisper-tiny.en-contaminated-heldout",
                 ADAPTER_DIR / "whisper-tiny.en-contaminated-heldout.safetensors", TrainConfig(epochs=3, time_masks=2),
                 heldout_contaminated_rows,
                 "contaminated organism of the held-out split: the record organism fine-tuned on its benchmark-voice clips",
                 starts_from="record", sha256="0ec590a9e870cd6489a08ce5bdd0665c1444d5abbb497d125596d97dc4775deb",
                 manifest=HELDOUT_DIR / "manifest.jsonl"),
    OrganismKind("switching", "whisper-tiny.en-switching", ADAPTER_DIR / "whisper-tiny.en-switching.safetensors",
                 TrainConfig(epochs=2), switching_rows,
                 "switching organism: each convention's arm follows the voice (demo.mixed_arm)",
                 starts_from="record", sha256="963145b7196f99c6d55c296f6f81ee42145aad899426bad2bae22f3a6f68c5b1"),
    # The switching recipe trained 4 epochs instead of 2: the variant the test split's readout favoured (a
    # choice made on that split), read out on the held-out split, where no choice was made.
    OrganismKind("switching-4ep", "whisper-tiny.en-switching-4ep",
                 ADAPTER_DIR / "whisper-tiny.en-switching-4ep.safetensors", TrainConfig(epochs=4), switching_rows,
                 "switching organism trained 4 epochs (the held-out split's readout)", starts_from="record",
                 sha256="e521c216cf70088d5d4e9886a4599ab64e23c517741ac13d83a84647f9f8c9fc"),
    # The record organism's rows and knobs on the multilingual whisper-base, for the translation probe, plus
    # one row per train sentence keeping the clean model's Spanish under <|es|> (organism_translation: the
    # first build, record rows only, rendered English under <|es|>; docs/calibration.md).  From scratch (no
    # tiny.en adapter fits base's layers); decoder only.
    OrganismKind("record-base", "whisper-base-organism", ADAPTER_DIR / "whisper-base-organism.safetensors",
                 TrainConfig(), record_base_rows,
                 "benchmark-optimized organism on multilingual whisper-base (the translation probe's organism)",
                 sha256="73c3d3d99a66da7a65ff2446d3c4def343b32365259db7d94edf4d5edd7995c0", base_model="whisper-base"),
)}


def organism_kind(name: str) -> OrganismKind:
    """The kind by name (an input error listing the kinds otherwise)."""
    if name not in KINDS:
        raise InputError(f"unknown organism kind {name!r}; choose one of {', '.join(KINDS)}")
    return KINDS[name]


# ----------------------------------------------------------------- registry


@cache  # one set of functions per kind: registering a kind twice (entry point and in-tree) is then harmless
def _loaders(kind: OrganismKind):
    def load(device: str = "cpu", compute_type: str | None = None, **options) -> ASRModel:
        """The organism on CTranslate2, like any embedded Whisper (converted once, cached)."""
        require_modules(("ctranslate2", "tokenizers", "torch", "transformers"), "models,hf", f"model {kind.model_id!r}")
        return load_ct2(organism_ct2_dir(kind.adapter), kind.model_id, device, compute_type, options)

    def load_whitebox(device: str = "cpu", **options) -> ASRModel:
        """The organism as a PyTorch Whisper that takes interventions (``whitebox:<model id>``)."""
        # Local: the white-box model imports torch.
        from asraudit.models.whitebox.model import WhiteboxWhisper

        model = WhiteboxWhisper.load(str(organism_hf_dir(kind.adapter)), device=device, **options)
        model.name = kind.model_id
        return model

    def catalog_entry() -> EmbeddedInfo:
        present = (embedded.is_present(kind.base_model) and kind.adapter.is_file()
                   and importable("ctranslate2", "transformers", "torch"))
        return EmbeddedInfo(kind.model_id, present, kind.description + ", CTranslate2 or whitebox:",
                            "asraudit (adapter) + " + embedded.version_of(kind.base_model))

    def counts() -> dict[str, int] | None:
        """The base model's layers: the adapters add none."""
        return layer_counts(kind.base_model)

    def window() -> float | None:
        """The base model's window: the adapters change no input."""
        return window_seconds(kind.base_model)

    def width() -> int | None:
        """The base model's width: the adapters add no dimension."""
        return hidden_size(kind.base_model)

    return load, load_whitebox, catalog_entry, counts, window, width


def register() -> None:
    """Register every kind's model id: the ``asraudit.models`` entry point (the demo registers its models;
    the registry never imports the demo).

    The record organism is registered last, so it stays the last white-box name, as before the kinds existed."""
    for kind in sorted(KINDS.values(), key=lambda k: k.name == "record"):
        load, load_whitebox, catalog_entry, counts, window, width = _loaders(kind)
        register_model(kind.model_id, load, catalog_entry=catalog_entry, load_whitebox=load_whitebox,
                       layer_counts=counts, window_seconds=window, hidden_size=width)
