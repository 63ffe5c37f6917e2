"""Case 261: an output of a model-running command written over the prediction file a ``--model replay:FILE``
replays: ``transcribe --model replay:o/mine.jsonl --out o`` (its prediction file ``o/mine.jsonl`` is named after
the model).

The replayed file is an input the command line names only inside ``--model``, and no output was checked against
it: ``transcribe`` rewrote it with the corpus's clips only, exit 0, the rows of every other clip (and any other
column) lost.  Now refused before anything runs, as an output over any other input is (cases 13, 31)."""

from __future__ import annotations

import json

from tests.faults.conftest import one_clip_manifest

ROWS = [{"audio_filepath": "a.wav", "text": "a tone", "pred_text": "a tone"},
        {"audio_filepath": "b.wav", "text": "bee", "pred_text": "bee"}]  # b.wav: a clip of another corpus


def _replayed(folder):
    folder.mkdir()
    path = folder / "mine.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in ROWS), encoding="utf-8")
    return path


def test_transcribe_over_the_file_it_replays_is_refused(cli, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    manifest = one_clip_manifest(tmp_path)
    replayed = _replayed(tmp_path / "o")
    before = replayed.read_bytes()
    ran = cli("transcribe", "--model", "replay:o/mine.jsonl", "--corpus", manifest, "--out", "o", "--no-progress")
    assert (ran.code, ran.error_lines) == (2, [
        "asraudit: error: o/mine.jsonl: the prediction file of model mine would overwrite the file --model "
        "replay:o/mine.jsonl replays, an input: the file is named after the model: remove what is there (a link?), "
        "or choose another --out"])
    assert replayed.read_bytes() == before
    # into another folder, as before
    ran = cli("transcribe", "--model", "replay:o/mine.jsonl", "--corpus", manifest, "--out", "p", "--no-progress")
    assert ran.code == 0, ran.err
    assert [json.loads(line)["pred_text"] for line in (tmp_path / "p" / "mine.jsonl").read_text().splitlines()] == \
        ["a tone"]

