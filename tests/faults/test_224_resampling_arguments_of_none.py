"""Case 224: ``seed=None`` or ``n_boot=None`` given to the Python API (numpy's habit: None for "no seed").

Case 33 refused a negative seed or count, but None passed the check:
``corpus_wer(refs, hyps, seed=None)`` (also ``corpus_cer``, ``score_model``,
``measure_refdis``, ``accept_ref_from_predictions``) drew every interval from
fresh entropy, so the same call on the same texts gave other bounds each
time, with no word, where every number asraudit prints is reproducible from
its seed; ``n_boot=None`` was ``TypeError: '>' not supported between
instances of 'NoneType' and 'int'`` (in ``accept_ref_from_predictions``
after the files were read).  Now each is one line naming the argument,
before any work; ``accept_ref_boot=None`` (documented: as ``n_boot``) and
numpy integers still go.
"""

from __future__ import annotations

import numpy as np
import pytest

from asraudit import accept_ref_from_predictions, corpus_cer, corpus_wer, load_predictions, score_model

from conftest import panel_files, refusal_message

REFS = [f"the cat sat on the mat number {i}" for i in range(30)]
HYPS = [r.replace("cat", "hat") if i % 3 == 0 else r for i, r in enumerate(REFS)]
ROWS = [(f"c{i}", f"madam president the report number {i} is late", f"the report number {i} is late")
        for i in range(6)]
SEED = ("seed must be an integer of at least 0, got None: the resamples are drawn from this seed, so that a rerun "
        "gives the same intervals")


@pytest.fixture(scope="module")
def preds(tmp_path_factory):
    return load_predictions(panel_files(tmp_path_factory.mktemp("preds"), ROWS))


message = refusal_message


@pytest.mark.parametrize("score", [corpus_wer, corpus_cer])
def test_none_as_a_seed_or_a_count_is_refused(score):
    assert message(lambda: score(REFS, HYPS, n_boot=100, seed=None)) == SEED
    assert message(lambda: score(REFS, HYPS, n_boot=None)) == "n_boot must be an integer of at least 0, got None"


def test_none_in_score_model_and_accept_ref_from_predictions(preds):
    assert message(lambda: score_model(preds.models["m1"], "whisper", seed=None)) == SEED
    assert message(lambda: accept_ref_from_predictions("no/such/folder", ["m1", "m2", "m3"], seed=None)) == SEED
    assert message(lambda: accept_ref_from_predictions(preds, ["m1", "m2", "m3"], n_boot=None)) == \
        "n_boot must be an integer of at least 0, got None"


def test_a_seed_gives_the_same_interval_each_time_and_accept_ref_boot_none_is_n_boot(preds):
    first = corpus_wer(REFS, HYPS, n_boot=200, seed=np.int64(7)).interval
    assert corpus_wer(REFS, HYPS, n_boot=200, seed=7).interval == first
    panel = ["m1", "m2", "m3"]
    as_n_boot = accept_ref_from_predictions(preds, panel, n_boot=50, accept_ref_boot=None)
    assert as_n_boot.accept_ref == accept_ref_from_predictions(preds, panel, n_boot=50, accept_ref_boot=50).accept_ref
