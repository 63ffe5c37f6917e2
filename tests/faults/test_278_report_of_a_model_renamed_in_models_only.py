"""Case 278: ``asraudit report`` over a summary.json in which a model was renamed by hand in ``models`` (its headline
row) but not in the sections that name it too (accept-ref by kind, the WER ranking, the mining panel, the edits,
masked, lift, battery, conventions, translation rows).  The page was written with exit 0 and showed the model
under both names, as two models: the headline row under the new name, every other section under the old.  As
cases 114 and 249, a summary the page cannot be drawn from faithfully is refused, in one line naming the place."""

from __future__ import annotations

import json

import pytest

from conftest import text_only_audit_summary

LAYOUT = "not a summary.json of layout 2.4"


@pytest.fixture(scope="module")
def summary(tmp_path_factory):
    path = text_only_audit_summary(tmp_path_factory.mktemp("audit"), n_clips=6, bootstrap=20)
    return json.loads(path.read_text(encoding="utf-8"))


def report(cli, tmp_path, data):
    path = tmp_path / "summary.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return cli("report", path, "--out", tmp_path / "page.html"), path


def test_a_model_renamed_in_models_only_is_refused(summary, cli, tmp_path):
    data = json.loads(json.dumps(summary))
    data["models"] = {("renamed" if name == "m3" else name): row for name, row in data["models"].items()}
    ran, path = report(cli, tmp_path, data)
    assert ran.code == 2, ran.err
    assert ran.error_lines == [f"asraudit: error: {path}: {LAYOUT}: at accept_ref_by_kind/m3: 'm3' is not one of "
                               "models (m0, m1, m2, renamed): a section names each audited model as models does"]
    assert not (tmp_path / "page.html").exists()


def test_a_model_renamed_in_a_section_only_is_refused(summary, cli, tmp_path):
    data = json.loads(json.dumps(summary))
    data["mining"]["panel"] = ["m0", "m1", "zzz"]
    ran, path = report(cli, tmp_path, data)
    assert ran.error_lines == [f"asraudit: error: {path}: {LAYOUT}: at mining/panel/2: 'zzz' is not one of "
                               "models (m0, m1, m2, m3): a section names each audited model as models does"]


def test_renamed_everywhere_renders(summary, cli, tmp_path):
    text = json.dumps(summary).replace('"m3"', '"renamed"')
    ran, _ = report(cli, tmp_path, json.loads(text))
    assert ran.code == 0, ran.err
    assert "renamed" in (tmp_path / "page.html").read_text(encoding="utf-8")
