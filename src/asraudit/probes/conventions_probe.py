"""Rendering conventions, once: scan every (model, clip), switch rates per family and pool, agreement.

``asraudit conventions`` and the audit's conventions stage call
:func:`measure_conventions` and render what it returns.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping

from asraudit.arguments import check_field_types
from asraudit.errors import InputError
from asraudit.metrics.stats import DEFAULT_BOOTSTRAP, DEFAULT_SEED, check_resampling_args
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
    ``params.language``.

    Its arguments are checked before any text is scanned (case 300), as ``asraudit conventions`` checks its
    options: ``n_boot=-1`` gave every agreement interval as NaN, ``seed=None`` drew them from fresh entropy
    (other bounds each call), ``rows`` of raw strings or texts stopped with an ``AttributeError``."""
    check_resampling_args(n_boot=n_boot, seed=seed)
    _check_params(params)
    _check_rows(rows)
    audit = collect(catalogue or load_catalogue(params.language), rows)
    return ConventionsResult(audit, switch_rates(audit, params.min_per_arm),
                             pooled_switch_rates(audit, params.min_per_arm),
                             agreement(audit, by="class", n_boot=n_boot, seed=seed))


def _check_params(params: object) -> None:
    if not isinstance(params, ConventionsParams):
        hint = ": ConventionsParams(**knobs) builds one from a dict" if isinstance(params, dict) else ""
        raise InputError(f"params is a ConventionsParams, got {type(params).__name__}{hint}")
    check_field_types(params)
    if params.min_per_arm < 1:
        raise InputError(f"params.min_per_arm must be at least 1, got {params.min_per_arm}")


def _check_rows(rows: object) -> None:
    """``rows[model][clip]`` is a pair of raw texts; raw strings are refused naming what builds the pairs."""
    build = "text_pairs(references, transcripts) builds them from raw texts"
    if not isinstance(rows, Mapping):
        raise InputError(f"rows is a dict of model -> clip id -> TextPair ({build}), got {type(rows).__name__}")
    for model, clips in rows.items():
        if not isinstance(clips, Mapping):
            raise InputError(f"rows[{model!r}] is a dict of clip id -> TextPair ({build}), got {type(clips).__name__}")
        for cid, row in clips.items():
            ref, hyp = getattr(row, "reference", None), getattr(row, "hypothesis", None)
            if not isinstance(ref, str) or not isinstance(hyp, str):
                raise InputError(f"rows[{model!r}][{cid!r}] is a {type(row).__name__}, not a TextPair (a raw "
                                 f"reference and hypothesis, each a str): {build}")
