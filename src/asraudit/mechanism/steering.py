"""Steering directions: learned from paired inputs, saved with their provenance.

A direction answers "what changes in encoder layer L between these two kinds
of input?".  From pairs (positive, negative), e.g. a clip spliced with
benchmark donor audio vs the same clip spliced with other donor audio, it
takes each input's layer-L output averaged over the chosen frames, the
paired difference per pair, and:

* ``vector``: the mean paired difference (diff-in-means).  Adding it with
  alpha = 1 moves the average negative input onto the average positive one;
* ``basis``: an orthonormal rank-k basis whose first vector is the unit
  diff-in-means and whose others are the top principal directions of the
  paired differences once that first direction is removed.  Rank k therefore
  always contains rank 1, so ablating more directions never ablates less.

Why paired differences rather than two class means: pairing cancels what
the two members share (speaker, words, room), which would otherwise
dominate the principal directions.

A random control of the same norm (add) or the same rank (ablate) comes
from ``random_control``; an effect that the control also produces is not
the direction's.  Directions are saved as safetensors with their
provenance (model, layer, frames, pairs, time), and their id is a hash of
their content, so a model variant using one has a config hash that changes
whenever the direction does.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

import numpy as np

from asraudit.version import __version__
from asraudit.data.paths import written_whole
from asraudit.errors import InputError
from asraudit.models.whitebox.frames import WHISPER_FRAMES, FrameGeometry, Frames, audio_frames
from asraudit.models.whitebox.sites import layer_index
from asraudit.models.whitebox.steer_limits import scale_problem

FORMAT = "asraudit-direction/1"


# -- persistence shared by every kind of direction -----------------------------------


def save_tensors(path: str | Path, tensors: dict, format_: str, ident: str, layer: int, provenance: dict) -> Path:
    """Write ``tensors`` as safetensors with the format, id, layer and provenance; atomic (temp file, rename)."""
    from safetensors.numpy import save_file

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    metadata = {"format": format_, "id": ident, "layer": str(layer),
                "provenance": json.dumps(provenance, sort_keys=True)}
    with written_whole(path) as tmp:
        save_file({k: np.ascontiguousarray(v) for k, v in tensors.items()}, str(tmp), metadata=metadata)
    return path


def load_tensors(path: str | Path, format_: str, keys: tuple[str, ...], what: str) -> tuple[dict, dict]:
    """The ``keys`` tensors and the metadata of a file written by ``save_tensors`` in ``format_``."""
    from safetensors import safe_open

    path = Path(path)
    if not path.is_file():
        raise InputError("no such direction file", path)
    try:
        with safe_open(str(path), framework="numpy") as handle:
            metadata = handle.metadata() or {}
            if metadata.get("format") != format_:
                raise InputError(f"not {what} (format {metadata.get('format')!r})", path)
            tensors = {key: handle.get_tensor(key) for key in keys}
    except InputError:
        raise
    except Exception as exc:  # safetensors raises its own error types for corrupt files
        raise InputError(f"cannot read direction: {exc}", path) from exc
    for key, tensor in tensors.items():  # a NaN would turn every steered frame into NaN, and the transcript with it
        if not np.issubdtype(tensor.dtype, np.number) or not np.all(np.isfinite(tensor)):
            raise InputError(f"{what}'s tensor {key!r} holds values that are not finite numbers: the file is damaged; "
                             "learn it again", path)
    return tensors, metadata


def read_metadata(metadata: dict, path, what: str) -> tuple[int, dict]:
    """The layer and provenance a file written by ``save_tensors`` records, or one line saying which is damaged."""
    layer = metadata.get("layer")
    try:
        layer = int(layer)
    except (TypeError, ValueError):
        raise InputError(f"{what}: its metadata's layer is {layer!r}, not a layer number: the file is damaged or "
                         "was written by something else; learn it again", path) from None
    try:
        provenance = json.loads(metadata.get("provenance", "{}"))
    except ValueError as exc:
        raise InputError(f"{what}: its metadata's provenance is not JSON ({exc}): the file is damaged or was written "
                         "by something else; learn it again", path) from None
    if not isinstance(provenance, dict):
        raise InputError(f"{what}: its metadata's provenance is not a JSON object: the file is damaged or was "
                         "written by something else; learn it again", path)
    return layer, provenance


def check_id(ident: str, metadata: dict, path) -> None:
    """A loaded direction's content must hash to the id it was saved with."""
    if metadata.get("id") and metadata["id"] != ident:
        raise InputError(f"content does not match its recorded id {metadata['id']} (file changed?)", path)


@dataclass(frozen=True)
class Direction:
    """A diff-in-means vector and a rank-k orthonormal basis at one encoder layer."""

    vector: np.ndarray = field(repr=False)
    basis: np.ndarray = field(repr=False)
    singular_values: np.ndarray = field(repr=False)
    layer: int = 0
    provenance: dict = field(default_factory=dict)

    def __post_init__(self):
        # C order matters: safetensors writes the raw buffer, so a transposed
        # (Fortran-ordered) basis would be read back scrambled.
        vector = np.ascontiguousarray(self.vector, dtype=np.float32).reshape(-1)
        basis = np.ascontiguousarray(self.basis, dtype=np.float32)
        if basis.ndim != 2 or basis.shape[1] != vector.shape[0] or basis.shape[0] < 1:
            raise ValueError(f"basis must be [k, {vector.shape[0]}], got {basis.shape}")
        # Ablation removes (h . U^T) U, a projection only when U's rows are orthonormal: a basis of raw vectors
        # (a probe's weights, a direction not divided by its norm) would scale the activations along them by
        # 1 - |u|^2 instead, and the table called that an ablation.
        gram = basis.astype(np.float64) @ basis.T.astype(np.float64)
        off = float(np.max(np.abs(gram - np.eye(basis.shape[0])))) if np.all(np.isfinite(gram)) else float("inf")
        if not off <= 1e-3:
            norms = ", ".join(f"{n:.4g}" for n in np.sqrt(np.abs(np.diag(gram))))
            raise ValueError(f"its basis is not orthonormal (row norms {norms}; largest deviation of U U^T from the "
                             f"identity {off:.3g}), and ablation projects out orthonormal rows")
        object.__setattr__(self, "vector", vector)
        object.__setattr__(self, "basis", basis)
        object.__setattr__(self, "singular_values", np.ascontiguousarray(self.singular_values, dtype=np.float32).reshape(-1))

    @property
    def rank(self) -> int:
        return int(self.basis.shape[0])

    @property
    def norm(self) -> float:
        return float(np.linalg.norm(self.vector))

    @property
    def id(self) -> str:
        """``dir-`` + a hash of the numbers and the layer: equal content, equal id."""
        digest = hashlib.sha256()
        digest.update(str(self.layer).encode())
        for array in (self.vector, self.basis):
            digest.update(np.ascontiguousarray(array).tobytes())
        return "dir-" + digest.hexdigest()[:12]

    def component(self, hidden: np.ndarray, rank: int | None = None) -> np.ndarray:
        """Coordinates of ``hidden`` (``[..., d]``) along the first ``rank`` basis vectors."""
        return np.asarray(hidden) @ self.basis[: rank or self.rank].T

    # -- persistence ------------------------------------------------------

    def save(self, path: str | Path) -> Path:
        return save_tensors(path, {"vector": self.vector, "basis": self.basis, "singular_values": self.singular_values},
                            FORMAT, self.id, self.layer, self.provenance)

    @classmethod
    def load(cls, path: str | Path) -> "Direction":
        what = "an asraudit direction"
        tensors, metadata = load_tensors(path, FORMAT, ("vector", "basis", "singular_values"), what)
        layer, provenance = read_metadata(metadata, path, what)
        try:
            direction = cls(layer=layer, provenance=provenance, **tensors)
        except ValueError as exc:  # a basis whose width is not the vector's, or not orthonormal
            raise InputError(f"{what}: {exc}: the file is damaged; learn it again", path) from None
        check_id(direction.id, metadata, path)
        return direction

    def learned_on(self) -> str:
        """The model the provenance names, for messages ('another model' when it names none)."""
        model = self.provenance.get("model")
        return f"learned on {model}" if isinstance(model, str) and model else "learned on another model"

    # -- controls ---------------------------------------------------------

    def random_control(self, seed: int = 0) -> "Direction":
        """A random direction of the same norm and a random orthonormal basis of the same rank."""
        rng = np.random.default_rng(seed)
        d = self.vector.shape[0]
        vector = rng.standard_normal(d)
        vector *= self.norm / np.linalg.norm(vector)
        basis, _ = np.linalg.qr(rng.standard_normal((d, self.rank)))
        provenance = {"method": "random-control", "control_of": self.id, "seed": seed,
                      "model": self.provenance.get("model"), "model_config": self.provenance.get("model_config")}
        return Direction(vector, basis.T, self.singular_values.copy(), self.layer, provenance)


def check_encoder_direction(direction: Direction, path=None) -> None:
    """Refuse a direction learned at another site than the encoder (no model needed). An audit's decoder direction
    (site = "decoder", one direction for its positions) is saved in this format: given to ``steer induce`` it
    steered the encoder layer of its number, of the same width, without a word."""
    site = direction.provenance.get("site", "encoder")
    if site != "encoder":
        raise InputError(f"the direction was {direction.learned_on()} at {site} layer {direction.layer}, and asraudit "
                         "steer applies a direction at an encoder layer: a decoder direction is applied by an audit's "
                         "[[mechanism]] entry with site = \"decoder\"", path)


def alpha_label(alpha: float) -> str:
    """A steering scale as a variant's label shows it: ``%g`` (``1``, ``0.5``, ``2e+06``) where that is the number,
    else every digit: ``%g`` of 1000000 and 1000001 is ``1e+06`` both, and two variants of one label were refused
    (``variant labels repeat``) once the model had loaded, in an audit's last stage after every other."""
    short = f"{alpha:g}"
    return short if float(short) == float(alpha) else repr(float(alpha))


def refuse_repeated(option: str, values, shown=str) -> None:
    """A value given twice to an option that makes one variant (and its control) of each (``--alpha 1 --alpha 1.0``,
    ``--rank 1 --rank 1``): the two variants are one model configuration, refused as such only once the model had
    loaded; checked with the options."""
    seen: dict = {}
    for value in values or ():
        if value in seen:
            again = "" if shown(seen[value]) == shown(value) else f" (as {shown(seen[value])} before)"
            raise InputError(f"{option} {shown(value)} is given twice{again}: each value is one variant of the table, "
                             "with its control: give each once")
        seen[value] = value


def check_addable(direction: Direction, path=None, alphas: Sequence[float] = ()) -> None:
    """Refuse adding a direction whose vector is zero: the steered run would be the baseline and its random control
    (of the same norm) too, and the table reported an intervention that changed nothing; and a scale at which the
    added vector overflows float32 (``scale_problem``)."""
    if not np.any(direction.vector):
        raise InputError("the direction's vector is zero: adding it (and its random control, of the same norm) "
                         "changes nothing: the file is damaged or was built by hand; learn it again", path)
    for alpha in alphas:
        problem = scale_problem(alpha, direction.norm)
        if problem:
            raise InputError(f"--alpha {alpha:g}: {problem}")


def check_fits(direction: Direction, model, layer: int | None = None, path=None) -> int:
    """The encoder layer index ``direction`` acts at in ``model`` (``layer``, else the one it was learned at).

    Refuses, before any variant runs, a layer the model lacks and a direction of another width: the width
    mismatch was a torch ``RuntimeError`` from inside the steering hook once the baseline had run."""
    check_encoder_direction(direction, path)
    n_layers = len(model.intervention_sites().encoder_layers)
    name = getattr(model, "name", None) or model.model_id
    if layer is None and not -n_layers <= direction.layer < n_layers:
        raise InputError(f"the direction was {direction.learned_on()} at encoder layer {direction.layer}, which "
                         f"{name} does not have (its encoder has {n_layers} layers: 0..{n_layers - 1}): give --layer, "
                         "or a direction learned on this model", path)
    index = layer_index(direction.layer if layer is None else layer, n_layers, "encoder")
    width = getattr(model, "hidden_size", None)
    if width is not None and int(width) != direction.vector.shape[0]:
        raise InputError(f"the direction has width {direction.vector.shape[0]} ({direction.learned_on()}), but "
                         f"{name}'s encoder layers have width {width}: a direction applies only to a model of its "
                         "width", path)
    return index


def _pooled(activations: np.ndarray, frames: Frames, n_frames: int, geometry: FrameGeometry = WHISPER_FRAMES) -> np.ndarray:
    first, last = frames.bounds(n_frames, geometry=geometry)
    chosen = activations[first:last]
    if chosen.shape[0] == 0:
        raise ValueError(f"frames {frames.id} hold none of an input's {activations.shape[0]} encoder frames")
    return chosen.astype(np.float64).mean(axis=0)


def direction_from_differences(differences: np.ndarray, rank: int = 1) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(vector, basis, singular_values)`` from paired differences ``[n_pairs, d]``.

    ``singular_values[j]`` is the root-mean-square paired difference along
    basis vector j: how much of the difference each direction carries.
    """
    diffs = np.asarray(differences, dtype=np.float64)
    if diffs.ndim != 2 or diffs.shape[0] < 1:
        raise ValueError("need at least one paired difference")
    if not 1 <= rank <= min(diffs.shape[0], diffs.shape[1]):
        raise ValueError(f"rank {rank} needs at least {rank} pairs (got {diffs.shape[0]})")
    vector = diffs.mean(axis=0)
    norm = np.linalg.norm(vector)
    if norm == 0:
        raise ValueError("the paired differences average to zero: there is no direction to learn")
    first = vector / norm
    rows = [first]
    if rank > 1:
        residual = diffs - np.outer(diffs @ first, first)
        _, _, vt = np.linalg.svd(residual, full_matrices=False)
        rows.extend(vt[: rank - 1])
    # QR keeps the first vector's direction and makes the rest exactly orthonormal.
    q, r = np.linalg.qr(np.stack(rows).T)
    basis = (q * np.sign(np.diag(r))).T
    spread = np.sqrt(np.mean((diffs @ basis.T) ** 2, axis=0))
    return vector, basis, spread


def too_long_to_learn(window: float | None, lengths: Sequence[tuple[str, float]], frames: Frames) -> str | None:
    """Why learning pairs of these ``(label, seconds)`` cannot be learned from with ``frames`` in a model encoding
    at most ``window`` seconds per input, or None.  The encoder takes one window per input, and a 41-s clip was
    learned from its first 30 s, the rest cut without a word (the provenance saying it was pooled over the clip's
    audio).  A span of frames is the clip's own seconds inside its first window, and is not affected."""
    if window is None or frames.kind == "span":
        return None
    long = [(label, seconds) for label, seconds in lengths if seconds > window]
    if not long:
        return None
    first, seconds = long[0]
    return (f"{len(long)} of {len(lengths)} learning pair(s) hold an input longer than the {window:g} s the model "
            f"encodes in one pass (first: {first!r}, {seconds:.2f} s): a direction pooled over frames "
            f"{frames.id!r} would be learned from the first {window:g} s of it only: leave the longer clips out, cut "
            f"them into clips of at most {window:g} s, or pool a span of frames")


def check_learning_lengths(window: float | None, pairs: Sequence[tuple[np.ndarray, np.ndarray]],
                           labels: Sequence[str] = (), frames: Frames = Frames("audio")) -> None:
    """``too_long_to_learn`` of pairs of samples, as an InputError."""
    from asraudit.audio.constants import SAMPLE_RATE

    lengths = [(labels[i] if i < len(labels) else f"pair {i + 1}", max(len(p), len(q)) / SAMPLE_RATE)
               for i, (p, q) in enumerate(pairs)]
    problem = too_long_to_learn(window, lengths, frames)
    if problem:
        raise InputError(problem)


def learn_direction(model, pairs: Sequence[tuple[np.ndarray, np.ndarray]], layer: int, *,
                    frames: Frames = Frames("audio"), rank: int = 1, pair_labels: Sequence[str] = (),
                    description: str = "") -> Direction:
    """Learn a direction at encoder ``layer`` of ``model`` from (positive, negative) pairs.

    ``model`` is any white-box model: it names its encoder layers
    (``intervention_sites``), maps seconds to frames (``frame_geometry``)
    and returns ``encoder_activations``.  Each input is pooled over
    ``frames`` of its own length; the pair's difference is positive minus negative.
    """

    if not pairs:
        raise ValueError("learning a direction needs at least one pair")
    n_layers = len(model.intervention_sites().encoder_layers)
    geometry = getattr(model, "frame_geometry", WHISPER_FRAMES)
    layer = layer_index(layer, n_layers, "encoder")
    check_learning_lengths(getattr(model, "window_seconds", None), pairs, pair_labels, frames)
    positives = [np.asarray(p, dtype=np.float32) for p, _ in pairs]
    negatives = [np.asarray(q, dtype=np.float32) for _, q in pairs]
    acts = model.encoder_activations(positives + negatives, [layer])[layer]
    n = len(pairs)
    diffs = np.stack([
        _pooled(acts[i], frames, audio_frames(len(positives[i]), geometry), geometry)
        - _pooled(acts[n + i], frames, audio_frames(len(negatives[i]), geometry), geometry)
        for i in range(n)
    ])
    vector, basis, spread = direction_from_differences(diffs, rank)
    provenance = {
        "method": "diff-in-means" if rank == 1 else f"diff-in-means+pca(rank={rank})",
        "model": model.model_id,
        "model_config": model.config_hash,
        "layer": layer,
        "frames": frames.id,
        "n_pairs": n,
        "pairs": list(pair_labels),
        "description": description,
        "created": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        "asraudit": __version__,
    }
    return Direction(vector, basis, spread, layer, provenance)
