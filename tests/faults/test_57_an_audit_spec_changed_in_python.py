"""Case 57: an ``AuditSpec`` changed in Python with ``dataclasses.replace`` (or built by hand), then run.

``run_audit`` takes a parsed ``AuditSpec``; ``replace`` skips every check
``parse_spec`` makes.  ``out="x"`` (a str) was ``AttributeError: 'str' object
has no attribute 'exists'``; ``bootstrap=1.5`` and ``seed=-1`` were numpy's
``TypeError`` / ``ValueError`` after every model had run, with the store
and a partial summary.json written; ``bootstrap=-1`` silently meant no
intervals (a spec file refuses it); ``refdis=RefdisParams(min_run_len=1.5)``
stopped the audit after transcription; ``refdis={...}`` and
``normalizer="WHISPER"`` were an ``AttributeError`` and a ``ValueError``.
Now the spec is checked as a spec file's entries are, before anything is
written; ``out`` as a str is taken as a path.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from asraudit import InputError, RefdisParams, parse_spec, run_audit

from conftest import files_under, panel_files

ROWS = [(f"c{i}", f"well the cat sat on mat {i}", f"the cat sat on mat {i}") for i in range(4)]


@pytest.fixture()
def spec(tmp_path):
    folder = panel_files(tmp_path / "p", ROWS)
    return parse_spec({"name": "t", "out": str(tmp_path / "out"), "corpus": {"predictions": str(folder / "m1.jsonl")},
                       "model": [{"predictions": str(folder / f"{m}.jsonl"), "panel": True}
                                 for m in ("m1", "m2", "m3")]})


@pytest.mark.parametrize(("change", "message"), [
    ({"bootstrap": -1}, "AuditSpec.bootstrap must be at least 0, got -1"),
    ({"bootstrap": 1.5}, "AuditSpec.bootstrap must be an integer, got 1.5"),
    ({"seed": -1}, "AuditSpec.seed must be at least 0, got -1"),
    ({"refdis": RefdisParams(min_run_len=1.5)}, "AuditSpec.refdis: min_run_len must be an integer, got 1.5"),
    ({"refdis": RefdisParams(majority=0)}, "AuditSpec.refdis: --majority must be in (0, 1], got 0"),
    ({"refdis": {"majority": 0.6}}, "AuditSpec.refdis is a RefdisParams, got dict: RefdisParams(**knobs) builds one "
                                    "from a dict"),
    ({"normalizer": "WHISPER"}, "AuditSpec.normalizer must be one of whisper, basic, none, leaderboard, basic-es, "
                                "basic-fr, basic-de, basic-it, basic-nl, basic-pl, basic-pt, got 'WHISPER'"),
    ({"out": None}, "AuditSpec.out is a path (a str or pathlib.Path), got None"),
])
def test_a_changed_spec_is_checked_before_anything_is_written(spec, tmp_path, change, message):
    before = files_under(tmp_path)
    with pytest.raises(InputError) as err:
        run_audit(replace(spec, **change), progress=False)
    assert str(err.value) == message
    assert files_under(tmp_path) == before


def test_out_as_a_string_is_a_path(spec, tmp_path):
    result = run_audit(replace(spec, out=str(tmp_path / "other")), progress=False)
    assert result.summary_path == tmp_path / "other" / "summary.json" and result.summary_path.is_file()
    assert sorted(result.flags) == ["m1", "m2", "m3"]
