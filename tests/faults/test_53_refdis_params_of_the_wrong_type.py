"""Case 53: ``RefdisParams`` built by hand in Python with a value of the wrong type.

A spec's ``[refdis]`` table is checked field by field (``min_run_len =
1.5`` is ``[refdis]: min_run_len must be an integer, got 1.5``), but the
dataclass built in Python only had its ranges checked: ``min_run_len=1.5``
mined no edit at all (a run of 1 word is shorter than 1.5), ``min_panel=2.5``
and ``min_run_len=nan`` passed (NaN is below nothing), ``include_middle="no"``
and ``leave_one_out="false"`` were true, silently; ``majority="0.8"`` was
``TypeError: '<' not supported between instances of 'int' and 'str'``.  Now
``validate()`` (which every miner call runs) checks the types through the
very checks the spec reader uses, before any file is read.
"""

from __future__ import annotations

import pytest

from asraudit import InputError, RefdisParams, accept_ref_from_predictions, load_predictions, parse_spec

from conftest import panel_files

ROWS = [(f"c{i}", f"well the cat sat on mat {i}", f"the cat sat on mat {i}") for i in range(4)]


@pytest.fixture(scope="module")
def preds(tmp_path_factory):
    return load_predictions(panel_files(tmp_path_factory.mktemp("preds"), ROWS))


@pytest.mark.parametrize(("knob", "message"), [
    ({"min_run_len": 1.5}, "min_run_len must be an integer, got 1.5"),
    ({"min_run_len": float("nan")}, "min_run_len must be an integer, got nan"),
    ({"min_run_len": True}, "min_run_len must be an integer, got True"),
    ({"min_panel": 2.5}, "min_panel must be an integer, got 2.5"),
    ({"include_middle": "no"}, "include_middle must be true or false, got 'no'"),
    ({"leave_one_out": "false"}, "leave_one_out must be true or false, got 'false'"),
    ({"majority": "0.8"}, "majority must be an integer or a number, got '0.8'"),
    ({"min_consensus_cer": None}, "min_consensus_cer must be an integer or a number, got None"),
    # ranges as before, NaN among them, in the command's words
    ({"majority": float("nan")}, "--majority must be in (0, 1], got nan"),
    ({"min_run_len": 0}, "--min-run-len must be at least 1, got 0"),
])
def test_a_knob_of_the_wrong_type_is_refused_before_any_file_is_read(preds, knob, message):
    with pytest.raises(InputError) as err:
        accept_ref_from_predictions(preds, ["m1", "m2", "m3"], RefdisParams(**knob))
    assert str(err.value) == message
    with pytest.raises(InputError) as err:  # the file is never opened
        accept_ref_from_predictions("no/such/folder", ["m1", "m2", "m3"], RefdisParams(**knob))
    assert str(err.value) == message


def test_the_spec_says_it_as_before_and_good_knobs_still_mine(preds, tmp_path):
    panel_files(tmp_path, ROWS)
    spec = {"corpus": {"predictions": "m1.jsonl"}, "model": [{"predictions": "m1.jsonl"}]}
    with pytest.raises(InputError) as err:
        parse_spec({**spec, "refdis": {"min_run_len": 1.5}}, base=tmp_path)
    assert str(err.value) == "<spec>: [refdis]: min_run_len must be an integer, got 1.5"
    with pytest.raises(InputError) as err:
        parse_spec({**spec, "refdis": {"include_middle": "no"}}, base=tmp_path)
    assert str(err.value) == "<spec>: [refdis]: include_middle must be true or false, got 'no'"
    assert parse_spec({**spec, "refdis": {"min_run_len": 2}}, base=tmp_path).refdis.min_run_len == 2
    params = RefdisParams(majority=1, min_run_len=1, min_panel=3, include_middle=False, min_consensus_cer=0)
    assert len(accept_ref_from_predictions(preds, ["m1", "m2", "m3"], params).edits) == 4  # ints for floats go
