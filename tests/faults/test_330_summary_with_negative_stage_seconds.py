"""Case 330: ``asraudit report`` over a summary.json edited by hand (or by a tool) to a negative time:
``stage_seconds`` (``{"transcribe": -3.5}``) or a stage's ``timing`` (``wall_s: -1``, ``overhead_share: 1.5``).

The report rendered the page, exit 0, its times read back as if measured: the layout's ranges (case 114) bounded
counts, rates and WERs, but a range given to a mapping's field was merged into the object and bounded none of its
values, and a stage's timing had none.  Now each value of ``stage_seconds`` and each duration of a stage's timing
is at least 0 (its overhead share in [0, 1]), one line naming the file and the place.
"""

from __future__ import annotations

import json

import pytest

from conftest import text_only_audit_summary

LAYOUT = "not a summary.json of layout 2.4"


@pytest.fixture(scope="module")
def summary(tmp_path_factory):
    path = text_only_audit_summary(tmp_path_factory.mktemp("audit"), n_clips=4, bootstrap=10)
    return json.loads(path.read_text(encoding="utf-8"))


def _report(cli, tmp_path, summary, change):
    data = json.loads(json.dumps(summary))
    change(data)
    path = tmp_path / "summary.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return cli("report", path, "--out", tmp_path / "page.html"), path


def test_control_the_file_as_written_renders(summary, cli, tmp_path):
    assert summary["stage_seconds"] and summary["timing"]["stages"]["prepare"]["wall_s"] >= 0
    ran, _ = _report(cli, tmp_path, summary, lambda d: None)
    assert ran.code == 0, ran.err


CASES = {
    "negative stage_seconds": (lambda d: d["stage_seconds"].update(transcribe=-3.5),
                               "at stage_seconds/transcribe: -3.5 is less than the minimum of 0"),
    "negative wall_s": (lambda d: d["timing"]["stages"]["prepare"].update(wall_s=-1),
                        "at timing/stages/prepare/wall_s: -1 is less than the minimum of 0"),
    "negative total cpu_s": (lambda d: d["timing"]["total"].update(cpu_s=-0.5),
                             "at timing/total/cpu_s: -0.5 is less than the minimum of 0"),
    "an overhead share above 1": (lambda d: d["timing"]["stages"]["prepare"].update(overhead_share=1.5),
                                  "at timing/stages/prepare/overhead_share: 1.5 is greater than the maximum of 1"),
}


@pytest.mark.parametrize("case", CASES)
def test_a_negative_time_is_refused_naming_the_field(summary, cli, tmp_path, case):
    change, message = CASES[case]
    ran, path = _report(cli, tmp_path, summary, change)
    assert (ran.code, ran.error_lines) == (2, [f"asraudit: error: {path}: {LAYOUT}: {message}"])
    assert not (tmp_path / "page.html").exists()
