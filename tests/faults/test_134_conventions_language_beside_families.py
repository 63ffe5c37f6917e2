"""Case 134: `asraudit conventions --language fr --families extra.toml`.

`--families` replaces the built-in catalogue that `--language` picks, so the French catalogue was silently
left out: the run measured only the file's families (`1 families (extra.toml)`), exit 0, the French
references' conventions unmeasured. Now refused before any file is read, saying how to use both.
"""

from __future__ import annotations

import json

from tests.faults.conftest import write_preds

FAMILY = '[[family]]\nname = "okay"\nclass = "lexical"\narms = ["OK", "okay"]\nforms = [["OK", "okay"]]\n'
ROWS = [("c1", "un grand événement", "un grand évènement"), ("c2", "c'est OK", "c'est okay")]


def test_language_beside_families_is_refused(cli, tmp_path):
    preds = write_preds(tmp_path / "m.jsonl", ROWS)
    fam = tmp_path / "extra.toml"
    fam.write_text(FAMILY, encoding="utf-8")
    out = tmp_path / "c.json"
    r = cli("conventions", "--preds", preds, "--language", "fr", "--families", fam, "--json", out)
    assert r.code == 2
    assert r.error_lines == [
        f"asraudit: error: --language fr picks a built-in catalogue and --families replaces it, so the fr catalogue "
        f"would not be used: give --families fr --families {fam} to use both, or leave --language out"]
    assert r.out == "" and not out.exists()
    # what the line says to do measures both
    r = cli("conventions", "--preds", preds, "--families", "fr", "--families", fam, "--min-per-arm", "1",
            "--json", out)
    assert r.code == 0, r.err
    assert set(json.loads(out.read_text())["reference_usage"]) == {"fr_rectifications_1990", "okay"}


def test_either_alone_still_runs(cli, tmp_path):
    preds = write_preds(tmp_path / "m.jsonl", ROWS)
    fam = tmp_path / "extra.toml"
    fam.write_text(FAMILY, encoding="utf-8")
    for args, sources in ((("--language", "fr"), ["built-in:fr"]), (("--families", fam), [str(fam)]), ((), ["built-in:en"])):
        out = tmp_path / "c.json"
        r = cli("conventions", "--preds", preds, *args, "--json", out)
        assert r.code == 0, r.err
        assert json.loads(out.read_text())["catalogue"]["sources"] == sources
