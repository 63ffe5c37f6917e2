"""How far a steering vector may push float32 activations.

Kept apart from ``interventions`` (which needs torch) so that the checks made
before any model loads (``mechanism.steering.check_addable``, the audit's
``alphas``) and the intervention itself state one limit.
"""

from __future__ import annotations

import numpy as np

# The largest norm an added vector may have: its square is float32's largest number (3.4e38).  Past it the layers
# after the steered one overflow float32 (a layer norm squares the activations) and the transcripts are decoded
# from NaN: `--alpha 1e36` on a direction of norm 9 stored '!!!!...' as the steered transcript, and the table
# reported 100% WER for the intervention and its control, as case 45's `--alpha inf` did.
MAX_ADDED_NORM = float(np.sqrt(np.finfo(np.float32).max))


def scale_problem(alpha: float, norm: float) -> str | None:
    """Why ``alpha`` times a vector of ``norm`` cannot be added to float32 activations, or None."""
    if abs(alpha) * norm <= MAX_ADDED_NORM:
        return None
    return (f"alpha {alpha:g} times the direction's norm {norm:.4g} adds a vector of norm {abs(alpha) * norm:.3g}, "
            f"past what float32 activations hold ({MAX_ADDED_NORM:.3g}, the square root of float32's largest number): "
            "the layers after it would overflow and the transcripts be decoded from NaN; give |alpha| at most "
            f"{MAX_ADDED_NORM / norm:.3g}")
