"""Word-by-word alignment display, in the REF/HYP/mark layout of NIST sclite.

Columns are padded to the wider word so the eye can follow each pair;
``*`` fills the missing side of an insertion or deletion, and the mark row
says S, D or I under every error.
"""

from __future__ import annotations

from asraudit.text.align import Alignment

_MARK = {"substitute": "S", "delete": "D", "insert": "I", "equal": ""}


def alignment_lines(alignment: Alignment) -> tuple[str, str, str]:
    """Three strings: REF row, HYP row, error-mark row."""
    ref_cells, hyp_cells, marks = [], [], []
    for kind, i, j in alignment.token_pairs():
        r = alignment.ref[i] if i is not None else ""
        h = alignment.hyp[j] if j is not None else ""
        if kind != "equal":
            r = r.upper() if r else "*" * max(1, len(h))
            h = h.upper() if h else "*" * max(1, len(r))
        width = max(len(r), len(h), 1)
        ref_cells.append(r.ljust(width))
        hyp_cells.append(h.ljust(width))
        marks.append(_MARK[kind].ljust(width))
    return (
        "REF: " + " ".join(ref_cells).rstrip(),
        "HYP: " + " ".join(hyp_cells).rstrip(),
        "     " + " ".join(marks).rstrip(),
    )
