"""Rendering conventions, once: scan every (model, clip), switch rates per family and pool, agreement.

``asraudit conventions`` and the audit's conventions stage call
:func:`measure_conventions` and render what it returns.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping

from asraudit.metrics.stats import DEFAULT_BOOTSTRAP, DEFAULT_SEED
from asraudit.probes.families import Catalogue, load_catalogue
from asraudit.probes.rendering import (
    DEFAULT_MIN_PER_ARM,
    Agreement,
    ConventionAudit,
    SwitchRate,
    agreement,
    collect,
    pooled_switch_rates,
    switch_rates,
)


@dataclass(frozen=True)
class ConventionsParams:
    """Knobs of the rendering-conventions probe (the audit spec's ``[conventions]``)."""

    # the built-in catalogue of convention families to scan (a language code: en es fr de it nl pl pt),
    # or a catalogue file; in an audit it defaults to the corpus's language
    language: str = "en"
    # an arm used by fewer clips gives a rate too noisy to enter the minimum over arms
    min_per_arm: int = field(default=DEFAULT_MIN_PER_ARM, metadata={"minimum": 1})


@dataclass(frozen=True)
class TextPair:
    """One model's raw hypothesis of a clip with the clip's raw reference."""

    reference: str
    hypothesis: str


@dataclass(frozen=True)
class ConventionsResult:
    audit: ConventionAudit
    switch: list[SwitchRate]        # per model and family
    pooled: list[SwitchRate]        # per model and pool of families
    agreement: list[Agreement]      # per model and class of families, plus "all"


def text_pairs(references: Mapping[str, str | None], transcripts: Mapping[str, Mapping[str, str]]
               ) -> dict[str, dict[str, TextPair]]:
    """model -> clip -> (reference, hypothesis) from raw texts, clips in the order of ``references``."""
    return {m: {cid: TextPair(references[cid] or "", texts[cid]) for cid in references if cid in texts}
            for m, texts in transcripts.items()}


def measure_conventions(rows: Mapping[str, Mapping[str, TextPair]], params: ConventionsParams = ConventionsParams(),
                        *, catalogue: Catalogue | None = None, n_boot: int = DEFAULT_BOOTSTRAP,
                        seed: int = DEFAULT_SEED) -> ConventionsResult:
    """Switch rates (min over arms) and agreement per model; ``rows[model][clip]`` has raw reference and
    hypothesis (anything with those attributes, e.g. a prediction file's rows).  ``catalogue`` overrides
    ``params.language``."""
    audit = collect(catalogue or load_catalogue(params.language), rows)
    return ConventionsResult(audit, switch_rates(audit, params.min_per_arm),
                             pooled_switch_rates(audit, params.min_per_arm),
                             agreement(audit, by="class", n_boot=n_boot, seed=seed))
