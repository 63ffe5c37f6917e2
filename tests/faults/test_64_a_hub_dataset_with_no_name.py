"""Case 64: ``hf:`` with no dataset name: ``load_corpus("hf:")``, ``dataset = "hf:"`` in an audit spec.

``datasets`` was asked for a dataset named "" and failed with an
``IndexError``, worded as a lost connection: ``: cannot load dataset
(IndexError: list index out of range); a hub dataset needs a connection or a
local copy``, naming no spec or key.  Now it is one line saying what is
missing, before anything is fetched.
"""

from __future__ import annotations

import pytest

from asraudit import InputError, load_corpus, parse_spec

from conftest import write_preds


def test_load_corpus():
    for spec in ("hf:", "hf:  "):
        with pytest.raises(InputError) as err:
            load_corpus(spec)
        assert str(err.value) == "hf: names no dataset: write hf:NAME (a hub id) or give a saved dataset folder"


def test_an_audit_spec(tmp_path):
    write_preds(tmp_path / "m.jsonl", [("c0", "a", "a")])
    with pytest.raises(InputError) as err:
        parse_spec({"corpus": {"dataset": "hf:"}, "model": [{"predictions": "m.jsonl"}]}, base=tmp_path)
    assert str(err.value) == "<spec>: [corpus]: dataset: hf: names no dataset: write hf:NAME (a hub id) or a saved " \
                             "dataset folder"
