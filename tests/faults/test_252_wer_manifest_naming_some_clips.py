"""Case 252: ``asraudit wer --group-field F --manifest M`` with a manifest that names only some of the
prediction files' clips (a manifest of one split beside predictions of two, or ids spelled otherwise on some
rows).

Case 116 refused a manifest that names none of a file's clips (every clip in the group ``(none)``); one that
names some put the rest in ``(none)`` without a word, beside the clips whose value is missing, so the rows of
the named groups were read as covering every clip of theirs."""

from __future__ import annotations

import json

from conftest import write_preds

ROWS = [(f"c{i}", "the cat sat on the mat", "the cat sat on a mat" if i % 2 else "the cat sat on the mat")
        for i in range(6)]


def _files(tmp_path, manifest_rows):
    for m in ("m1", "m2"):
        write_preds(tmp_path / f"{m}.jsonl", ROWS)
    manifest = tmp_path / "man.jsonl"
    manifest.write_text("".join(json.dumps(r) + "\n" for r in manifest_rows), encoding="utf-8")
    return manifest


def test_clips_the_manifest_lacks_are_counted_in_one_warning(cli, tmp_path):
    manifest = _files(tmp_path, [{"audio_filepath": f"c{i}", "speaker": "A" if i < 2 else "B"} for i in range(4)])
    ran = cli("wer", "--preds", tmp_path / "m1.jsonl", tmp_path / "m2.jsonl", "--group-field", "speaker",
              "--manifest", manifest, "--bootstrap", "0")
    assert ran.code == 0, ran.err
    assert ran.err.splitlines() == [
        f"asraudit: warning: {manifest} has no row for 2 of the 6 clip(s) of the prediction files (e.g. 'c4' of "
        "m1.jsonl): --group-field speaker puts them in the group (none), with any clip whose speaker is missing"]
    assert "(none)      m1" in ran.out  # the table is as before


def test_a_manifest_naming_every_clip_says_nothing(cli, tmp_path):
    rows = [{"audio_filepath": f"c{i}", "speaker": "A" if i < 2 else ("B" if i < 4 else None)} for i in range(6)]
    manifest = _files(tmp_path, rows)
    ran = cli("wer", "--preds", tmp_path / "m1.jsonl", tmp_path / "m2.jsonl", "--group-field", "speaker",
              "--manifest", manifest, "--bootstrap", "0")
    assert ran.code == 0 and ran.err == ""  # c4, c5: a missing value, the manifest's to say
    assert "(none)      m1" in ran.out
