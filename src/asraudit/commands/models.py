"""`asraudit models`: the model families, the backends and the embedded models present.

The family table comes from ``models/families.py``: what each architecture
can do (transcribe, score, white-box sites) and a spec entry that points at
it.  A folder saved with ``save_pretrained`` or a hub id (``hf:ORG/NAME``)
is recognised by the ``model_type`` in its config.json, so the example's
hub id can be replaced by a local folder of the same family.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict

from asraudit.models.families import families
from asraudit.models.registry import available_models, broken_plugins
from asraudit.report.tables import render_table
from asraudit.terminal_text import warn


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "models",
        help="list model families, backends and embedded models",
        description="Model families (recognised from a folder's config.json or a hub id), backends (with the "
                    "extra that installs each) and the embedded models present.",
    )
    p.add_argument("--json", action="store_true", help="print the catalogue as JSON")
    p.set_defaults(func=run)


def family_rows() -> list[dict]:
    """One dict per family, in table order (listed families, then the generic fallbacks)."""
    return [
        {"family": f.name, "kind": f.kind, "model_types": list(f.model_types), "transcribe": f.transcribe,
         "score": f.score, "whitebox_sites": f.whitebox_sites, "example": f.example}
        for f in families()
    ]


def run(args: argparse.Namespace) -> int:
    catalog = available_models()
    rows = family_rows()
    for line in broken_plugins():
        warn(f"{line}: its models are not listed; every other model works")
    if args.json:
        print(json.dumps({"families": rows, **asdict(catalog)}, indent=2))
        return 0
    render_table(
        ["family", "kind", "transcribe", "score", "white-box sites", "example spec"],
        [(r["family"], r["kind"], r["transcribe"], r["score"], r["whitebox_sites"], r["example"]) for r in rows],
        title="Model families (spec = \"hf:ORG/NAME\" or a save_pretrained folder; recognised by its config)",
        right_align=[False] * 6,
    )
    print("A folder holding only a PEFT adapter (adapter_config.json) loads through its base model's family, "
          "the adapter merged in (needs peft).", file=sys.stdout)
    print(file=sys.stdout)
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
