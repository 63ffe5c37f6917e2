"""Case 221: the parts of an ``AuditSpec`` (its models, corpus, executor, report) changed in Python, then run.

Case 57 checked an ``AuditSpec`` changed with ``dataclasses.replace`` at its
top level; the specs inside it were taken as they came.  A ``ModelSpec`` with
``spec=5`` was an ``AttributeError``, ``name=3`` a ``TypeError`` after the
store was written, ``options=[...]`` a ``TypeError`` from ``dict()``, and
``panel="no"`` made the model a panel member (a non-empty string is true);
``CorpusSpec(limit=-1)`` silently dropped the last clip (a slice), a
``predictions`` path given as a str was ``AttributeError: 'str' object has
no attribute 'suffix'``; ``ExecutorSpec(batch_size=0)`` stopped the audit
inside its first stage with a partial summary written, and ``kind="bogus"``
left an empty output folder; ``ReportSpec(flag_accept_ref=2.0)`` (a flag that
can never fire) and ``max_edits_shown=-1`` ran; ``corpus=None`` was an
``AttributeError``.  Now each part is checked by the rules a spec file's
table is read with, before anything is written; a path as a str is a path.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from asraudit import InputError, parse_spec, run_audit
from asraudit.audit.spec import ProbeSection
from asraudit.probes.lift_probe import LiftParams

from conftest import files_under, panel_files

ROWS = [(f"c{i}", f"madam president the report number {i} is late",
         f"the report number {i} is late") for i in range(4)]


@pytest.fixture()
def spec(tmp_path):
    folder = panel_files(tmp_path / "p", ROWS)
    return parse_spec({"name": "t", "out": str(tmp_path / "out"), "corpus": {"predictions": str(folder / "m1.jsonl")},
                       "model": [{"predictions": str(folder / f"{m}.jsonl"), "panel": True}
                                 for m in ("m1", "m2", "m3")]})


def first_model(audit, **change):
    return {"models": (replace(audit.models[0], **change),) + audit.models[1:]}


@pytest.mark.parametrize(("change", "message"), [
    (lambda s: first_model(s, spec=5), "AuditSpec.models[0].spec is a model's name or a path (a str), got 5"),
    (lambda s: first_model(s, name=3), "AuditSpec.models[0].name is a label (a non-empty str) or None, got 3"),
    (lambda s: first_model(s, panel="no"), "AuditSpec.models[0].panel must be true or false, got 'no'"),
    (lambda s: first_model(s, options=["beam_size", 2]),
     "AuditSpec.models[0].options is a dict of the model's options, got list"),
    (lambda s: {"corpus": replace(s.corpus, limit=-1)}, "AuditSpec.corpus: limit must be at least 1, got -1"),
    (lambda s: {"corpus": None}, "AuditSpec.corpus is a CorpusSpec, got NoneType"),
    (lambda s: {"executor": replace(s.executor, batch_size=0)},
     "AuditSpec.executor: batch_size must be at least 1, got 0"),
    (lambda s: {"executor": replace(s.executor, kind="bogus")},
     "AuditSpec.executor: kind must be local, ray or ray:ADDRESS, got 'bogus'"),
    (lambda s: {"report": replace(s.report, flag_accept_ref=2.0)},
     "AuditSpec.report: flag_accept_ref must be in [0.0, 1.0], got 2.0"),
    (lambda s: {"report": replace(s.report, max_edits_shown=-1)},
     "AuditSpec.report: max_edits_shown must be at least 0, got -1"),
    (lambda s: {"name": None}, "AuditSpec.name must be a string, got None"),
    (lambda s: {"lift": ProbeSection(LiftParams(max_edits=0))}, "AuditSpec.lift: max_edits must be at least 1, got 0"),
])
def test_a_changed_part_is_checked_before_anything_is_written(spec, tmp_path, change, message):
    before = files_under(tmp_path)
    with pytest.raises(InputError) as err:
        run_audit(replace(spec, **change(spec)), progress=False)
    assert str(err.value) == message
    assert files_under(tmp_path) == before and not (tmp_path / "out").exists()


def test_a_path_as_a_str_and_a_language_in_upper_case_are_taken(spec, tmp_path):
    corpus = replace(spec.corpus, predictions=str(spec.corpus.predictions), language="EN")
    result = run_audit(replace(spec, corpus=corpus), progress=False)
    assert result.summary_path.is_file() and sorted(result.flags) == ["m1", "m2", "m3"]
    assert result.summary["mining"]["clips"] == 4 and result.summary["provenance"]["spec"]["corpus"]["language"] == "en"
