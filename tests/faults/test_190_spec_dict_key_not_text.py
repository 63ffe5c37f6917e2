"""Case 190: an audit spec given from Python as a dict with a key that is not a string (``{1: 2}``, an option
table ``{2: 1}``): the unknown-key check stopped with ``TypeError: sequence item 0: expected str instance, int
found``, a traceback.  Now one line naming where the key is, before anything is read."""

from __future__ import annotations

import pytest

from asraudit import InputError, parse_spec, run_audit


def _spec(**extra):
    return {"corpus": {"manifest": "m.jsonl"}, "model": [{"spec": "whisper-tiny.en"}], **extra}


def test_a_top_level_key_that_is_a_number(tmp_path):
    with pytest.raises(InputError) as caught:
        parse_spec({1: 2, **_spec()}, base=tmp_path)
    assert str(caught.value) == "<spec>: spec: a key is 1 (int): every key of a spec is a string, as in the TOML file"


def test_a_nested_key_is_named_where_it_is(tmp_path):
    spec = _spec()
    spec["model"][0]["options"] = {2: 1}
    with pytest.raises(InputError) as caught:
        run_audit(spec, out=tmp_path / "out", progress=False)
    assert str(caught.value) == ("<spec dict>: spec.model[0].options: a key is 2 (int): every key of a spec is a string, "
                                 "as in the TOML file")
    assert not (tmp_path / "out").exists()
