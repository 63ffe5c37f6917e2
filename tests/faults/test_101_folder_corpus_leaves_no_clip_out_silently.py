"""Case 101: a folder corpus left clips out without a word.

The folder corpus listed its files with ``Path.rglob`` and kept those whose
suffix it knew, so clips went missing and the run said nothing (exit 0,
WER over the clips that were left):

- a speaker's folder that is a symbolic link (data kept on another disk):
  ``rglob`` does not enter it, and every clip under it was dropped;
- an AIFF (``.aiff``, ``.aif``), Sun ``.au`` or NIST ``.sph`` file, which
  libsndfile reads (a manifest naming it was accepted), was not listed;
- ``A.WAV`` with its transcript ``A.TXT`` (a corpus written on Windows): the
  clip was read without its reference;
- a clip whose audio is ``.m4a`` beside its ``.txt``: left out;
- a link to a missing file named ``a.wav``: left out;
- a link to a clip, or to a folder, already in the corpus: the same recording
  twice (a link to a folder above it never ended).

Each is now read, or refused naming the file.
"""

from __future__ import annotations

import os

import numpy as np
import pytest
import soundfile as sf

from asraudit import InputError, load_corpus


def _tone(path, fmt=None):
    t = np.arange(8_000) / 16_000
    path.parent.mkdir(parents=True, exist_ok=True)
    sf.write(path, (0.3 * np.sin(2 * np.pi * 220 * t)).astype(np.float32), 16_000, format=fmt, subtype="PCM_16")


def test_linked_folders_aiff_and_upper_case_transcripts_are_read(tmp_path, cli):
    elsewhere = tmp_path / "disk2" / "spk2"
    _tone(elsewhere / "b.wav")
    (elsewhere / "b.txt").write_text("the b clip", encoding="utf-8")
    corpus = tmp_path / "corpus"
    _tone(corpus / "spk1" / "A.WAV")
    (corpus / "spk1" / "A.TXT").write_text("the a clip\r\n", encoding="utf-8")
    _tone(corpus / "c.aiff", "AIFF")
    (corpus / "c.txt").write_text("the c clip", encoding="utf-8")
    _tone(corpus / "d.au", "AU")
    os.symlink(elsewhere, corpus / "spk2")
    (corpus / "README.txt").write_text("a transcript of no clip is not an error", encoding="utf-8")
    clips = {c.id: c.reference for c in load_corpus(corpus)}
    assert clips == {"c.aiff": "the c clip", "d.au": None, "spk1/A.WAV": "the a clip", "spk2/b.wav": "the b clip"}
    ran = cli("transcribe", "--model", "pocketsphinx", "--corpus", corpus, "--out", tmp_path / "o", "--no-progress")
    assert ran.code == 0 and ran.error_lines == []
    assert len((tmp_path / "o" / "pocketsphinx.jsonl").read_text(encoding="utf-8").splitlines()) == 4


def _refused(corpus) -> str:
    with pytest.raises(InputError) as err:
        load_corpus(corpus)
    return str(err.value)


def test_a_clip_the_folder_cannot_read_or_reads_twice_is_named(tmp_path, cli):
    corpus = tmp_path / "corpus"
    _tone(corpus / "a.wav")
    (corpus / "b.m4a").write_bytes(b"\x00\x00\x00\x20ftypM4A ")
    (corpus / "b.txt").write_text("the b clip", encoding="utf-8")
    assert _refused(corpus) == (
        f"{corpus / 'b.m4a'}: audio beside the transcript b.txt, but asraudit does not read .m4a files (it reads "
        ".wav, .flac, .ogg, .oga, .opus, .mp3, .aif, .aiff, .aifc, .au, .snd, .caf, .w64, .rf64, .sph, .raw, "
        ".pcm), so the clip would be left out: convert it to WAV or FLAC")
    ran = cli("transcribe", "--model", "pocketsphinx", "--corpus", corpus, "--out", tmp_path / "o", "--no-progress")
    assert ran.code == 2 and len(ran.error_lines) == 1 and "b.m4a: audio beside the transcript" in ran.error_lines[0]
    assert not (tmp_path / "o" / "pocketsphinx.jsonl").exists()
    (corpus / "b.m4a").unlink()

    os.symlink("gone.wav", corpus / "c.wav")
    assert _refused(corpus) == f"{corpus / 'c.wav'}: audio file c.wav is a symbolic link to gone.wav, which is not there"
    (corpus / "c.wav").unlink()

    os.symlink(corpus / "a.wav", corpus / "copy.wav")
    assert _refused(corpus) == (f"{corpus / 'copy.wav'}: the same file as clip 'a.wav' (one is a symbolic link to the "
                                "other): one recording under two clip ids counts twice: remove the link")
    (corpus / "copy.wav").unlink()

    (corpus / "sub").mkdir()
    os.symlink(corpus, corpus / "sub" / "up")  # a loop: rglob never entered it, os.walk would never end
    assert _refused(corpus) == (f"{corpus / 'sub' / 'up'}: a symbolic link to the folder {corpus}, which the corpus "
                                "already holds: the clips under it would count twice: remove the link")
    (corpus / "sub" / "up").unlink()

    _tone(corpus / "a.flac")
    assert _refused(corpus) == (f"{corpus}: a.flac and a.wav share one name: one recording in two formats would count "
                                "twice (and share one transcript): keep one")
