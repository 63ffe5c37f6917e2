"""What every stage of an audit reads and writes: the ``AuditContext``.

Stages run in order (transcribe, mine, score, conventions, masked, lift,
battery, mechanism).  Each reads what earlier stages left on the context
and adds its part of the summary (``summary``) and its rows for the Parquet
tables (``tables``).  Keeping that state in one object, rather than passing
ten arguments around, is what lets a stage be added without touching the
others, and lets ``asraudit calibrate`` reuse the whole pipeline and then
score it against the planted truth.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from asraudit.audit.spec import AuditSpec


@dataclass
class AuditContext:
    spec: AuditSpec
    out: Path
    corpus: Any                       # asraudit.data.corpus.Corpus (the selected clips)
    store: Any                        # asraudit.run.store.ResultStore, open for the whole audit
    executor: Any                     # LocalExecutor or RayExecutor
    normalize: Callable[[str], str]
    panel: list[str] = field(default_factory=list)   # names of the models that mine reference errors
    # name -> loaded model (local executor) or zero-argument factory (Ray)
    models: dict[str, Any] = field(default_factory=dict)
    # name -> asraudit.run.executor.Identity (model id, config hash, can_score)
    identities: dict[str, Any] = field(default_factory=dict)
    # name -> {clip id -> raw transcript}; a PredictionSet view of it in ``predictions``
    transcripts: dict[str, dict[str, str]] = field(default_factory=dict)
    predictions: Any = None           # asraudit.data.predictions.PredictionSet over every model
    mining: Any = None                # asraudit.probes.refdis.MiningResult
    clip_inputs: dict = field(default_factory=dict)  # clip id -> ClipInput (normalized reference and hypotheses)
    edit_items: list = field(default_factory=list)   # mined edits as asraudit.probes.lift_run.EditItem
    mask_plan: Any = None             # (masked targets, word timings), planned once (audio_stages.mask_items)
    said: dict[str, str] = field(default_factory=dict)  # clip id -> what was said (said_field, else reference)
    summary: dict[str, Any] = field(default_factory=dict)
    tables: dict[str, list[dict]] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    progress: bool = True

    def log(self, message: str) -> None:
        print(f"asraudit: {message}", file=sys.stderr, flush=True)

    def note(self, message: str) -> None:
        """Something the reader of the report must know (a probe skipped, a model left out)."""
        self.notes.append(message)
        self.log(message)

    def model_summary(self, name: str) -> dict[str, Any]:
        return self.summary.setdefault("models", {}).setdefault(name, {})

    def models_named(self, names: tuple[str, ...] | list[str] = (), *, scoring: bool = False,
                     audio: bool = True) -> list[str]:
        """The audited models a probe section names (all of them when it names none), in spec order.

        With ``audio``, models that only replay a prediction file are left out
        unless named: they cannot hear a masked or spliced clip."""
        if names:
            chosen = [n for n in self.identities if n in names]
        else:
            chosen = [n for n in self.identities if not (audio and self.identities[n].by_clip_id)]
        if scoring:
            chosen = [n for n in chosen if self.identities[n].can_score]
        return chosen
