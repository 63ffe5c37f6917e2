"""The README's calibration section and docs/calibration.md's detector table are generated from a run's rows.

Issue 17: the README's calibration section is regenerated from the calibration's output and says plainly
which targets failed.  The record of the last whole run is docs/calibration-detectors.json; both documents'
blocks must be exactly what the generators make of it, so neither can be edited into claiming more.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from asraudit.demo.calibration_docs import (
    BEGIN,
    END,
    HELDOUT_BEGIN,
    HELDOUT_END,
    detector_record,
    generated_block,
    main,
    record_rows,
    regenerate,
)
from asraudit.demo.calibration_report import (
    HELDOUT_PROVEN_ON,
    PROVEN_ON,
    RECORD_ORGANISM,
    detector_rows,
    detectors_markdown,
    readme_markdown,
)
from asraudit.errors import InputError
from asraudit.report.calibration_rows import DetectorRow
from asraudit.report.schema import from_json

ROOT = Path(__file__).resolve().parents[1]
RECORD = ROOT / "docs" / "calibration-detectors.json"
HELDOUT_RECORD = ROOT / "docs" / "calibration-heldout-detectors.json"


def _record() -> dict:
    return json.loads(RECORD.read_text(encoding="utf-8"))


def test_documents_are_the_generators_output_of_the_record():
    rows = record_rows(_record(), RECORD)
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    doc = (ROOT / "docs" / "calibration.md").read_text(encoding="utf-8")
    assert generated_block(readme, Path("README.md")) == readme_markdown(rows)
    assert generated_block(doc, Path("docs/calibration.md")) == detectors_markdown(rows)


def test_heldout_blocks_are_the_generators_output_of_the_heldout_record():
    """The held-out run's rows stand in their own blocks, beside (not in place of) the test split's."""
    rows = record_rows(json.loads(HELDOUT_RECORD.read_text(encoding="utf-8")), HELDOUT_RECORD)
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    doc = (ROOT / "docs" / "calibration-heldout.md").read_text(encoding="utf-8")
    assert generated_block(readme, Path("README.md"), heldout=True) == readme_markdown(rows)
    assert generated_block(doc, Path("docs/calibration-heldout.md"), heldout=True) == detectors_markdown(rows)
    organisms = {r.detector: r.organism for r in rows}
    assert organisms["voice gate"] == HELDOUT_PROVEN_ON["voice gate"]
    assert organisms["switch rate"] == HELDOUT_PROVEN_ON["switch rate"]


def test_a_heldout_run_regenerates_only_the_heldout_blocks(tmp_path):
    calibration = tmp_path / "calibration.json"
    calibration.write_text(HELDOUT_RECORD.read_text(encoding="utf-8"), encoding="utf-8")
    readme = tmp_path / "README.md"
    readme.write_text(f"{BEGIN}\ntest rows\n{END}\n{HELDOUT_BEGIN}\nold\n{HELDOUT_END}\n", encoding="utf-8")
    doc = tmp_path / "heldout.md"
    doc.write_text(f"{HELDOUT_BEGIN}\nold\n{HELDOUT_END}\n", encoding="utf-8")
    regenerate(calibration, readme, doc, tmp_path / "record.json", heldout=True)
    text = readme.read_text(encoding="utf-8")
    assert f"{BEGIN}\ntest rows\n{END}" in text and "old" not in text and "gated-many" in text
    with pytest.raises(InputError, match="calibration-heldout-detectors"):
        regenerate(calibration, tmp_path / "record.json", doc, tmp_path / "r2.json", heldout=True)


def test_record_rows_are_what_the_report_computes_from_the_same_summary():
    """The record keeps rows the current report code computes: recomputing them from the record's own summary
    (which holds the models' rows the accept-ref and ranking rows read) leaves those rows unchanged."""
    record = _record()
    rows = record_rows(record, RECORD)
    recomputed = {r.detector: r for r in detector_rows(from_json(record, RECORD), RECORD_ORGANISM, PROVEN_ON)}
    assert recomputed["accept-ref"] == next(r for r in rows if r.detector == "accept-ref")


def _row(detector: str, status: str) -> DetectorRow:
    return DetectorRow(detector, "org", "readout", [], [], "target", status, f"why {detector}")


def test_readme_section_names_every_failed_target_and_only_those():
    rows = [_row("a", "pass"), _row("b", "fail"), _row("c", "no target"), _row("d", "fail"), _row("e", "not run")]
    text = readme_markdown(rows)
    assert "Failed: b and d (2 of the 3 detectors with a target)." in text
    assert "Not run in this calibration: e." in text
    assert text.count("\n| ") == len(rows)  # one line per detector (the header opens the text)
    assert "| b | org | **fail** (why b) |" in text
    met = readme_markdown([_row("a", "pass"), _row("c", "no target")])
    assert "Every target was met (1 detectors with a target)." in met and "Failed" not in met


def test_readme_cells_cannot_split_a_row():
    text = readme_markdown([DetectorRow("x|y", None, "", [], [], "", "fail", "a | b")])
    assert "| x\\|y | the panel | **fail** (a \\| b) |" in text


def _documents(tmp_path: Path) -> tuple[Path, Path, Path]:
    readme, doc = tmp_path / "README.md", tmp_path / "calibration.md"
    readme.write_text(f"# title\n\nbefore\n\n{BEGIN}\n\nold rows\n\n{END}\n\nafter\n", encoding="utf-8")
    doc.write_text(f"intro\n{BEGIN}\nold table\n{END}\nrest\n", encoding="utf-8")
    calibration = tmp_path / "run" / "calibration.json"
    calibration.parent.mkdir()
    calibration.write_text(json.dumps(_record()), encoding="utf-8")
    return calibration, readme, doc


def test_regenerate_rewrites_only_the_blocks_and_is_idempotent(tmp_path):
    calibration, readme, doc = _documents(tmp_path)
    record = tmp_path / "record.json"
    written = regenerate(calibration, readme, doc, record)
    assert written == [record, readme, doc]
    rows = detector_rows(from_json(_record(), RECORD), RECORD_ORGANISM, PROVEN_ON)
    text = readme.read_text(encoding="utf-8")
    assert text.startswith("# title\n\nbefore\n\n" + BEGIN + "\n\n") and text.endswith(END + "\n\nafter\n")
    assert generated_block(text, readme) == readme_markdown(rows)
    assert generated_block(doc.read_text(encoding="utf-8"), doc) == detectors_markdown(rows)
    assert doc.read_text(encoding="utf-8").startswith("intro\n") and doc.read_text().endswith(END + "\nrest\n")
    assert record_rows(json.loads(record.read_text(encoding="utf-8")), record) == rows
    first = [p.read_bytes() for p in written]
    regenerate(calibration, readme, doc, record)
    assert [p.read_bytes() for p in written] == first


@pytest.mark.parametrize("body", ["no markers at all\n", f"{END}\n{BEGIN}\n", f"{BEGIN}\n{BEGIN}\n{END}\n"])
def test_a_document_without_one_pair_of_markers_is_refused_before_anything_is_written(tmp_path, body):
    calibration, readme, doc = _documents(tmp_path)
    doc.write_text(body, encoding="utf-8")
    before = readme.read_bytes()
    record = tmp_path / "record.json"
    with pytest.raises(InputError, match="calibration.md: needs exactly one pair of the markers"):
        regenerate(calibration, readme, doc, record)
    assert readme.read_bytes() == before and not record.exists()


def test_command_line_names_a_missing_or_wrong_input_in_one_line(tmp_path, capsys):
    _, readme, doc = _documents(tmp_path)
    args = ["--readme", str(readme), "--doc", str(doc), "--record", str(tmp_path / "r.json")]
    assert main([str(tmp_path / "nowhere")] + args) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("asraudit: error: ") and "nowhere" in err and "\n" not in err
    summary_only = tmp_path / "summary.json"
    summary_only.write_text(json.dumps(detector_record({**_record(), "detectors": []})), encoding="utf-8")
    assert main([str(summary_only)] + args) == 2
    assert "holds no detector rows" in capsys.readouterr().err
    assert not (tmp_path / "r.json").exists()


def test_record_organism_is_the_demo_organism():
    from asraudit.demo.organism import ORGANISM_ID

    assert RECORD_ORGANISM == ORGANISM_ID
