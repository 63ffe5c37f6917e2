"""Case 298: ``ResultStore.results(...)`` from Python filtered by a value no stored result has, or by what is not
a str: the audit's label for a model (``model_id="m1"``, stored as ``replay:m1``), a typo in a configuration hash
or a condition, ``model_id=3``, ``model_id=["replay:m1"]``; ``store.get(None)``.

Case 65 refused a misspelt ``task``; any other filter that matched nothing returned ``[]``, read as "that model
has no results" (``results(model_id="m1")`` of an audit whose m1 ran every clip), silently; a list was
``cannot use the result store (Error binding parameter 1: type 'list' is not supported)``, which blamed the store;
``get(None)`` was ``AttributeError: 'NoneType' object has no attribute 'key'``.  Now a filter value no result has
is one line naming it and listing the values the store holds (asked only once a query found no row), a value
that is not a str is refused before the store is read; filters that each match rows but not together still
give ``[]``.
"""

from __future__ import annotations

import pytest

from asraudit import InputError, ResultStore, run_audit

from conftest import panel_files

ROWS = [(f"c{i}", f"well the cat sat on mat {i}", f"the cat sat on mat {i}") for i in range(3)]


@pytest.fixture(scope="module")
def store_path(tmp_path_factory):
    tmp_path = tmp_path_factory.mktemp("audit")
    folder = panel_files(tmp_path / "p", ROWS)
    run_audit({"name": "t", "out": str(tmp_path / "out"), "corpus": {"predictions": str(folder / "m1.jsonl")},
               "model": [{"predictions": str(folder / f"{m}.jsonl"), "panel": True} for m in ("m1", "m2", "m3")]},
              progress=False)
    return tmp_path / "out" / "asraudit.sqlite"


def test_a_value_no_result_has_is_refused_naming_what_is_stored(store_path):
    with ResultStore(store_path) as store:
        config = store.results()[0].config_hash
        for kwargs, said in [
            ({"model_id": "m1"}, "no stored result has model_id 'm1' (a model is stored under its own id, not an "
                                 "audit's label: replay:NAME for a prediction file); the store holds model_id "
                                 "replay:m1, replay:m2, replay:m3"),
            ({"config_hash": "abc"}, f"no stored result has config_hash 'abc'; the store holds config_hash {config}"),
            ({"model_id": "replay:m1", "condition_id": "orig"},
             "no stored result has condition_id 'orig'; the store holds condition_id original"),
        ]:
            with pytest.raises(InputError) as err:
                store.results(**kwargs)
            assert str(err.value) == f"{store_path}: {said}"


@pytest.mark.parametrize(("kwargs", "said"), [
    ({"model_id": 3}, "model_id is a str (the model_id a result was stored under), got 3"),
    ({"model_id": ["replay:m1"]}, "model_id is a str (the model_id a result was stored under), got ['replay:m1']"),
    ({"condition_id": b"original"}, "condition_id is a str (the condition_id a result was stored under), got "
                                    "b'original'"),
])
def test_a_filter_that_is_not_a_str_is_refused(store_path, kwargs, said):
    with ResultStore(store_path) as store:
        with pytest.raises(InputError) as err:
            store.results(**kwargs)
    assert str(err.value) == said


def test_get_of_what_is_no_job_is_refused(store_path):
    with ResultStore(store_path) as store:
        for job in (None, 3):
            with pytest.raises(InputError) as err:
                store.get(job)
            assert str(err.value) == f"job is a Job or its key (a str), got {job!r}"


def test_filters_that_match_go_as_before(store_path):
    with ResultStore(store_path) as store:
        assert len(store.results(model_id="replay:m1", condition_id="original")) == 3
        assert store.results(model_id="replay:m1", task="score") == []  # each matches, not together
        first = store.results()[0]
        assert store.get(first.job_key) == first
