"""A progress bar for the executors: rich on a terminal, silent otherwise."""

from __future__ import annotations

import sys
import time


class Progress:
    """A rich progress bar on a terminal (clips/s and RTFx); silent otherwise,
    so logs and piped output stay clean."""

    def __init__(self, total: int, enabled: bool, label: str):
        self.audio_seconds = 0.0
        self.compute_seconds = 0.0
        self._bar = None
        if enabled and total and sys.stderr.isatty():
            from rich.console import Console
            from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeElapsedColumn, TimeRemainingColumn
            from rich.progress import Progress as RichProgress

            from asraudit.terminal_text import one_line

            # The label names the corpus and the models (a file "corpus [v2].jsonl", a clip id): plain text, not
            # rich's markup ("[v2]" vanished and "[/]" raised MarkupError), its control characters escaped.
            self._bar = RichProgress(
                TextColumn("{task.description}", markup=False), BarColumn(), MofNCompleteColumn(),
                TextColumn("{task.fields[rate]}"), TextColumn("{task.fields[rtfx]}"), TimeElapsedColumn(), TimeRemainingColumn(),
                console=Console(stderr=True), transient=False,
            )
            self._task = self._bar.add_task(one_line(label), total=total, rate="", rtfx="")
            self._bar.start()
            self._start = time.perf_counter()

    def advance(self, n_jobs: int, audio_seconds: float, compute_seconds: float) -> None:
        self.audio_seconds += audio_seconds
        self.compute_seconds += compute_seconds
        if self._bar is None:
            return
        task = self._bar.tasks[0]
        done = task.completed + n_jobs
        elapsed = max(time.perf_counter() - self._start, 1e-9)
        rtfx = self.audio_seconds / self.compute_seconds if self.compute_seconds > 0 else float("nan")
        self._bar.update(self._task, advance=n_jobs, rate=f"{done / elapsed:6.1f} clips/s", rtfx=f"RTFx {rtfx:6.1f}")

    def close(self) -> None:
        if self._bar is not None:
            self._bar.stop()


