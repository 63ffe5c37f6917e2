"""Case 122: ``steer induce|ablate`` and ``patch`` with a normalizer that does not exist (``--normalizer bogus``, a
typo of ``basic``).

The option was the only ``--normalizer`` taken without a check: the model loaded and every variant ran (the
baseline, the patch and its control were stored), then the readout stopped with ``ValueError: unknown normalizer
'bogus'``, a traceback. Now it takes the normalizers' names as every other command's does, refused by argparse
before anything loads.
"""

from __future__ import annotations

import pytest

from asraudit.text.normalize import NORMALIZERS


@pytest.mark.parametrize("argv", [
    ("patch", "--source", "silence"),
    ("steer", "induce", "--direction", "D"),
    ("steer", "ablate", "--direction", "D"),
])
def test_an_unknown_normalizer_is_refused_before_anything_loads(tmp_path, cli, capsys, argv):
    argv = tuple(str(tmp_path / "d.st") if a == "D" else a for a in argv)
    store = tmp_path / "s.sqlite"
    with pytest.raises(SystemExit) as exit_:
        cli(*argv, "--model", tmp_path / "no-such-model", "--corpus", tmp_path, "--store", store,
            "--normalizer", "bogus")
    assert exit_.value.code == 2
    last = capsys.readouterr().err.splitlines()[-1]
    assert "error: argument --normalizer: invalid choice: 'bogus' (choose from " in last  # argparse's wording
    assert all(name in last for name in NORMALIZERS)
    assert not store.exists()
