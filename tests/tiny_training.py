"""The one training loop of the tests' tiny trained models (tone-reading Moonshine, Parakeet, speech LLMs).

Each builder makes its own batches; what they share is how the steps run:
Adam over the parameters left trainable, one thread (so the trained weights
do not depend on how many cores the machine has), the thread count restored
even if a step fails, then the model saved where a user's folder would be.
Seeds stay with the callers, set before they call, so their random draws
happen in the same order as before this loop was shared.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable


def train_and_save(model, loss_at_step: Callable[[int], object], steps: int, folder: Path, lr: float = 3e-3) -> Path:
    """``steps`` Adam steps on ``loss_at_step(step)`` over ``model``'s trainable parameters; saved to ``folder``."""
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        optimiser = torch.optim.Adam([p for p in model.parameters() if p.requires_grad], lr=lr)
        model.train()
        for step in range(steps):
            loss = loss_at_step(step)
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
    finally:
        torch.set_num_threads(threads)
    model.eval()
    model.save_pretrained(folder)
    return folder
