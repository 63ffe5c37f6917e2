"""``asraudit --version`` says which compiled fast paths are built; each one's pure-Python twin gives its results.

The compiled modules are optional (built where ``pip install`` finds a C
compiler); the parity of each with its Python path is tested beside the
code it speeds up.  Here: the report a user reads to tell a slow run from
a broken one is true to what imports.
"""

from __future__ import annotations

import importlib

import pytest

from asraudit import compiled
from asraudit.cli import main


def test_version_names_every_fast_path_and_whether_it_is_built(capsys):
    with pytest.raises(SystemExit) as done:
        main(["--version"])
    assert done.value.code == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("asraudit ")
    paths = compiled.compiled_paths()
    assert set(paths) == set(compiled.FAST_PATHS.values())
    if all(paths.values()):
        assert lines[1].startswith("compiled fast paths: all built (")
    else:
        missing = [what for what, ok in paths.items() if not ok]
        assert lines[1].startswith(f"compiled fast paths: {len(paths) - len(missing)} of {len(paths)} built; ")
        assert all(what in lines[1] for what in missing)


def test_a_module_that_does_not_import_is_reported_missing(monkeypatch):
    real = importlib.import_module

    def without_miner(name, *args):
        if name == "asraudit.probes._refdis_fast":
            raise ImportError(name)
        return real(name, *args)

    monkeypatch.setattr(compiled.importlib, "import_module", without_miner)
    assert compiled.compiled_paths()["reference-error miner"] is False
    assert "pure Python (same results, slower) for " in compiled.describe()
    assert "reference-error miner (reinstall with a C compiler" in compiled.describe()
