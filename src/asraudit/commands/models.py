"""`asraudit models`: the model backends and the embedded models present."""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict

from asraudit.models.registry import available_models
from asraudit.report.tables import render_table


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "models",
        help="list model backends and embedded models",
        description="Model backends (with the extra that installs each) and the embedded models present.",
    )
    p.add_argument("--json", action="store_true", help="print the catalogue as JSON")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    catalog = available_models()
    if args.json:
        print(json.dumps(asdict(catalog), indent=2))
        return 0
    render_table(
        ["backend", "model spec", "installed", "extra", "what"],
        [(b.name, b.spec, "yes" if b.available else "no", b.requires, b.description) for b in catalog.backends],
        title="Backends",
        right_align=[False] * 5,
    )
    print(file=sys.stdout)
    render_table(
        ["embedded model", "present", "wheels", "what"],
        [(m.name, "yes" if m.present else "no", m.wheels, m.description) for m in catalog.embedded],
        title="Embedded models (use the name as --model)",
        right_align=[False] * 4,
    )
    return 0
