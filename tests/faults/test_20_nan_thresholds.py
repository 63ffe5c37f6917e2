"""Case 20: a miner threshold given as NaN (``--min-consensus-cer nan``, ``min_consensus_cer = nan`` in a spec).

No character distance is below NaN, so the full miner dropped no
substitution and printed its tables as if the threshold were 0, exit 0; a
spec's ``nan`` (TOML has it) passed every range check of every float key
(``majority = nan`` too).  ``--compat hume`` took any ``--min-consensus-cer``
(-1 as 0).  Now each is one line before any work.
"""

from __future__ import annotations

import pytest

from conftest import panel_files

ROWS = [(f"c{i}.wav", f"well the cat sat on mat {i}", f"the cat sat on mat {i}") for i in range(4)]


@pytest.fixture()
def preds(tmp_path):
    return panel_files(tmp_path, ROWS)


@pytest.mark.parametrize("value, compat", [("nan", ()), ("nan", ("--compat", "hume")), ("-1", ("--compat", "hume"))])
def test_the_cli_refuses_a_nan_or_negative_distance(preds, cli, value, compat):
    ran = cli("refdis", "--preds", preds, "--panel", "m1,m2,m3", "--min-consensus-cer", value, *compat)
    shown = "nan" if value == "nan" else "-1.0"
    assert (ran.code, ran.out, ran.error_lines) == (
        2, "", [f"asraudit: error: --min-consensus-cer must be >= 0, got {shown}"])


@pytest.mark.parametrize("key", ["min_consensus_cer", "majority"])
def test_a_spec_refuses_nan(preds, tmp_path, cli, key):
    models = "".join(f'[[model]]\npredictions = "{preds / n}.jsonl"\npanel = true\n\n' for n in ("m1", "m2", "m3"))
    spec = tmp_path / "audit.toml"
    spec.write_text(f'out = "out"\n[corpus]\npredictions = "{preds / "m1.jsonl"}"\n\n{models}'
                    f"[refdis]\nmin_panel = 2\n{key} = nan\n", encoding="utf-8")
    ran = cli("audit", spec, "--check")
    assert ran.code == 2
    assert ran.error_lines == [f"asraudit: error: {spec}: [refdis]: {key} must be a number, got nan"]
