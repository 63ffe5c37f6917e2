"""Case 62: a clip listed twice from Python: ``score_model(..., clip_ids=["c1", "c1"])``, a clip twice in ``measure_refdis``.

The clip counted twice in every sum, silently: ``score_model`` scored two
clips (its errors and words doubled in the corpus WER and its interval), and
``measure_refdis`` mined the clip's edits twice (7 edits for 6).  As a panel
naming one model twice (case 18), it is now one line before anything is
counted.
"""

from __future__ import annotations

import pytest

from asraudit import InputError, clip_inputs, get_normalizer, load_predictions, measure_refdis, score_model

from conftest import panel_files

ROWS = [(f"c{i}", f"well the cat sat on mat {i}", f"the cat sat on mat {i}") for i in range(3)]


@pytest.fixture(scope="module")
def preds(tmp_path_factory):
    return load_predictions(panel_files(tmp_path_factory.mktemp("p"), ROWS))


def test_score_model(preds):
    with pytest.raises(InputError) as err:
        score_model(preds.models["m1"], "whisper", clip_ids=["c1", "c0", "c1"], n_boot=0)
    assert str(err.value) == "clip_ids names clip 'c1' twice (at 0 and 2): each clip counts once: list it once"
    assert score_model(preds.models["m1"], "whisper", clip_ids=["c1", "c0"], n_boot=0).score.clips == 2


def test_measure_refdis(preds):
    clips = clip_inputs(preds.references(), {m: {c: p.hypothesis for c, p in preds.models[m].rows.items()}
                                             for m in preds.model_names}, get_normalizer("whisper"))
    with pytest.raises(InputError) as err:
        measure_refdis(clips + clips[:1], ["m1", "m2", "m3"], scored=["m1"], n_boot=0)
    assert str(err.value) == "clips names clip 'c0' twice (at 0 and 3): each clip counts once: list it once"
    assert len(measure_refdis(clips, ["m1", "m2", "m3"], scored=["m1"], n_boot=0).edits) == 3
