"""`asraudit audit SPEC.toml`: the whole audit from one spec, to summary.json, Parquet tables and report.html."""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from pathlib import Path

from asraudit.audit.outputs import print_summary
from asraudit.audit.pipeline import run_audit
from asraudit.audit.prepare import prepare
from asraudit.audit.spec import load_spec
from asraudit.audit.results import build_summary
from asraudit.commands.common import real_or_none
from asraudit.data.paths import output_folder
from asraudit.display_paths import display_path
from asraudit.terminal_text import one_line


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "audit",
        help="run a whole audit from a TOML spec: every probe, summary.json, Parquet tables, report.html",
        description="Check the spec (models, files, probes) before any work, run every model call through the "
                    "result store (resumable; a rerun is free), evaluate the probes, and write <out>/summary.json, "
                    "<out>/tables/*.parquet and <out>/report.html. See asraudit.audit.spec for the spec format.",
    )
    p.add_argument("spec", type=Path, metavar="SPEC.toml", help="the audit spec")
    p.add_argument("--out", type=output_folder, metavar="DIR", help="output folder (default: the spec's out)")
    p.add_argument("--check", action="store_true", help="only check the spec (loads the models, runs nothing)")
    p.add_argument("--no-progress", action="store_true", help="no progress bars")
    p.add_argument("--audio-budget-mb", type=_megabytes, metavar="MB",
                   help="clip audio embedded in report.html up to this many MB, the rest linked as files in "
                        "<out>/report-audio/ (default: the spec's [report] audio_budget_mb, 20)")
    p.set_defaults(func=run)


def print_outputs(result, file=None) -> None:
    file = file or sys.stdout
    here = Path.cwd()  # paths as the user would type them from here, not the machine's layout
    print(f"wrote {display_path(result.summary_path, here)}", file=file)
    for path in result.tables:
        print(f"wrote {display_path(path, here)}", file=file)
    print(f"audit finished in {result.seconds:.1f} s", file=file)
    print(f"report: {display_path(result.report_path, here)}", file=file)


def _megabytes(text: str) -> float:
    value = real_or_none(text)  # None (as NaN is) for what float() cannot read; a stray '_' is refused (case 336)
    if value is None or not value >= 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"expected a size in MB, 0 or more, got {text!r}")
    return value


def run(args: argparse.Namespace) -> int:
    spec = load_spec(args.spec, out=args.out)
    if args.audio_budget_mb is not None:
        spec = replace(spec, report=replace(spec.report, audio_budget_mb=args.audio_budget_mb))
    if args.check:
        ready = prepare(spec)
        print(one_line(f"{args.spec}: ok: {len(ready.corpus)} clips, models {', '.join(ready.identities)}, "
                       f"panel {', '.join(ready.panel)}"))
        return 0
    result = run_audit(spec, progress=not args.no_progress)
    print_summary(build_summary(result))
    print_outputs(result)
    return 0
