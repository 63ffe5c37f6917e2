"""What every audit stage reads: the ``AuditContext`` (the run's environment, not its results).

Stages run in order (transcribe, mine, conventions, masked, lift, battery,
mechanism).  Each reads the context and the results of earlier stages
(``audit.results.AuditResult``) and returns its own result dataclass;
nothing a stage measures is written onto the context.  The context holds
only what the whole run shares: the spec, the output folder, the corpus,
the open store, the executor, the loaded models and their identities, and
the notes for the reader of the report.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from asraudit.audit.spec import AuditSpec
from asraudit.data.corpus import Corpus
from asraudit.models.candidate_check import ScoreWindow, shortest_window
from asraudit.run.grid import Identity
from asraudit.terminal_text import one_line
from asraudit.run.store import ResultStore


@dataclass
class AuditContext:
    spec: AuditSpec
    out: Path
    corpus: Corpus                    # the selected clips
    store: ResultStore                # open for the whole audit
    executor: object                  # LocalExecutor or RayExecutor
    normalize: Callable[[str], str]
    panel: list[str] = field(default_factory=list)   # names of the models that mine reference errors
    # name -> loaded model (local executor) or zero-argument factory (Ray)
    models: dict[str, object] = field(default_factory=dict)
    identities: dict[str, Identity] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    progress: bool = True
    # name -> the longest clip the model scores (None: any length; audit.prepare asks the loaded models)
    score_seconds: dict[str, float | None] = field(default_factory=dict)

    def score_window(self, names) -> ScoreWindow | None:
        """The shortest scoring window among the named models (a Whisper's 30 s), None if none has one."""
        return shortest_window({n: self.score_seconds.get(n) for n in names})

    def log(self, message: str) -> None:
        print(f"asraudit: {one_line(message)}", file=sys.stderr, flush=True)

    def log_jobs(self, label: str, stats, stored: str = "stored") -> None:
        """One line per model of a run (``RunSummary.models``): the jobs it ran now and found stored.

        Each line is named by the model's own id and configuration in the run, never by position: a
        stage's run may hold fewer models than the stage names (its scoring runs only the models that can
        score), and pairing by position put one model's jobs under another's name."""
        by_run = {(i.model_id, i.config_hash): name for name, i in self.identities.items()}
        by_id = self.names_by_id()  # a scoring run's configuration may differ from the transcribing one's
        for st in stats:
            name = by_run.get((st.model_id, st.config_hash)) or by_id.get(st.model_id, st.model_id)
            self.log(f"{name}: {label}: {st.jobs_run} job(s) run now, {st.jobs_done_before} {stored}")

    def note(self, message: str) -> None:
        """Something the reader of the report must know (a probe skipped, a model left out)."""
        self.notes.append(message)
        self.log(message)

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

    def names_by_id(self) -> dict[str, str]:
        """model id -> the audit's name for it (probes report model ids)."""
        return {ident.model_id: name for name, ident in self.identities.items()}

    def chosen(self, names) -> tuple[list, list]:
        """The loaded models (or factories) and identities of ``names``."""
        return [self.models[n] for n in names], [self.identities[n] for n in names]
