"""Case 193: ``--option beam_size=1 --option beam_size=5``: the last one was used without a word (the run decoded
with beam 5), where the user may have meant either.  Now one line before any model loads."""

from __future__ import annotations

from conftest import one_clip_manifest


def test_a_key_given_twice_is_refused(tmp_path, cli):
    manifest = one_clip_manifest(tmp_path)
    ran = cli("transcribe", "--model", "whisper-tiny.en", "--corpus", manifest, "--out", tmp_path / "out",
              "--option", "beam_size=1", "--option", " beam_size=5", "--no-progress")
    assert ran.code == 2 and ran.error_lines == [
        "asraudit: error: --option beam_size is given twice (beam_size=1 and beam_size=5): give it once"]
    assert not (tmp_path / "out").exists()


def test_two_keys_are_fine(tmp_path, cli):
    manifest = one_clip_manifest(tmp_path)
    ran = cli("transcribe", "--model", "whisper-tiny.en", "--corpus", manifest, "--out", tmp_path / "out",
              "--option", "beam_size=1", "--option", "language=en", "--no-progress")
    assert ran.code == 0 and (tmp_path / "out" / "whisper-tiny.en.jsonl").exists()
