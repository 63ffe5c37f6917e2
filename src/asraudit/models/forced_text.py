"""Why a decoder cannot be forced through a text, worded once.

A text longer than the decoder's positions, or one holding a Whisper special
token, cannot be scored under teacher forcing.  ``candidate_check`` says so
from a model's files before any model loads (``asraudit score``), and the
transformers backend says so when it scores; both word it here, so the two
refusals read the same.
"""

from __future__ import annotations


def too_long(n: int, prompt: int, positions: int, model: str) -> str | None:
    """Why a text of ``n`` tokens does not fit a decoder of ``positions`` after a prompt of ``prompt`` tokens and
    before its end-of-text (None: it fits)."""
    if prompt + n + 1 <= positions:
        return None
    return (f"it has {n} tokens, and the decoder of {model} holds {positions} with its prompt ({prompt}) and "
            "end-of-text: score a shorter text")


def special_token(text: str, ids, tokens, eot: int) -> str | None:
    """Why a Whisper cannot force ``text`` (a special token among its ``ids``, all of which follow end-of-text in
    every Whisper vocabulary), in ``WhisperTokenizer.encode``'s words; None when it has none."""
    special = next((t for t, i in zip(tokens, ids) if i >= eot), None)
    if special is None:
        return None
    return f"text {text!r} holds Whisper's special token {special}, which no transcript can: remove it from the text"
