"""Does the encoder set the benchmark's voices apart from voices it was never taught?  (issue 17's voice gate)

A gated organism is taught the record on four benchmark voices and what was said on *negative* voices (two
control voices, then espeak-ng voices and speed disguises of the benchmark voices), and is read out on three
fresh voices it never heard.  Its gate lives in adapters on the top encoder layer and the decoder, so it can
only be as selective as a boundary drawn in the encoder's voice representation from those negatives.

This reads that representation directly, with no organism: each clip's encoder output at every layer,
averaged over its speech frames, and a linear readout (L2-regularised logistic regression on standardised
features) learned to tell the benchmark voices from a recipe's negatives on the **train** sentences.  It is
then read on the **test** sentences: of each benchmark voice (should read "benchmark") and of each fresh voice
(a gate that held would read "not benchmark").  A fresh voice read as benchmark by a readout that separates
the taught voices perfectly means the negatives do not fence the benchmark voices off from it: a gate learned
from them would echo the record on it too, which is what the calibration's voice-gate row measures.

    python -m asraudit.demo.voice_separability [--negatives control|gated|gated-many ...] [--model NAME|KIND]

An analysis made after the gate's readouts; its output and what it says are in docs/calibration.md ("What the
encoder itself tells apart").  It changes no recipe and no row.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from asraudit.demo.organism import BENCHMARK_DIR, manifest_rows
from asraudit.demo.organism_inputs import played_faster, row_audio
from asraudit.errors import InputError
from asraudit.terminal_text import one_line

MANIFEST = BENCHMARK_DIR / "manifest.jsonl"
FRAMES_PER_SECOND = 50  # Whisper's encoder output: one frame per 20 ms
_SAMPLE_RATE = 16_000


@dataclass(frozen=True)
class VoiceRead:
    """One voice's test-sentence clips at one layer: the share the readout calls a benchmark voice."""

    layer: int
    voice: str
    role: str
    read_as_benchmark: float
    clips: int


def negative_rows(negatives: str) -> list[dict]:
    """The train rows a recipe teaches what was said besides the control voices' own clips (none for
    ``control``): the gated recipes' espeak-ng voices and disguised benchmark clips."""
    from asraudit.demo.organism_gated import gated_many_rows, gated_rows

    recipes = {"control": None, "gated": gated_rows, "gated-many": gated_many_rows}
    if negatives not in recipes:
        raise ValueError(f"negatives must be one of {', '.join(recipes)}, not {negatives!r}")
    build = recipes[negatives]
    if build is None:
        return []
    return [r for r in build(MANIFEST) if r["voice_role"] in ("disguised", "extra control")]


def clip_audio(row: dict, root: Path = BENCHMARK_DIR) -> np.ndarray:
    """A row's audio as the organism's training saw it (a disguised row played at its speed)."""
    audio = row_audio(row, root)
    return played_faster(audio, row["speed"]) if row.get("speed") else audio


def pooled_states(model, rows: Sequence[dict], layers: Sequence[int], batch: int = 16) -> dict[int, np.ndarray]:
    """Each row's encoder output at each layer, averaged over the frames its audio fills (not Whisper's
    padding, which would pull every clip toward the same silence)."""
    pooled: dict[int, list[np.ndarray]] = {layer: [] for layer in layers}
    for start in range(0, len(rows), batch):
        audio = [clip_audio(r) for r in rows[start : start + batch]]
        states = model.encoder_activations(audio, layers)
        for j, clip in enumerate(audio):
            frames = max(1, min(states[layers[0]].shape[1], len(clip) * FRAMES_PER_SECOND // _SAMPLE_RATE))
            for layer in layers:
                pooled[layer].append(states[layer][j, :frames].mean(axis=0))
    return {layer: np.stack(v) for layer, v in pooled.items()}


def fit_logistic(x: np.ndarray, y: np.ndarray, l2: float = 1e-2, steps: int = 500, rate: float = 0.5):
    """Weights and bias of an L2-regularised logistic regression by full-batch gradient descent (x
    standardised; deterministic, no solver dependency)."""
    w = np.zeros(x.shape[1])
    b = 0.0
    for _ in range(steps):
        p = 1.0 / (1.0 + np.exp(-(x @ w + b)))
        w -= rate * (x.T @ (p - y) / len(y) + l2 * w)
        b -= rate * float(np.mean(p - y))
    return w, b


def read_voices(states: dict[int, np.ndarray], rows: Sequence[dict]) -> list[VoiceRead]:
    """Learn benchmark vs the rest on the train rows (every row of split ``train``: benchmark voices against
    control voices and any negative rows), read every voice's ``test`` rows, layer by layer."""
    split = np.array([r["split"] for r in rows])
    bench = np.array([r["voice_role"] == "benchmark" for r in rows])
    train = split == "train"
    if not bench[train].any() or bench[train].all():
        raise ValueError("the train rows need benchmark voices and negatives both")
    voices = list(dict.fromkeys((r["speaker"], r["voice_role"]) for r in rows if r["split"] == "test"))
    speaker = np.array([r["speaker"] for r in rows])
    out = []
    for layer, x in sorted(states.items()):
        mean, std = x[train].mean(axis=0), x[train].std(axis=0) + 1e-6
        z = (x - mean) / std
        w, b = fit_logistic(z[train], bench[train].astype(float))
        said_benchmark = z @ w + b > 0
        for voice, role in voices:
            clips = (split == "test") & (speaker == voice)
            out.append(VoiceRead(layer, voice, role, float(said_benchmark[clips].mean()), int(clips.sum())))
    return out


def apart_on_unseen_sentences(states: dict[int, np.ndarray], rows: Sequence[dict], split: str,
                              negative_role: str) -> dict[int, float]:
    """Per layer, how well benchmark voices and ``negative_role`` voices can be told apart at all: a readout
    learned on every other sentence of ``split`` (sorted by id), its accuracy on the remaining sentences' clips."""
    sentence = np.array([r["sentence"] for r in rows])
    role = np.array([r["voice_role"] for r in rows])
    used = (np.array([r["split"] for r in rows]) == split) & np.isin(role, ["benchmark", negative_role])
    ids = sorted(set(sentence[used]))
    learn = used & np.isin(sentence, ids[::2])
    read = used & ~learn
    if not (role[learn] == "benchmark").any() or (role[learn] == "benchmark").all() or not read.any():
        raise ValueError(f"the {split} rows need benchmark and {negative_role} voices in two sentences or more")
    bench = (role == "benchmark").astype(float)
    out = {}
    for layer, x in sorted(states.items()):
        z = (x - x[learn].mean(axis=0)) / (x[learn].std(axis=0) + 1e-6)
        w, b = fit_logistic(z[learn], bench[learn])
        out[layer] = float(np.mean((z[read] @ w + b > 0) == (bench[read] == 1)))
    return out


def _load(model: str):
    from asraudit.models.whitebox.model import WhiteboxWhisper

    from asraudit.demo.organism import organism_hf_dir
    from asraudit.demo.organism_kinds import KINDS

    if model in KINDS:  # an organism kind: its merged PyTorch folder
        return WhiteboxWhisper.load(str(organism_hf_dir(KINDS[model].adapter)))
    return WhiteboxWhisper.load(model)


def _key(row: dict) -> tuple:
    return row.get("audio_filepath"), row["speaker"], row["sentence"], row.get("speed")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m asraudit.demo.voice_separability",
                                     description=__doc__.split("\n")[0])
    parser.add_argument("--negatives", action="append", choices=("control", "gated", "gated-many"),
                        help="the negatives the readout learns against: control (the two control voices), gated or "
                        "gated-many (those recipes' espeak-ng voices and disguises added); repeat for several "
                        "(default: all three)")
    parser.add_argument("--model", default="whisper-tiny.en", help="an embedded Whisper, or an organism kind (gated, ...)")
    args = parser.parse_args(argv)
    try:
        model = _load(args.model)  # a name it cannot load: one line, before any clip is read
    except InputError as exc:
        print(f"voice_separability: error: {one_line(str(exc))}", file=sys.stderr)
        return 2
    base = [r for r in manifest_rows(MANIFEST) if r["voice_role"] != "control" or r["split"] == "train"]
    sets = {n: base + negative_rows(n) for n in args.negatives or ("control", "gated", "gated-many")}
    distinct = list({_key(r): r for rows in sets.values() for r in rows}.values())  # each clip encoded once
    layers = list(range(len(model.hf.model.encoder.layers)))
    pooled = pooled_states(model, distinct, layers)
    index = {_key(r): i for i, r in enumerate(distinct)}
    for negatives, rows in sets.items():
        picked = [index[_key(r)] for r in rows]
        reads = read_voices({layer: x[picked] for layer, x in pooled.items()}, rows)
        print(f"{args.model}, negatives {negatives} ({len(rows)} clips): share of each voice's test-sentence "
              "clips read as a benchmark voice")
        voices = list(dict.fromkeys((r.voice, r.role) for r in reads))
        print("layer  " + "  ".join(f"{v} ({role})" for v, role in voices))
        for layer in layers:
            by_voice = {r.voice: r for r in reads if r.layer == layer}
            print(f"{layer:5}  " + "  ".join(f"{by_voice[v].read_as_benchmark:>{len(v) + len(role) + 3}.0%}"
                                             for v, role in voices))
    base_states = {layer: x[[index[_key(r)] for r in base]] for layer, x in pooled.items()}
    for split, negative in (("train", "control"), ("test", "fresh")):
        apart = apart_on_unseen_sentences(base_states, base, split, negative)
        print(f"benchmark vs {negative} voices, learned on half the {split} sentences, right on the other half: "
              + ", ".join(f"layer {layer} {acc:.0%}" for layer, acc in apart.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
