"""Transducer beam search on tiny random Parakeet TDT and RNN-T models loaded through the user's path.

What can fail here: beam 1 must be the greedy decoder (same labels, same
path score, same lattice flag); a wider beam's best hypothesis must score
at least the greedy path (on these clips; beam search gives no such
guarantee in general, so a failure means a search that loses the greedy
path's mass, which these random models make easy); the exact forward
log-likelihood of the beam's text must be finite and, for a complete
lattice path, at least the beam's own score (the beam keeps a subset of
its alignments); transcripts do not depend on the batch; the beam size is
part of the config hash.
"""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

from asraudit.errors import InputError  # noqa: E402
from asraudit.models.hf_transducer import HFTransducer  # noqa: E402
from asraudit.models.registry import load_model  # noqa: E402

from test_models_hf_transducer import clips, save_tiny  # noqa: E402
from tolerances import LOGPROB_RTOL  # why relative: see tests/tolerances.py

BEAM = 4


@pytest.fixture(scope="module", params=["tdt", "rnnt"])
def models(request, tmp_path_factory):
    folder = str(save_tiny(tmp_path_factory.mktemp(f"tiny-beam-{request.param}"), request.param))
    greedy = load_model(folder)
    loaded = (greedy.processor, greedy.model, greedy._torch)
    return greedy, HFTransducer(folder, beam_size=1, _loaded=loaded), HFTransducer(folder, beam_size=BEAM, _loaded=loaded)


def test_beam_one_is_the_greedy_decoder(models):
    greedy, one, _ = models
    audio = clips(4) + clips(2, seconds=1.1, seed=9)
    for clip in audio:
        ((g_labels, g_logp, g_complete),) = greedy.greedy_alignments([clip])
        ((b_labels, b_logp, b_complete),) = one.beam_alignments([clip])
        assert b_labels == g_labels and b_complete == g_complete
        # The same float32 joint, one row vs one row: float noise only (relative bound, tests/tolerances.py).
        assert b_logp == pytest.approx(g_logp, rel=LOGPROB_RTOL, abs=1e-6)
    assert one.transcribe(audio) == greedy.transcribe(audio)


def test_wider_beam_scores_at_least_greedy_and_its_text_scores_exactly(models):
    greedy, _, wide = models
    audio = clips(4) + clips(2, seconds=1.1, seed=9) + clips(2, seed=21)
    differs = complete = 0
    for clip, (g_labels, g_logp, _), (b_labels, b_logp, b_complete) in zip(
            audio, greedy.greedy_alignments(audio), wide.beam_alignments(audio)):
        assert b_logp >= g_logp - LOGPROB_RTOL * abs(g_logp) - 1e-6
        differs += b_labels != g_labels
        ((per_label, end),) = wide.label_logprobs(clip, [b_labels])
        exact = per_label.sum() + end
        assert np.isfinite(exact)
        if b_complete:
            complete += 1
            assert exact >= b_logp - LOGPROB_RTOL * abs(b_logp) - 1e-6
    assert complete >= 1, "no beam output was a complete lattice path: the forward bound was not compared"
    assert differs >= 1, "the beam never left the greedy path: the bound was only compared with itself"


def test_beam_transcripts_are_batch_invariant(models):
    _, _, wide = models
    audio = clips(3) + clips(1, seconds=0.7, seed=5)
    assert wide.transcribe(audio) == [wide.transcribe([a])[0] for a in audio]


def test_beam_size_is_in_the_config_hash_and_checked(models):
    greedy, one, wide = models
    assert len({greedy.config_hash, wide.config_hash}) == 2
    assert one.config_hash == greedy.config_hash  # beam_size=1 is the default: the same decoder, the same hash
    with pytest.raises(InputError, match="at least 1"):
        HFTransducer(greedy.source, beam_size=0, _loaded=(greedy.processor, greedy.model, greedy._torch))
