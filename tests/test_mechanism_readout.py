"""The experiment readout, on stand-in models whose behaviour is known (no torch, no weights).

A corpus with planted reference errors, a panel that transcribes the audio,
and three variants: a baseline that follows the audio, an intervention that
writes the reference's errors, and a control that changes nothing.  The
readout must say exactly that.
"""

from __future__ import annotations

import numpy as np
import pytest

from asraudit.data.corpus import Clip
from asraudit.data.predictions import ModelPredictions, Prediction, PredictionSet
from asraudit.errors import InputError
from asraudit.commands.steer import readout_rows
from asraudit.mechanism.experiment import Variant, parse_audio_source, readout, run_variants
from asraudit.run.store import ResultStore

SPOKEN = {
    "c1": "the cat sat on the mat today",
    "c2": "we walked to the river and back",
    "c3": "she read the letter twice before noon",
    "c4": "they painted the fence bright green",
}
# Each reference adds a word that was not said (a planted "delete" edit).
REFERENCE = {cid: text + " indeed" for cid, text in SPOKEN.items()}


class TextModel:
    """Answers each clip (recognised by its length) with a fixed text."""

    def __init__(self, name: str, texts: dict[str, str]):
        self.model_id = name
        self._by_length = {int(cid[1:]) * 1000: text for cid, text in texts.items()}

    @property
    def config_hash(self) -> str:
        return "h-" + self.model_id

    def transcribe(self, audio):
        return [self._by_length[len(a)] for a in audio]


@pytest.fixture()
def clips():
    return [Clip(cid, np.zeros(int(cid[1:]) * 1000, dtype=np.float32), REFERENCE[cid]) for cid in SPOKEN]


@pytest.fixture()
def panel():
    models = {}
    for name in ("p1", "p2", "p3"):
        rows = {cid: Prediction(cid, REFERENCE[cid], SPOKEN[cid], 1.0, i) for i, cid in enumerate(SPOKEN, 1)}
        models[name] = ModelPredictions(name, None, rows)
    return PredictionSet(models)


def test_readout_counts_accept_ref_changes_and_relative_change_per_variant(tmp_path, clips, panel):
    variants = [
        Variant("baseline", "baseline", TextModel("follows-audio", SPOKEN)),
        Variant("writes reference", "intervention", TextModel("follows-ref", REFERENCE)),
        Variant("no-op control", "control", TextModel("same-as-baseline", SPOKEN), control_of="writes reference"),
    ]
    with ResultStore(tmp_path / "s.sqlite") as store:
        summary = run_variants(store, variants, clips)
        assert summary.jobs_run == 12
        results = readout(store, variants, clips, panel=panel, panel_models=["p1", "p2", "p3"], n_boot=50)
        again = run_variants(store, variants, clips)
        assert again.jobs_run == 0  # everything was stored
    base, steered, control = results
    assert (base.accept.n_ref, base.accept.n_eligible) == (0, 4)
    assert (steered.accept.n_ref, steered.accept.n_eligible) == (4, 4)
    assert (control.accept.n_ref, control.accept.n_eligible) == (0, 4)
    assert steered.changed == 4 and control.changed == 0 and base.changed == 0
    # WER is against the benchmark's references: writing their errors *lowers* it.
    assert base.wer.rate == pytest.approx(4 / 31) and steered.wer.rate == 0.0
    # Relative change is undefined against a zero baseline; the difference in points is not.
    assert steered.relative_change(base) != steered.relative_change(base)
    assert steered.accept_difference(base) == 1.0
    assert control.relative_change(steered) == -1.0
    columns, rows = readout_rows(results)
    assert rows[1][columns.index("ref/eligible")] == "4/4" and rows[1][columns.index("Δ points")] == "+100.0"
    assert rows[2][columns.index("role")] == "control"


def test_readout_without_a_panel_still_reports_wer_and_changes(tmp_path, clips):
    variants = [Variant("baseline", "baseline", TextModel("a", SPOKEN)),
                Variant("other", "intervention", TextModel("b", REFERENCE))]
    with ResultStore(tmp_path / "s.sqlite") as store:
        run_variants(store, variants, clips)
        base, other = readout(store, variants, clips, n_boot=20)
    assert base.accept is None and other.changed == 4


def test_variants_with_the_same_configuration_are_refused(tmp_path, clips):
    model = TextModel("a", SPOKEN)
    with ResultStore(tmp_path / "s.sqlite") as store, pytest.raises(InputError, match="same model configuration"):
        run_variants(store, [Variant("baseline", "baseline", model), Variant("again", "intervention", model)], clips)


@pytest.mark.parametrize("spec, expected", [
    ("silence", "silence"),
    ("noise:10:3", "noise(kind=white,seed=3,snr_db=10.0)"),
    ("mask:0.5-1.25", "mask(fill=silence,guard=0.05,pad=0.02,t0=0.5,t1=1.25)"),
])
def test_audio_sources_parse_to_conditions_with_stable_ids(spec, expected):
    assert parse_audio_source(spec).id == expected


@pytest.mark.parametrize("spec", ["noise", "mask:a-b", "reverb:1", "audio:/no/such/file.wav"])
def test_bad_audio_sources_are_input_errors(spec):
    with pytest.raises(InputError):
        parse_audio_source(spec)
