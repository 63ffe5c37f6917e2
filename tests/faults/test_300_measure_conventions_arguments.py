"""Case 300: ``measure_conventions`` (``asraudit.probes.conventions_probe``, the entry ``asraudit conventions`` and
the audit's conventions stage call) checked none of its arguments, where the command checks its options:
``n_boot=-1`` gave every agreement interval as NaN, ``seed=None`` drew them from fresh entropy, ``n_boot=None``
was a ``TypeError``, ``rows`` of raw strings an ``AttributeError``, a dict of knobs for ``params`` an
``AttributeError``, ``min_per_arm=0`` (which the command refuses) was taken.  Now each is refused in one line
naming the argument, by the checks the other entries use (``check_resampling_args``, ``check_field_types``)."""

from __future__ import annotations

import math

import pytest

from asraudit import InputError
from asraudit.probes.conventions_probe import ConventionsParams, measure_conventions, text_pairs


def _rows():
    refs = {f"c{i}": "I paid 25 dollars on the 3rd of May, okay" for i in range(6)}
    hyps = {"m1": {cid: ("I paid $25 on the third of may ok" if i % 2 else refs[cid]) for i, cid in enumerate(refs)},
            "m2": {cid: refs[cid] for cid in refs}}
    return refs, hyps, text_pairs(refs, hyps)


@pytest.mark.parametrize("kwargs, message", [
    ({"n_boot": -1}, "n_boot must be at least 0, got -1"),
    ({"seed": -1}, "seed must be at least 0, got -1"),
    ({"seed": None}, "seed must be an integer of at least 0, got None: the resamples are drawn from this seed, so "
                     "that a rerun gives the same intervals"),
    ({"n_boot": None}, "n_boot must be an integer of at least 0, got None"),
    ({"params": {"min_per_arm": 2}}, "params is a ConventionsParams, got dict: ConventionsParams(**knobs) builds one "
                                     "from a dict"),
    ({"params": ConventionsParams(min_per_arm=0)}, "params.min_per_arm must be at least 1, got 0"),
    ({"params": ConventionsParams(min_per_arm=1.5)}, "min_per_arm must be an integer, got 1.5"),
])
def test_bad_arguments_are_refused(kwargs, message):
    with pytest.raises(InputError) as info:
        measure_conventions(_rows()[2], **kwargs)
    assert str(info.value) == message


def test_raw_texts_for_rows_are_refused():
    refs, hyps, _ = _rows()
    build = "text_pairs(references, transcripts) builds them from raw texts"
    with pytest.raises(InputError) as info:
        measure_conventions(list(refs.values()))
    assert str(info.value) == f"rows is a dict of model -> clip id -> TextPair ({build}), got list"
    with pytest.raises(InputError) as info:
        measure_conventions(hyps)
    assert str(info.value) == (f"rows['m1']['c0'] is a str, not a TextPair (a raw reference and hypothesis, each a "
                               f"str): {build}")


def test_good_arguments_still_measure():
    result = measure_conventions(_rows()[2], n_boot=200, seed=0)
    every = {(a.model, a.group): a for a in result.agreement}
    assert every[("m2", "all")].agree == every[("m2", "all")].rendered > 0
    assert all(not math.isnan(a.low) for a in result.agreement)
    assert measure_conventions(_rows()[2], n_boot=0).agreement[0].rendered == result.agreement[0].rendered
