"""Paired differences at several encoder layers in one pass, and directions from any subset of them.

A layer sweep and a pair-count sweep learn many directions from the same
pairs.  ``learn_direction`` would run the encoder once per direction; here
each pair's inputs go through the encoder once, every wanted layer's output
is pooled (as ``learn_direction`` pools it) and the per-pair differences are
kept, so each direction of a sweep is a cheap function of them: the
diff-in-means and principal directions of the chosen rows at the chosen
layer (``mechanism.steering.direction_from_differences``).  The inputs go in
chunks so that only a few ``[1500, d]`` activations are held at a time.
"""

from __future__ import annotations

import datetime as _dt
from typing import Sequence

import numpy as np

from asraudit.mechanism.steering import Direction, _pooled, check_learning_lengths, direction_from_differences
from asraudit.models.whitebox.frames import WHISPER_FRAMES, Frames, audio_frames
from asraudit.models.whitebox.sites import layer_index
from asraudit.version import __version__


def paired_differences(model, pairs: Sequence[tuple[np.ndarray, np.ndarray]], layers: Sequence[int], *,
                       frames: Frames = Frames("audio"), chunk: int = 8,
                       labels: Sequence[str] = ()) -> dict[int, np.ndarray]:
    """layer -> ``[n_pairs, d]``: positive minus negative, each pooled over ``frames`` of its own length.  An input
    longer than the model's window is refused first (``check_learning_lengths``, as ``learn_direction`` does): the
    encoder would pool its first window only."""
    if not pairs:
        raise ValueError("learning a direction needs at least one pair")
    check_learning_lengths(getattr(model, "window_seconds", None), pairs, labels, frames)
    n_layers = len(model.intervention_sites().encoder_layers)
    geometry = getattr(model, "frame_geometry", WHISPER_FRAMES)
    wanted = sorted({layer_index(layer, n_layers, "encoder") for layer in layers})
    out: dict[int, list[np.ndarray]] = {layer: [] for layer in wanted}
    for start in range(0, len(pairs), chunk):
        part = pairs[start: start + chunk]
        inputs = [np.asarray(a, dtype=np.float32) for pair in part for a in pair]
        acts = model.encoder_activations(inputs, wanted)
        for layer in wanted:
            for i in range(len(part)):
                pos, neg = inputs[2 * i], inputs[2 * i + 1]
                out[layer].append(_pooled(acts[layer][2 * i], frames, audio_frames(len(pos), geometry), geometry)
                                  - _pooled(acts[layer][2 * i + 1], frames, audio_frames(len(neg), geometry),
                                            geometry))
    return {layer: np.stack(rows) for layer, rows in out.items()}


def direction_of(differences: np.ndarray, layer: int, rank: int, provenance: dict) -> Direction:
    """A ``Direction`` from rows of paired differences, with the provenance ``learn_direction`` records."""
    vector, basis, spread = direction_from_differences(differences, rank)
    full = {"method": "diff-in-means" if rank == 1 else f"diff-in-means+pca(rank={rank})", "layer": layer,
            "n_pairs": int(differences.shape[0]),
            "created": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"), "asraudit": __version__,
            **provenance}
    return Direction(vector, basis, spread, layer, full)
