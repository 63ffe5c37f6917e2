"""The miner's knobs, ``MinerParams``, in a module of their own.

The miner (``probes.refdis``) and its vote counting (``probes.refdis_votes``)
both read them; keeping them apart from both lets each import them without
importing the other.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from asraudit.arguments import check_field_types, names
from asraudit.errors import InputError


def distinct_panel(panel) -> list[str]:
    """The panel as a list, refused when a model is named twice (its vote would count twice, or the panel
    would count members it does not have) or when it is one string rather than names (``arguments.names``)."""
    panel = names(panel, "the panel")
    twice = sorted({name for name in panel if panel.count(name) > 1})
    if twice:
        raise InputError(f"the panel names {', '.join(twice)} more than once; each member votes once: "
                         "list each model once")
    return panel


@dataclass(frozen=True)
class MinerParams:
    """Knobs of the full miner: the one set of defaults every front end (CLI, audit, mechanism) starts from.

    ``metadata`` gives the range a spec checks (``asraudit.audit.spec`` maps a
    ``[refdis]`` table onto these fields)."""

    # the paper's; with 4 members all 4 must agree, with 5 it is 4: never a 2-2 split
    majority: float = field(default=0.8, metadata={"range": (0.0, 1.0)})
    # a single wrong reference word is a reference error
    min_run_len: int = field(default=1, metadata={"minimum": 1})
    # interior edits are most of VoxPopuli's errors; positions are reported, so boundary-only is one column away
    include_middle: bool = True
    # a model matching less than half the reference is not transcribing the clip and agrees with edits by accident
    min_ref_match: float = field(default=0.5, metadata={"range": (0.0, 1.0)})
    # a substitution within 30% character distance of the reference is spelling or spacing, not the audio
    min_consensus_cer: float = field(default=0.30, metadata={"range": (0.0, None)})
    # two agreeing models are too easily one shared bias
    min_panel: int = field(default=3, metadata={"minimum": 2})
    # a member is judged by edits mined without it, so its own vote never makes the edit it is judged on
    leave_one_out: bool = True

    def validate(self) -> None:
        check_field_types(self)  # built by hand: min_run_len=1.5 mined nothing, include_middle="no" was true
        if not 0 < self.majority <= 1:
            raise InputError(f"--majority must be in (0, 1], got {self.majority}")
        if self.min_run_len < 1:
            raise InputError(f"--min-run-len must be at least 1, got {self.min_run_len}")
        if not 0 <= self.min_ref_match <= 1:
            raise InputError(f"--min-ref-match must be in [0, 1], got {self.min_ref_match}")
        if not self.min_consensus_cer >= 0:  # NaN too: no distance is below NaN, so it would drop nothing
            raise InputError(f"--min-consensus-cer must be >= 0, got {self.min_consensus_cer}")
        if self.min_panel < 2:
            raise InputError(f"--min-panel must be at least 2, got {self.min_panel}")

    def threshold(self, n_panel: int) -> int:
        """Followers an edit needs; the 1e-9 keeps 0.8 x 5 from rounding up to 5."""
        return max(2, math.ceil(self.majority * n_panel - 1e-9))


def checked_params(params: object, name: str = "params") -> MinerParams:
    """``params`` validated, refused in one line when it is not a ``RefdisParams`` (``MinerParams``) at all: a
    dict of knobs or None was ``AttributeError: 'dict' object has no attribute 'validate'``."""
    if not isinstance(params, MinerParams):
        hint = ": RefdisParams(**knobs) builds one from a dict" if isinstance(params, dict) else ""
        raise InputError(f"{name} is a RefdisParams, got {type(params).__name__}{hint}")
    params.validate()
    return params
