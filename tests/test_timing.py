"""Word timings: recipe files, the timing cache, both aligners on real speech, and their agreement."""

from __future__ import annotations

import json

import numpy as np
import pytest

from asraudit.audio.timing import TimingCache, WordTiming, align_clips, timing_agreement
from asraudit.data.mask_recipe import RecipeRow, locate_recipe_word, read_recipe, write_recipe
from asraudit.models.aligners import PocketSphinxAligner, WhisperAligner
from asraudit.errors import InputError


def test_recipe_reads_the_release_column_names(tmp_path):
    path = tmp_path / "truncation_meta.jsonl"
    path.write_text(json.dumps({"__key__": "vox_1", "entity_t0": 1.25, "entity_t1": 1.8, "hidden_ref": "Juncker",
                                "entity_idx": 3, "method": "silence"}) + "\n")
    (row,) = read_recipe(path)
    assert (row.clip_id, row.t0, row.t1, row.word, row.index) == ("vox_1", 1.25, 1.8, "Juncker", 3)


def test_recipe_csv_and_round_trip(tmp_path):
    csv = tmp_path / "recipe.csv"
    csv.write_text("clip,t0,t1,hidden\na.wav,0.5,0.9,forty\n")
    rows = read_recipe(csv)
    assert rows[0].word == "forty" and rows[0].index is None
    out = tmp_path / "again.jsonl"
    assert write_recipe(out, [RecipeRow("a.wav", 0.5, 0.9, "forty", 2, "number")]) == 1
    again = read_recipe(out)[0]
    assert (again.clip_id, again.t0, again.t1, again.word, again.index, again.kind) == ("a.wav", 0.5, 0.9, "forty", 2,
                                                                                       "number")


@pytest.mark.parametrize("row, message", [
    ({"clip": "a", "t0": 1.0, "t1": 0.5, "hidden": "x"}, "ends before it starts"),
    ({"clip": "a", "t0": "soon", "t1": 0.5, "hidden": "x"}, "must be a number"),
    ({"clip": "a", "t0": 0.1, "t1": 0.5}, "missing hidden word"),
    ({"t0": 0.1, "t1": 0.5, "hidden": "x"}, "missing clip id"),
    ({"clip": "a", "t0": 0.1, "t1": 0.5, "hidden": "x", "index": -1}, "index must be >= 0"),
])
def test_bad_recipe_rows_name_file_and_row(tmp_path, row, message):
    path = tmp_path / "r.jsonl"
    path.write_text(json.dumps({"clip": "ok", "t0": 0, "t1": 1, "hidden": "fine"}) + "\n" + json.dumps(row) + "\n")
    with pytest.raises(InputError, match=message) as err:
        read_recipe(path)
    assert err.value.row == 2 and str(path) in str(err.value)


def test_recipe_word_is_located_and_checked_against_the_text():
    words = "we spent forty million and forty more".split()
    assert locate_recipe_word(words, RecipeRow("c", 0, 1, "million")) == 3
    assert locate_recipe_word(words, RecipeRow("c", 0, 1, "forty", index=5)) == 5
    with pytest.raises(InputError, match="occurs 2 times"):
        locate_recipe_word(words, RecipeRow("c", 0, 1, "forty"))
    with pytest.raises(InputError, match="not the hidden"):
        locate_recipe_word(words, RecipeRow("c", 0, 1, "forty", index=1))


def test_timing_cache_survives_a_cut_last_line_but_not_a_broken_middle_row(tmp_path):
    path = tmp_path / "timings.jsonl"
    cache = TimingCache(path)
    cache.put("al", "c1", "a b", [WordTiming("a", 0.0, 0.5), WordTiming("b", 0.5, 1.0)])
    with path.open("a") as fh:
        fh.write('{"__key__": "c2", "aligner": "al", "text_sha"')  # killed while writing
    reread = TimingCache(path)
    assert reread.get("al", "c1", "a b") == [WordTiming("a", 0.0, 0.5), WordTiming("b", 0.5, 1.0)]
    assert reread.get("al", "c1", "a b c") is None  # another text is another alignment
    path.write_text("not json\n" + path.read_text().split("\n")[0] + "\n")
    with pytest.raises(InputError, match="row 1"):
        TimingCache(path)


def test_agreement_of_shifted_timings_is_the_shift():
    a = [WordTiming(w, i * 0.5, i * 0.5 + 0.4) for i, w in enumerate("one two three four".split())]
    b = [WordTiming(t.word, t.start + 0.04, t.end + 0.04) for t in a]
    ag = timing_agreement([(a, b)])
    assert ag.n_words == 4 and ag.median_ms == pytest.approx(40) and ag.within[50] == 1.0 and ag.within[100] == 1.0
    assert ag.mean_overlap == pytest.approx(0.36 / 0.44)
    with pytest.raises(ValueError, match="different texts"):
        timing_agreement([(a, b[:2])])


@pytest.fixture(scope="module")
def pocketsphinx_aligner():
    pytest.importorskip("pocketsphinx")
    return PocketSphinxAligner()


@pytest.fixture(scope="module")
def tiny_aligner():
    from asraudit.models import embedded

    if not embedded.is_present("whisper-tiny.en"):
        pytest.skip("whisper-tiny.en is not installed")
    from asraudit.models.registry import load_model

    return WhisperAligner(load_model("whisper-tiny.en"))


def test_pocketsphinx_aligner_reproduces_the_sdist_alignment(pocketsphinx_aligner, librivox, librivox_audio):
    clip = librivox[1]
    timed = pocketsphinx_aligner.align(librivox_audio[clip.clip_id], clip.transcript)
    assert [t.word for t in timed] == clip.transcript.split()
    reference = [WordTiming(w, s, e) for w, s, e in clip.word_timings]
    agreement = timing_agreement([(timed, reference)])
    # The sdist's JSON is pocketsphinx's own alignment (an older build): nearly every boundary is identical.
    assert agreement.median_ms < 10 and agreement.within[50] >= 0.9


def test_pocketsphinx_aligner_refuses_digits_and_keeps_punctuation_words(pocketsphinx_aligner, librivox_audio, librivox):
    audio = librivox_audio[librivox[1].clip_id]
    with pytest.raises(ValueError, match="digits"):
        pocketsphinx_aligner.align(audio, "he was not 1 ill disposed young man")
    timed = pocketsphinx_aligner.align(audio, "he was not an ill disposed - young man")
    assert len(timed) == 9 and timed[6].start == timed[6].end == timed[5].end


def test_whisper_cross_attention_timings_follow_the_speech(tiny_aligner, pocketsphinx_aligner, librivox,
                                                           librivox_audio):
    clip = librivox[1]
    audio = librivox_audio[clip.clip_id]
    timed = tiny_aligner.align(audio, clip.transcript)
    assert [t.word for t in timed] == clip.transcript.split()
    starts = [t.start for t in timed]
    assert starts == sorted(starts) and all(t.end >= t.start for t in timed)
    assert timed[-1].end <= len(audio) / 16000 + 1e-6
    # Against the HMM aligner on the same words: boundaries within a few frames, not spread uniformly.
    uniform = [WordTiming(w, i * len(audio) / 16000 / len(timed), (i + 1) * len(audio) / 16000 / len(timed))
               for i, w in enumerate(clip.transcript.split())]
    hmm = pocketsphinx_aligner.align(audio, clip.transcript)
    agreement = timing_agreement([(hmm, timed)])
    assert agreement.within[200] >= 0.75
    assert agreement.median_ms < timing_agreement([(hmm, uniform)]).median_ms


def test_align_clips_reports_failures_and_reuses_the_cache(pocketsphinx_aligner, librivox, librivox_audio, tmp_path):
    clip = librivox[1]
    cache = TimingCache(tmp_path / "t.jsonl")
    items = [(clip.clip_id, librivox_audio[clip.clip_id], clip.transcript), ("digits", np.zeros(16000), "route 66")]
    timings, failures = align_clips(pocketsphinx_aligner, items, cache)
    assert list(timings) == [clip.clip_id] and [f.clip_id for f in failures] == ["digits"]

    class Refuses:
        id = pocketsphinx_aligner.id

        def align(self, audio, text):
            raise AssertionError("aligned again although cached")

    again, _ = align_clips(Refuses(), items[:1], TimingCache(tmp_path / "t.jsonl"))
    assert again == timings
