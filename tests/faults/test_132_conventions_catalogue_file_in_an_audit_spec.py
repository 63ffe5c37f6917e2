"""Case 132: `[conventions] language = "FILE"` (a family file) in an audit spec.

The file was read only by the conventions stage, after every model had run, and from the working directory
rather than the spec's folder: `--check` passed a missing file, a typo (`"xx"`) and a broken family file, and
the audit stopped at the conventions stage (`fam.toml: no such family file` when run from another folder).
Now the file is found beside the spec and read when the spec is read, so `--check` refuses it.
"""

from __future__ import annotations

import dataclasses

import pytest

from asraudit.audit.pipeline import run_audit
from asraudit.audit.spec import load_spec
from asraudit.errors import InputError
from asraudit.probes.conventions_probe import ConventionsParams

from conftest import write_preds

CLIPS = [(f"c{i}", f"Mr Smith met Mister Jones on day {i}", f"Mister Smith met Mister Jones on day {i}")
         for i in range(6)]
FAMILY = '[[family]]\nname = "mr"\nclass = "honorific"\narms = ["Mr", "Mister"]\nforms = [["Mr", "Mister"]]\n'


def _spec(folder, language: str):
    folder.mkdir()
    for k in range(3):
        write_preds(folder / f"m{k}.jsonl", [(c, r, h if k else r) for c, r, h in CLIPS])
    (folder / "fam.toml").write_text(FAMILY, encoding="utf-8")
    (folder / "bad.toml").write_text('[[family]]\nname = "x"\n', encoding="utf-8")
    spec = folder / "audit.toml"
    models = "".join(f'[[model]]\npredictions = "m{k}.jsonl"\npanel = true\n\n' for k in range(3))
    spec.write_text(f'name = "t"\nout = "out"\nbootstrap = 20\n[corpus]\npredictions = "m0.jsonl"\n\n{models}'
                    f'[refdis]\nmajority = 0.66\nmin_panel = 2\n[conventions]\nlanguage = "{language}"\n'
                    'min_per_arm = 1\n', encoding="utf-8")
    return spec


@pytest.mark.parametrize("language, message", [
    ("xx", "language 'xx' is neither a built-in catalogue (en, es, fr, de, it, nl, pl, pt) nor a family file: "
           "no such file {folder}/xx"),
    ("missing.toml", "language 'missing.toml' is neither a built-in catalogue (en, es, fr, de, it, nl, pl, pt) "
                     "nor a family file: no such file {folder}/missing.toml"),
    ("bad.toml", "language: {folder}/bad.toml: family #1 ('x'): 'class' must be a non-empty string"),
])
def test_check_refuses_a_catalogue_the_stage_would_stop_on(cli, tmp_path, monkeypatch, language, message):
    folder = tmp_path / "a"
    spec = _spec(folder, language)
    monkeypatch.chdir(tmp_path)  # another folder than the spec's
    r = cli("audit", spec, "--check")
    assert r.code == 2
    assert r.error_lines == [f"asraudit: error: a/audit.toml: [conventions]: {message.format(folder='a')}"]
    r = cli("audit", spec, "--no-progress")
    assert r.code == 2 and "stage transcribe" not in r.err
    assert not (folder / "out").exists()


def test_a_family_file_is_found_beside_the_spec(cli, tmp_path, monkeypatch):
    spec = _spec(tmp_path / "a", "fam.toml")
    monkeypatch.chdir(tmp_path)
    assert cli("audit", spec, "--check").code == 0
    r = cli("audit", spec, "--no-progress")
    assert r.code == 0, r.err
    import pandas as pd

    table = pd.read_parquet(tmp_path / "a" / "out" / "tables" / "conventions.parquet")
    assert sorted(table["group"]) == ["mr", "mr", "mr"]


def test_a_spec_changed_in_python_is_checked_before_any_work(tmp_path, monkeypatch):
    spec = load_spec(_spec(tmp_path / "a", "fam.toml"))
    monkeypatch.chdir(tmp_path)
    changed = dataclasses.replace(spec, conventions=ConventionsParams(language="nope.toml"))
    with pytest.raises(InputError) as err:
        run_audit(changed, progress=False)
    assert str(err.value) == "AuditSpec.conventions: language: nope.toml: no such family file"
    assert not (tmp_path / "a" / "out").exists()
