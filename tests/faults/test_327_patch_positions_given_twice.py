"""Case 327: ``asraudit patch --site decoder --positions 1,1`` (a position given twice in the list).

The decoder patch acted at position 1 once and the table's label read ``at 1,1``, exit 0: a typo for another
position (``1,2``) went unseen, while a value given twice to ``--alpha``, ``--rank`` or ``--block-attention`` is
refused.  Now the list is refused, naming the position, with the other place options, before the model loads.
"""

from __future__ import annotations

import pytest

from conftest import MODEL_LOADED, mechanism_folder_without_a_model


@pytest.mark.parametrize("positions, twice", [("1,1", 1), ("0,2,0", 0)])
def test_a_position_given_twice_is_refused_before_the_model_loads(tmp_path, cli, monkeypatch, positions, twice):
    folder = mechanism_folder_without_a_model(tmp_path, monkeypatch)
    ran = cli("patch", "--corpus", folder / "m.jsonl", "--source", "silence", "--site", "decoder",
              "--positions", positions, "--store", folder / "s.sqlite")
    assert (ran.code, ran.error_lines) == (2, [
        f"asraudit: error: --positions {positions}: position {twice} is given twice: each position is patched once, "
        "so the list names fewer positions than it seems (a typo for another?): give each once"]), MODEL_LOADED
    assert not (folder / "s.sqlite").exists()
