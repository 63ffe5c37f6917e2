"""Scoring speed: one encoder pass reused across candidates, against a full forward pass per candidate.

The audit's likelihood probes (audio lift, masked recovery, the battery)
score many candidate texts against each clip under several conditions
(the original, a masked span, silence).  ``HFSeq2Seq.score`` runs the
encoder once per (clip, condition) and one teacher-forced decoder pass per
batch of candidates; the naive way runs ``model(input_features,
decoder_input_ids)`` once per candidate, encoder included.  Both paths run
here on the same model, clips, conditions and candidates, in one run
(rounds alternate, best round each), and their scores are checked to agree.

The model is the embedded whisper-tiny.en as a transformers checkpoint (the
white-box conversion, real weights: ``hf:<converted folder>``); without the
embedded model, a random-weight Moonshine of moonshine-tiny's size.

Memory per batch: the tensors a batch of candidates holds (the encoder
states repeated per candidate, the logits over the vocabulary) computed
from their shapes, and the process's peak resident memory (ru_maxrss; on
CPU it is the honest total, but it only grows, so it bounds both paths).

    .venv/bin/python benchmarks/score_speed.py [--clips 2] [--candidates 16] [--rounds 2] [--device cpu]
"""

from __future__ import annotations

import argparse
import resource
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from asraudit.models.registry import load_model

CANDIDATE_WORDS = "the a of and to in was he it that his with as for had you not be her on at by".split()


def whisper_tiny_dir() -> Path | None:
    from asraudit.models import embedded

    if not embedded.is_present("whisper-tiny.en"):
        return None
    from asraudit.models.whitebox.convert import convert
    from asraudit.models.whitebox.sources import embedded_source

    return convert(embedded_source("whisper-tiny.en"))


def random_moonshine_dir(folder: Path) -> Path:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
    import torch
    import transformers
    from encdec_tiny import char_tokenizer, BASE_SPECIALS

    tokenizer = char_tokenizer(BASE_SPECIALS)
    config = transformers.MoonshineConfig(vocab_size=len(tokenizer), hidden_size=288, intermediate_size=1152,
                                          encoder_num_hidden_layers=6, decoder_num_hidden_layers=6,
                                          encoder_num_attention_heads=8, decoder_num_attention_heads=8,
                                          pad_token_id=0, bos_token_id=1, eos_token_id=2, decoder_start_token_id=1)
    torch.manual_seed(0)
    transformers.MoonshineForConditionalGeneration(config).save_pretrained(folder)
    extractor = transformers.Wav2Vec2FeatureExtractor(feature_size=1, sampling_rate=16000, padding_value=0.0,
                                                      do_normalize=False, return_attention_mask=True)
    transformers.Wav2Vec2Processor(feature_extractor=extractor, tokenizer=tokenizer).save_pretrained(folder)
    return folder


def conditions(audio: np.ndarray) -> list[np.ndarray]:
    """The original, its middle second silenced, and silence: what a lift/masking probe scores against."""
    masked = audio.copy()
    middle = len(audio) // 2
    masked[max(0, middle - 8000): middle + 8000] = 0.0
    return [audio, masked, np.zeros_like(audio)]


def candidates(n: int, seed: int) -> list[str]:
    rng = np.random.default_rng(seed)
    return [" ".join(rng.choice(CANDIDATE_WORDS, size=rng.integers(6, 16))) for _ in range(n)]


def naive_scores(model, audio: np.ndarray, texts: list[str]) -> list[float]:
    """Each candidate with its own full forward pass (encoder included)."""
    torch = model._torch
    prompt, eos = model.prompt_ids(), model._eos_id()
    inputs = model._inputs([audio])
    if model.is_whisper:
        inputs.pop("attention_mask", None)
    totals = []
    with torch.inference_mode():
        for text in texts:
            ids, _ = model._encode_text(text)
            sequence = prompt + ids + [eos]
            logits = model.model(**inputs, decoder_input_ids=torch.tensor([sequence[:-1]], device=model.device)).logits
            logprobs = torch.log_softmax(logits[0].float(), -1)
            positions = torch.arange(len(prompt) - 1, len(sequence) - 1)
            totals.append(float(logprobs[positions, torch.tensor(sequence[len(prompt):])].sum()))
    return totals


def batch_bytes(model, audio: np.ndarray, texts: list[str], batch: int) -> int:
    """Bytes of the encoder states repeated per candidate and the float32 logits of one batch."""
    torch = model._torch
    with torch.inference_mode():
        states = model.model.get_encoder()(**{k: v for k, v in model._inputs([audio]).items()
                                             if not (model.is_whisper and k == "attention_mask")}).last_hidden_state
    width = max(len(model._encode_text(t)[0]) for t in texts) + len(model.prompt_ids())
    vocab = model.model.config.vocab_size
    return batch * (states[0].numel() * states.element_size() + width * vocab * 4)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--clips", type=int, default=2)
    ap.add_argument("--seconds", type=float, default=8.0, help="length of each clip (default %(default)s)")
    ap.add_argument("--candidates", type=int, default=16, help="candidates per clip and condition")
    ap.add_argument("--batch-size", type=int, default=16)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--device", default="cpu")
    args = ap.parse_args()

    folder = whisper_tiny_dir()
    label = "whisper-tiny.en (transformers, real weights)"
    tmp = None
    if folder is None:
        tmp = tempfile.TemporaryDirectory()
        folder = random_moonshine_dir(Path(tmp.name))
        label = "random Moonshine, moonshine-tiny's size"
    model = load_model(f"hf:{folder}", device=args.device)
    rng = np.random.default_rng(0)
    clips = [(0.05 * rng.standard_normal(int(args.seconds * 16000))).astype(np.float32) for _ in range(args.clips)]
    work = [(condition, candidates(args.candidates, seed=i)) for i, clip in enumerate(clips) for condition in conditions(clip)]
    n = sum(len(texts) for _, texts in work)
    print(f"model: {label}; {args.clips} clips x 3 conditions x {args.candidates} candidates = {n} scores per round, "
          f"batch {args.batch_size}, device {args.device}")

    best = {"reused": float("inf"), "naive": float("inf")}
    reused_totals: list[float] = []
    naive_totals: list[float] = []
    for _ in range(args.rounds):
        t0 = time.perf_counter()
        reused_totals = [s.total for audio, texts in work for s in model.score(audio, texts, batch_size=args.batch_size)]
        best["reused"] = min(best["reused"], time.perf_counter() - t0)
        t0 = time.perf_counter()
        naive_totals = [t for audio, texts in work for t in naive_scores(model, audio, texts)]
        best["naive"] = min(best["naive"], time.perf_counter() - t0)
    gap = float(np.max(np.abs(np.array(reused_totals) - np.array(naive_totals))))
    # float32, different batch shapes: sums of ~20 log-probs agree to ~1e-4 (tests/tolerances.py).
    print(f"largest difference between the two paths' sequence scores: {gap:.2e} nats")
    if gap > 1e-2:
        print("the two paths disagree: the comparison is void", file=sys.stderr)
        return 1
    reused, naive = n / best["reused"], n / best["naive"]
    per_batch = batch_bytes(model, work[0][0], work[0][1], args.batch_size)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # kB on Linux
    print(f"reused encoder: {reused:,.1f} candidates/s; full pass per candidate: {naive:,.1f} candidates/s")
    print(f"memory per batch of {args.batch_size}: {per_batch / 2**20:,.1f} MiB of encoder states + logits; "
          f"process peak RSS {peak:,.0f} MiB")
    print(f"RATIO score-speed: full pass per candidate {naive:,.1f} candidates/s, reused encoder {reused:,.1f} "
          f"candidates/s, {reused / naive:.1f}x ({label}, {args.device})")
    if tmp is not None:
        tmp.cleanup()
    return 0


if __name__ == "__main__":
    sys.exit(main())
