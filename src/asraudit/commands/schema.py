"""`asraudit schema`: the JSON Schema of an audit's summary.json (generated from the typed result)."""

from __future__ import annotations

import argparse
import json

from asraudit.data.paths import ensure_writable_file, output_file, write_text_whole
from asraudit.errors import InputError
from asraudit.report.schema import audit_file_kind, summary_schema
from asraudit.report.summary import SCHEMA_VERSION


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "schema",
        help="print the JSON Schema of an audit's summary.json",
        description=f"The JSON Schema (draft 2020-12) of summary.json, layout version {SCHEMA_VERSION} (the file's "
                    "schema_version key). Generated from the audit's typed result, so it is the layout the writer "
                    "writes.",
    )
    p.add_argument("--out", type=output_file, metavar="FILE", help="write the schema to FILE instead of printing it")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if args.out:
        ensure_writable_file(args.out, "--out")
        kind = audit_file_kind(args.out)
        if kind is not None:  # case 310: the schema was written over it, exit 0
            raise InputError(f"--out is {kind}, finished work the schema would replace: write the schema to "
                             "another file (summary.schema.json)", args.out)
    text = json.dumps(summary_schema(), indent=1, ensure_ascii=False) + "\n"
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        write_text_whole(args.out, text)
        print(f"wrote {args.out}")
    else:
        print(text, end="")
    return 0
