"""`asraudit demo --print-spec` prints a spec that runs where it is saved.

The embedded spec names its corpus, battery, truth file and a splice's other
speech relative to its own folder inside the package; printed as it ships, a
copy saved elsewhere failed ``--check`` until each path was edited.  The printed copy names them by
absolute path and is otherwise the shipped file, comments included.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

from asraudit.audit.spec import load_spec
from asraudit.cli import main
from asraudit.demo.organism import BENCHMARK_DIR

SHIPPED = BENCHMARK_DIR.parent / "demo_audit.toml"


def test_the_printed_spec_checks_from_another_folder(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(["demo", "--print-spec"]) == 0
    printed = capsys.readouterr().out
    (tmp_path / "my_audit.toml").write_text(printed, encoding="utf-8")
    spec = tomllib.loads(printed)
    assert Path(spec["corpus"]["manifest"]).is_absolute() and Path(spec["corpus"]["manifest"]).is_file()
    assert Path(spec["battery"]["spec"]).is_absolute() and Path(spec["battery"]["spec"]).is_file()
    load_spec(tmp_path / "my_audit.toml")  # the whole spec checked: every path it names is there
    shipped = SHIPPED.read_text(encoding="utf-8").splitlines()
    changed = [(a, b) for a, b in zip(shipped, printed.splitlines()) if a != b]
    assert len(printed.splitlines()) == len(shipped)
    assert [a for a, _ in changed] == ['manifest = "parliament_mini/test.jsonl"', 'spec = "demo_battery.toml"',
                                       'truth = "parliament_mini/truth.json"',
                                       'splice = { other = "corpus:other_speech/manifest.jsonl", donors = { field = '
                                       '"voice_role", value = "benchmark" }, seconds = 6 }']
    assert spec["mechanism"][-1]["splice"]["other"] == "corpus:" + str(SHIPPED.parent / "other_speech/manifest.jsonl")


def test_the_documented_complete_example_is_the_shipped_spec():
    doc = (Path(__file__).resolve().parents[1] / "docs" / "audit-spec.md").read_text(encoding="utf-8")
    example = doc.split("## A complete example", 1)[1].split("```toml\n", 1)[1].split("\n```", 1)[0]
    assert example + "\n" == SHIPPED.read_text(encoding="utf-8")
