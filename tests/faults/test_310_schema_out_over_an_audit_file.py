"""Case 310: `asraudit schema --out` naming one of an audit's own files, as a completed path one word off gives:
`out/summary.json` (the schema "of summary.json"), the result store `out/asraudit.sqlite`, a table
`out/tables/*.parquet`.  The schema was written over it, exit 0 (`wrote out/summary.json`): the audit's summary,
its store of every model result, or a table, replaced by 50 KB of JSON Schema.  Now such a file is named from its
first bytes and refused before anything is written; a file the schema wrote before, a new file and a stream are
written as before."""

from __future__ import annotations

import pytest
from conftest import write_preds

ROWS = [(f"c{i}.wav", f"mr smith said the cat sat on mat {i}", f"mister smith said the cat sat on the mat {i}")
        for i in range(4)]
FIX = "finished work the schema would replace: write the schema to another file (summary.schema.json)"


@pytest.fixture(scope="module")
def audit_out(tmp_path_factory):
    """The out folder of a small text-only audit (three replayed panel models)."""
    from asraudit.cli import main

    root = tmp_path_factory.mktemp("audit")
    models = ""
    for i in range(3):
        write_preds(root / f"m{i}.jsonl", ROWS)
        models += f'[[model]]\npredictions = "{root / f"m{i}.jsonl"}"\npanel = true\n\n'
    spec = root / "audit.toml"
    spec.write_text(f'name = "t"\nout = "{root / "out"}"\nbootstrap = 20\n[corpus]\npredictions = '
                    f'"{root / "m0.jsonl"}"\n\n{models}', encoding="utf-8")
    assert main(["audit", str(spec), "--no-progress"]) == 0
    return root / "out"


@pytest.mark.parametrize("name, kind", [
    ("summary.json", "an audit's summary.json"),
    ("asraudit.sqlite", "an SQLite database (the audit's result store, asraudit.sqlite?)"),
    ("tables", "a Parquet table (one of the audit's tables?)"),
])
def test_an_audit_file_is_not_written_over(audit_out, cli, name, kind):
    path = audit_out / name
    if name == "tables":
        path = sorted(path.glob("*.parquet"))[0]
    before = path.read_bytes()
    ran = cli("schema", "--out", path)
    assert (ran.code, ran.out) == (2, "")
    assert ran.error_lines == [f"asraudit: error: {path}: --out is {kind}, {FIX}"]
    assert path.read_bytes() == before


def test_a_schema_written_before_is_written_again(tmp_path, cli):
    out = tmp_path / "summary.schema.json"
    for _ in range(2):
        ran = cli("schema", "--out", out)
        assert ran.code == 0 and ran.out == f"wrote {out}\n"
    assert out.read_text(encoding="utf-8").startswith('{\n "$schema"')
