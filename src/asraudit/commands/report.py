"""`asraudit report`: render report.html again from an audit's summary.json, without running anything.

The file is read back as the typed summary (``report.schema.read_summary``:
checked against the published schema first, so a file of another layout
fails with one line naming it) and rendered by the same code the audit
uses, so the page is the audit's own.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from asraudit.report.schema import read_summary
from asraudit.report.summary import SCHEMA_VERSION
from asraudit.data.paths import ensure_outputs_apart, ensure_writable_file, output_file, write_text_whole
from asraudit.errors import InputError
from asraudit.report.html import render_report


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "report",
        help="render report.html from an audit's summary.json",
        description=f"Render the HTML report of an audit from its summary.json (layout {SCHEMA_VERSION}; see "
                    "`asraudit schema`). Nothing is run and no model is loaded.",
    )
    p.add_argument("summary", type=Path, help="an audit's summary.json, or the audit's folder that holds it")
    p.add_argument("--out", type=output_file, metavar="FILE",
                   help="where to write the page (default: report.html beside the summary)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if args.summary.is_dir():  # the audit's folder, as `asraudit audit` and `demo` print it
        if not (args.summary / "summary.json").is_file():
            raise InputError("a folder without a summary.json: give an audit's summary.json or its out folder",
                             args.summary)
        args.summary = args.summary / "summary.json"
    out = args.out or args.summary.parent / "report.html"
    ensure_writable_file(out, "report")
    # The summary is the audit's record: the page is rendered from it again at will, never the other way round.
    ensure_outputs_apart([("--out" if args.out else "the page's default name (report.html beside it)", out)],
                         [("the summary.json it renders", args.summary)],
                         fix="write the page to another file" if args.out else "name the page with --out FILE")
    summary = read_summary(args.summary)   # checked before anything is written
    out.parent.mkdir(parents=True, exist_ok=True)
    write_text_whole(out, render_report(summary))
    print(f"wrote {out}")
    return 0
