"""Errors about the user's input, which the CLI prints without a traceback.

Bad input is the commonest failure of an audit run (a broken row in a
prediction file, an unreadable wav).  Every such error names the file and,
where there is one, the row, so the user can fix it without reading our code.
"""

from __future__ import annotations

from pathlib import Path

from asraudit.display_paths import display_path


class InputError(ValueError):
    """Input that asraudit cannot use, with the place it came from."""

    def __init__(self, message: str, source: str | Path | None = None, row: int | None = None):
        self.message = message
        self.source = str(source) if source is not None else None
        self.row = row
        super().__init__(self.__str__())

    def __str__(self) -> str:
        where = ""
        if self.source is not None:
            # the file as the user would name it from here; the full path stays in ``source``
            where = display_path(self.source, Path.cwd())
            if self.row is not None:
                where += f", row {self.row}"
            where += ": "
        return where + self.message


class ServiceError(RuntimeError):
    """A service asraudit calls (a model server over HTTP) failed, could not be reached or answered in another
    protocol.  Not the user's files and not a bug in asraudit: the CLI prints it as one line (exit 1), and the
    results finished before it stay in the store, so a rerun once the server is back continues from there."""
