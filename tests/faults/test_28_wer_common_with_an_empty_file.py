"""Case 28: ``wer --common`` and ``wer --paired`` with an empty prediction file among the others.

The empty file (a model that ran no clips: warned about, case 8) made the
common clips none, so ``--common`` scored every model on nothing (``-`` for
every WER) and ``--paired`` printed ``nan`` for every pair, exit 0.  Now the
clips every model ran are those of the models that ran any, as a panel is
the members that had transcripts.
"""

from __future__ import annotations

import json

from conftest import write_preds

ROWS = [(f"c{i}", f"the cat sat on mat {i}", f"the cat sat on mat {i}") for i in range(4)]


def test_an_empty_file_does_not_empty_the_common_clips(tmp_path, cli):
    write_preds(tmp_path / "m1.jsonl", ROWS)
    write_preds(tmp_path / "m2.jsonl", [(c, r, "the cat") for c, r, _ in ROWS[:3]])
    (tmp_path / "empty.jsonl").write_text("", encoding="utf-8")
    ran = cli("wer", "--preds", tmp_path, "--common", "--paired", "--json", tmp_path.parent / "w.json")
    assert ran.code == 0, ran.err
    models = json.loads((tmp_path.parent / "w.json").read_text(encoding="utf-8"))["models"]
    assert {m: s["clips"] for m, s in models.items()} == {"empty": 0, "m1": 3, "m2": 3}
    assert models["m1"]["wer"] == 0.0
    assert "Paired bootstrap on 3 common clips" in ran.out and "nan" not in ran.out
