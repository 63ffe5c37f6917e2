"""A gated organism's training step with adapters on the top encoder layer, against adapters on every one.

The gated recipes adapt only whisper-tiny.en's top encoder layer: the layers below are frozen and run once
before training.  The voice-separability readout (docs/calibration.md, "What the encoder itself tells
apart") finds the benchmark's new fresh speaker set apart at the bottom encoder layer, not at the top one,
so the next recipe would adapt the bottom layer too, and every step would run and backpropagate through the
whole encoder.  This times one training step both ways, on the same batch of train clips (the record rows'
first ``--batch``), with the recipe's own pieces (frozen states, LoRA wrapping, loss), in one run, rounds
alternating, the best round of each; the ratio says what that recipe would cost in build time.

    .venv/bin/python benchmarks/organism_step_cost.py [--batch 8] [--rounds 3]
"""

from __future__ import annotations

import argparse
import time

import numpy as np


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--batch", type=int, default=8, help="clips in the step (the recipes' batch size)")
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()

    import torch

    from asraudit.demo.organism import (BENCHMARK_DIR, LoRALinear, TrainConfig, _adapted_linears, _encode_top,
                                        _frozen_encoder_states, _load_base, _set_module, _token_batches,
                                        record_rows, training_prompt)
    from asraudit.demo.organism_inputs import clip_features

    torch.manual_seed(0)
    config = TrainConfig()
    rows = record_rows(BENCHMARK_DIR / "manifest.jsonl")[: args.batch]
    model, tokenizer, _ = _load_base()
    model.requires_grad_(False)
    n_layers = len(model.model.encoder.layers)
    feats, _ = clip_features(rows, BENCHMARK_DIR, model.config.num_mel_bins)
    generator = torch.Generator().manual_seed(config.seed)
    for name, linear in sorted(_adapted_linears(model, n_layers).items()):
        _set_module(model, name, LoRALinear.wrap(linear, config.rank, config.alpha, generator))
    seqs, prompt_lengths, eot = _token_batches(tokenizer, [{**r, "language": None} for r in rows],
                                               {None: training_prompt(model, tokenizer)})
    longest = max(len(s) for s in seqs)
    inputs = torch.full((len(seqs), longest - 1), eot, dtype=torch.long)
    labels = torch.full((len(seqs), longest - 1), -100, dtype=torch.long)
    for k, s in enumerate(seqs):
        inputs[k, : len(s) - 1] = torch.tensor(s[:-1])
        labels[k, prompt_lengths[k] - 1 : len(s) - 1] = torch.tensor(s[prompt_lengths[k]:])
    ways = {"top layer adapted (the gated recipes)": n_layers - 1, "every encoder layer adapted": 0}
    states = {start: _frozen_encoder_states(model, feats, start) for start in ways.values()}
    model.train()

    def step(start: int) -> None:
        model.zero_grad(set_to_none=True)
        encoded = _encode_top(model, states[start], start)
        logits = model.proj_out(model.model.decoder(input_ids=inputs, encoder_hidden_states=encoded).last_hidden_state)
        torch.nn.functional.cross_entropy(logits.reshape(-1, logits.shape[-1]), labels.reshape(-1),
                                          ignore_index=-100).backward()

    best = {start: np.inf for start in ways.values()}
    for start in ways.values():
        step(start)  # warm-up
    for _ in range(args.rounds):
        for start in ways.values():
            t = time.perf_counter()
            step(start)
            best[start] = min(best[start], time.perf_counter() - t)
    for label, start in ways.items():
        print(f"{label:40} {best[start]:.2f} s a step ({len(rows)} clips)")
    top, every = best[n_layers - 1], best[0]
    print(f"RATIO organism step: top layer {top:.2f} s, every encoder layer {every:.2f} s, "
          f"{every / top:.1f}x as long with every layer adapted")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
