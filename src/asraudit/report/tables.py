"""Terminal tables: rich on a terminal, plain aligned text otherwise.

Plain text when stdout is not a TTY keeps piped output greppable and stable
for scripts and CI logs (no box-drawing characters, no colour codes).
"""

from __future__ import annotations

import sys
from typing import Sequence, TextIO

from asraudit.terminal_text import one_line


def fmt_rate(value: float, digits: int = 2) -> str:
    """A fraction as a percentage string; '-' when undefined."""
    if value is None or value != value:  # NaN
        return "-"
    return f"{100 * value:.{digits}f}%"


def fmt_interval(low: float, high: float, digits: int = 2) -> str:
    if low != low or high != high:
        return "-"
    return f"[{100 * low:.{digits}f}, {100 * high:.{digits}f}]"


def render_table(
    columns: Sequence[str],
    rows: Sequence[Sequence[object]],
    title: str | None = None,
    file: TextIO | None = None,
    right_align: Sequence[bool] | None = None,
) -> None:
    """Print a table; numbers right-aligned by default (first column left)."""
    out = file or sys.stdout
    cells = [[one_line(str(c)) for c in row] for row in rows]
    columns, title = [one_line(str(c)) for c in columns], one_line(title) if title else title
    align_right = list(right_align) if right_align is not None else [i > 0 for i in range(len(columns))]
    if out.isatty():
        from rich.console import Console
        from rich.table import Table
        from rich.text import Text

        # Every cell, header and title as plain Text: given as a string, rich reads "[...]" as its markup, so a
        # model name "whisper [beam5]" or a group "[noise] s1" lost its brackets and "[/b]" raised MarkupError.
        table = Table(title=Text(title) if title else None)
        for name, right in zip(columns, align_right):
            table.add_column(Text(str(name)), justify="right" if right else "left")
        for row in cells:
            table.add_row(*(Text(c) for c in row))
        Console(file=out).print(table)
        return
    widths = [len(c) for c in columns]
    for row in cells:
        widths = [max(w, len(c)) for w, c in zip(widths, row)]

    def line(values: Sequence[str]) -> str:
        return "  ".join(
            v.rjust(w) if right else v.ljust(w) for v, w, right in zip(values, widths, align_right)
        ).rstrip()

    if title:
        print(title, file=out)
    print(line(list(columns)), file=out)
    print("  ".join("-" * w for w in widths), file=out)
    for row in cells:
        print(line(row), file=out)
