"""Text handling: normalizers and alignment."""

from asraudit.text.align import AlignOp, Alignment, align, align_chars, align_words, edit_counts
from asraudit.text.normalize import NORMALIZERS, get_normalizer

__all__ = [
    "AlignOp",
    "Alignment",
    "NORMALIZERS",
    "align",
    "align_chars",
    "align_words",
    "edit_counts",
    "get_normalizer",
]
