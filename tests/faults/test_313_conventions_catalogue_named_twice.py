"""Case 313: ``asraudit conventions`` where one catalogue is named twice, or ``--families`` names what is not a file.

Case 134 refused ``--language en --families extra.toml`` saying "give --families en --families extra.toml"; given
``--language en --families en``, that advice was "give --families en --families en", and following it stopped on
"built-in:en: family 'mister' is defined twice", as if two catalogues clashed, though ``--families en`` had
named the catalogue ``--language en`` picks.  A family file named twice (``f.toml ./f.toml``) stopped on its first
family the same way.  ``--families`` naming a folder or ``/dev/null`` said "no such family file", though it is
there.  Now ``--language`` beside a ``--families`` that names its catalogue runs (the catalogue is used), one
catalogue named twice is refused as such, in one line, and a folder or device is named for what it is.
"""

from __future__ import annotations

import json

import pytest

from tests.faults.conftest import write_preds

FAMILY = '[[family]]\nname = "alright_x"\nclass = "lexical"\narms = ["alright", "all right"]\nforms = [["alright", "all right"]]\n'
ROWS = [("c1", "Mr Smith is OK", "mister Smith is okay"), ("c2", "Mr Jones", "Mr Jones")]


@pytest.fixture()
def here(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write_preds(tmp_path / "m.jsonl", ROWS)
    (tmp_path / "extra.toml").write_text(FAMILY, encoding="utf-8")
    (tmp_path / "fam").mkdir()
    return tmp_path


@pytest.mark.parametrize("language", ["en", "EN"])
def test_language_beside_families_naming_its_catalogue_runs(here, cli, language):
    r = cli("conventions", "--preds", "m.jsonl", "--language", language, "--families", "en", "--families",
            "extra.toml", "--min-per-arm", "1", "--json", "c.json")
    assert r.code == 0, r.err
    assert json.loads((here / "c.json").read_text())["catalogue"]["sources"] == ["built-in:en", "extra.toml"]


@pytest.mark.parametrize("families, line", [
    (["en", "en"], "built-in:en: this catalogue is given twice: name it once"),
    (["en", "EN"], "built-in:en: this catalogue is given twice: name it once"),
    (["extra.toml", "./extra.toml"], "extra.toml: this catalogue is given twice: name it once"),
    (["fam"], "fam: family file is a folder: name a file"),
    (["/dev/null"], "/dev/null: family file is not a regular file (a pipe, socket or device): save its rows to a file"),
], ids=["builtin-twice", "builtin-in-two-cases", "file-twice", "folder", "device"])
def test_is_one_line(here, cli, families, line):
    r = cli("conventions", "--preds", "m.jsonl", *[a for f in families for a in ("--families", f)])
    assert r.code == 2
    assert r.error_lines == [f"asraudit: error: {line}"]
