"""Case 276: the panel of ``steer induce|ablate`` and ``patch`` (``--preds``, ``--panel``) read only once the
white-box model had loaded (6 s warm for tiny.en, a conversion first on a cold cache): a prediction file with no
hypothesis column, a ``--panel`` model without a file, a panel of another corpus, ``--panel`` without ``--preds``.
Each is refused before the model loads, with the same line."""

from __future__ import annotations

import pytest

from tests.faults.conftest import MODEL_LOADED, mechanism_folder_without_a_model, write_preds



@pytest.fixture()
def here(tmp_path, monkeypatch):
    mechanism_folder_without_a_model(tmp_path, monkeypatch)
    (tmp_path / "p").mkdir()
    write_preds(tmp_path / "p" / "w.jsonl", [("a.wav", "a tone", "a tone")])
    (tmp_path / "q").mkdir()
    write_preds(tmp_path / "q" / "w.jsonl", [("zz.wav", "a tone", "a tone")])
    (tmp_path / "bad.jsonl").write_text('{"audio_filepath": "a.wav", "text": "a tone"}\n', encoding="utf-8")
    return tmp_path


COMMANDS = [
    ("steer", "induce", "--corpus", "m.jsonl", "--direction", "d.safetensors", "--no-progress"),
    ("steer", "ablate", "--corpus", "m.jsonl", "--direction", "d.safetensors", "--no-progress"),
    ("patch", "--corpus", "m.jsonl", "--block-attention", "0-0.5", "--no-progress"),
]


@pytest.mark.parametrize("command", COMMANDS, ids=["induce", "ablate", "patch"])
@pytest.mark.parametrize("extra, line", [
    (("--preds", "bad.jsonl"), "bad.jsonl, row 1: missing column(s) for hypothesis; found ['audio_filepath', 'text']; "
     "accepted names: id ('audio_filepath', 'id', '__key__', 'clip_id', 'key', 'utt_id'), reference ('text', "
     "'reference', 'ref', 'transcript'), hypothesis ('pred_text', 'hypothesis', 'hyp', 'prediction')"),
    (("--preds", "p", "--panel", "v"), "no prediction file for model(s) v; available: w"),
    (("--preds", "q"), "q/w.jsonl: --preds: panel model w's prediction file has no clip of the corpus (its first: "
     "'zz.wav'; the corpus's first: 'a.wav'): prediction files of another corpus, or clip ids written differently?"),
    (("--panel", "w"), "--panel needs --preds (the panel's prediction files)"),
])
def test_a_panel_that_cannot_be_read_is_refused_before_the_model_loads(here, cli, command, extra, line):
    ran = cli(*command, *extra)
    assert ran.code == 2, ran.err
    assert ran.error_lines == [f"asraudit: error: {line}"]
    assert not list(here.glob("*.sqlite*"))


def test_a_good_panel_reaches_the_model(here, cli):
    with pytest.raises(AssertionError, match=MODEL_LOADED):
        cli(*COMMANDS[0], "--preds", "p", "--panel", "w")
