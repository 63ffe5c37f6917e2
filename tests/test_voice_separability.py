"""The voice-separability readout (asraudit.demo.voice_separability) on fabricated encoder states.

The encoder is replaced by points whose first coordinate is the voice: the readout learned benchmark vs
negatives on train rows must read each test voice by which side of that boundary it lies on."""

import numpy as np
import pytest

from asraudit.demo.voice_separability import fit_logistic, negative_rows, read_voices


def _rows_and_states(positions: dict[tuple[str, str, str], float], clips: int = 6, seed: int = 0):
    rng = np.random.default_rng(seed)
    rows, points = [], []
    for (voice, role, split), x in positions.items():
        for i in range(clips):
            rows.append({"speaker": voice, "voice_role": role, "split": split, "sentence": f"{split}{i}"})
            points.append([x + 0.1 * rng.standard_normal(), rng.standard_normal(), rng.standard_normal()])
    return rows, {0: np.array(points), 1: -np.array(points)}


def test_a_fresh_voice_on_the_benchmark_side_is_read_as_benchmark_and_one_on_the_other_side_is_not():
    rows, states = _rows_and_states({
        ("bench-a", "benchmark", "train"): 2.0, ("bench-b", "benchmark", "train"): 2.5,
        ("ctrl", "control", "train"): -2.0,
        ("bench-a", "benchmark", "test"): 2.0,
        ("near", "fresh", "test"): 1.5,   # nearer the benchmark voices than the negatives
        ("far", "fresh", "test"): -3.0,   # beyond the negatives
    })
    reads = read_voices(states, rows)
    got = {(r.layer, r.voice): r.read_as_benchmark for r in reads}
    for layer in (0, 1):  # layer 1 mirrors layer 0: a linear readout is indifferent to the sign
        assert got[(layer, "bench-a")] == 1.0
        assert got[(layer, "near")] == 1.0
        assert got[(layer, "far")] == 0.0
    assert {r.clips for r in reads} == {6}
    assert [r.voice for r in reads if r.layer == 0] == ["bench-a", "near", "far"]  # test voices, in row order


def test_the_readout_needs_negatives_among_the_train_rows():
    rows, states = _rows_and_states({("bench-a", "benchmark", "train"): 2.0, ("near", "fresh", "test"): 1.5})
    with pytest.raises(ValueError, match="benchmark voices and negatives"):
        read_voices(states, rows)


def test_the_logistic_readout_separates_separable_points():
    x = np.array([[-2.0, 0.0], [-1.0, 0.5], [1.0, -0.5], [2.0, 0.0]])
    w, b = fit_logistic(x, np.array([0.0, 0.0, 1.0, 1.0]))
    assert list(x @ w + b > 0) == [False, False, True, True]


def test_the_negatives_of_each_recipe():
    assert negative_rows("control") == []
    gated = negative_rows("gated")
    assert {r["voice_role"] for r in gated} == {"disguised", "extra control"}
    assert all(r["split"] == "train" for r in gated)  # no test sentence is a negative
    assert len(negative_rows("gated-many")) > len(gated)
    with pytest.raises(ValueError, match="negatives must be one of"):
        negative_rows("fresh")


def test_apart_on_unseen_sentences_reads_each_layer_on_the_sentences_it_did_not_learn_from():
    from asraudit.demo.voice_separability import apart_on_unseen_sentences

    rows, states = _rows_and_states({("bench-a", "benchmark", "test"): 2.0, ("near", "fresh", "test"): -2.0,
                                     ("ctrl", "control", "train"): 0.0}, clips=8)
    # layer 0 separates the voices; layer 1 is made pure noise, where the readout is not right on every clip (5/8)
    states[1] = np.random.default_rng(1).standard_normal(states[1].shape)
    got = apart_on_unseen_sentences(states, rows, "test", "fresh")
    assert got[0] == 1.0 and got[1] < 1.0
    with pytest.raises(ValueError, match="benchmark and control voices"):
        apart_on_unseen_sentences(states, rows, "train", "control")


def test_a_model_it_cannot_load_is_one_line_and_exit_2(capsys):
    from asraudit.demo.voice_separability import main

    assert main(["--model", "no-such-whisper"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "no-such-whisper" in err[0] and err[0].startswith("voice_separability: error:")
