"""The demo audit (`asraudit demo`): every probe on a small part of parliament-mini, and every detector's row.

The demo is the calibration in miniature.  Its spec (``demo/data/demo_audit.toml``) audits fifteen test sentences
in all seven voices with the clean embedded models as the panel and every model organism under suspicion,
and it runs the calibration's own extra stage (mining against the planted truth, the mixed-arm and voice-cue
switch rates, accept-ref voice by voice, masked recovery by voice role), so that the calibration report's
rows (``calibration_report.detector_rows``) can be read on it: each detector on the organism built for it,
next to the clean models, with issue 17's target.  A user sees in a few minutes which detector fires on its
positive control and which does not, before auditing models of their own.
"""

from __future__ import annotations

from pathlib import Path

from asraudit.audit.pipeline import run_audit
from asraudit.audit.results import AuditResult
from asraudit.audit.spec import load_spec
from asraudit.demo.calibrate import truth_stage, write_detector_outputs
from asraudit.demo.organism import BENCHMARK_DIR
from asraudit.report.summary import Summary

DEMO_SPEC = BENCHMARK_DIR.parent / "demo_audit.toml"


def run_demo_audit(out: Path, progress: bool = True, spec_path: Path | None = None) -> tuple[AuditResult, Summary]:
    """The demo audit (``spec_path``: the embedded spec) into ``out``; summary.json carries the detector rows
    too, detectors.md holds them as Markdown."""
    result = run_audit(load_spec(spec_path or DEMO_SPEC, out=out), progress=progress, extra=truth_stage)
    return result, write_detector_outputs(result, out, "summary.json", "detectors.md")
