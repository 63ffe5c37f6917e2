"""Case 220: ``clip_inputs`` given references and transcripts keyed apart, from Python.

A notebook holds its texts in pandas: references keyed by the frame's
index (0, 1, 2, ...) and transcripts by clip id, or a model's transcripts
as a list or a Series with a default index.  No clip of ``references`` was
found in the transcripts, so ``clip_inputs`` returned no clip (or clips
without that model) and ``measure_refdis`` mined no edit and reported an
accept-ref of 0 edits for every model, with no error.  Now a model whose
texts share no clip id with the references is one line naming both sides'
ids, and a list is refused as not a dict; a Series indexed by clip id, and
a model with no texts at all (an empty prediction file), still go.
"""

from __future__ import annotations

import pandas as pd
from conftest import refusal_message

from asraudit import clip_inputs, measure_refdis

PANEL = ["m1", "m2", "m3"]
IDS = [f"c{i}" for i in range(8)]
REFS = {cid: f"madam president the report number {i} is late" for i, cid in enumerate(IDS)}
TRANSCRIPTS = {m: {cid: ref.removeprefix("madam president ") for cid, ref in REFS.items()} for m in PANEL}


message = refusal_message


def test_references_keyed_by_a_frames_index_are_refused():
    by_row = dict(enumerate(REFS.values()))  # df["text"].to_dict() of a frame with a default index
    assert message(lambda: clip_inputs(by_row, TRANSCRIPTS, "whisper")) == (
        "transcripts['m1'] shares no clip id with references (transcripts['m1']: 'c0', 'c1', 'c2', ...; "
        "references: 0, 1, 2, ...): key both by the same clip ids")


def test_a_models_texts_as_a_list_or_a_series_of_row_numbers_are_refused():
    as_list = {**TRANSCRIPTS, "m2": list(TRANSCRIPTS["m2"].values())}
    assert message(lambda: clip_inputs(REFS, as_list, "whisper")) == (
        "transcripts['m2'] is a list, not a dict of clip id -> text: transcripts maps each model to its texts "
        "keyed by clip id")
    as_rows = {**TRANSCRIPTS, "m3": pd.Series(list(TRANSCRIPTS["m3"].values()))}
    assert message(lambda: clip_inputs(REFS, as_rows, "whisper")) == (
        "transcripts['m3'] shares no clip id with references (transcripts['m3']: 0, 1, 2, ...; references: "
        "'c0', 'c1', 'c2', ...): key both by the same clip ids")


def test_texts_keyed_by_clip_id_mine_as_before():
    clips = clip_inputs(REFS, TRANSCRIPTS, "whisper")
    mined = measure_refdis(clips, PANEL, scored=PANEL, n_boot=0)
    assert len(clips) == len(mined.edits) == 8
    as_series = {m: pd.Series(texts) for m, texts in TRANSCRIPTS.items()}  # indexed by clip id: the same clips
    assert clip_inputs(REFS, as_series, "whisper") == clips
    with_empty = clip_inputs(REFS, {**TRANSCRIPTS, "empty": {}}, "whisper")  # a model that ran nothing: no vote
    assert with_empty == clips
    assert len(clip_inputs({"c0": REFS["c0"]}, TRANSCRIPTS, "whisper")) == 1  # references choose the clips
