"""Case 226: the reference-error probe from Python on no clip at all.

``measure_refdis([], panel, scored=[...])`` (clips built from texts keyed
apart from nothing, ``clip_inputs({}, ...)``, or a filter that kept no clip)
returned a result with no edit, every model's accept-ref over none and every
WER NaN, with no error, where ``asraudit refdis`` refuses a prediction set
with no clip; with no panel (``corrections`` or ``scored`` only) it was
``ValueError: min() arg is an empty sequence`` from the panel's shared-clip
check.  ``accept_ref_from_predictions`` on prediction files that are all
empty was the same ``ValueError``; ``asraudit refdis`` on them said
``--panel is required`` to a user who gave ``--panel`` (``--compat hume``
too), and with ``--corrected`` printed empty tables, exit 0.  Now each is
one line before any mining.
"""

from __future__ import annotations


from asraudit import accept_ref_from_predictions, clip_inputs, measure_refdis

from conftest import panel_files, refusal_message

EMPTY = ("clips is empty, so there is nothing to mine or score: clip_inputs keeps a clip only where a model it "
         "names has a transcript of it; give it the texts the models ran")


message = refusal_message


def test_measure_refdis_refuses_no_clips():
    no_clips = clip_inputs({}, {"m1": {}, "m2": {}, "m3": {}}, "whisper")
    assert no_clips == []
    for call in (lambda: measure_refdis(no_clips, ["m1", "m2", "m3"], scored=["m1"], n_boot=0),
                 lambda: measure_refdis([], [], scored=["m1"], n_boot=0),
                 lambda: measure_refdis([], ["m1", "m2"], scored=["m1"], corrections={"c0": ("a",)}, n_boot=0),
                 lambda: measure_refdis(iter([]), [], scored=[], n_boot=0)):
        assert message(call) == EMPTY


def test_accept_ref_from_predictions_on_empty_files(tmp_path):
    panel_files(tmp_path, [])
    files = ", ".join(str(tmp_path / f"{m}.jsonl") for m in ("m1", "m2", "m3"))
    assert message(lambda: accept_ref_from_predictions(tmp_path, ["m1", "m2", "m3"])) == \
        f"{files}: no row with a hypothesis in any (every prediction file is empty), so there is nothing to mine " \
        "or score"


def test_one_clip_still_mines():
    clips = clip_inputs({"c0": "the cat sat"}, {m: {"c0": "well the cat sat"} for m in ("m1", "m2", "m3")},
                        "whisper")
    assert len(measure_refdis(clips, ["m1", "m2", "m3"], scored=["m1"], n_boot=0).edits) == 1


def test_refdis_on_prediction_files_that_are_all_empty(tmp_path, cli, monkeypatch):
    monkeypatch.chdir(tmp_path)
    panel_files(tmp_path / "p", [])
    corrected = tmp_path / "corrected.jsonl"
    corrected.write_text('{"audio_filepath": "c0", "text": "the cat sat"}\n', encoding="utf-8")
    said = ("asraudit: error: p/m1.jsonl, p/m2.jsonl, p/m3.jsonl: no row with a hypothesis in any (every prediction "
            "file is empty), so there is nothing to mine or score")
    # before: "--panel is required" to a user who gave one, or (--corrected) empty tables and exit 0
    for extra in (["--panel", "m1,m2,m3"], ["--panel", "m1,m2,m3", "--compat", "hume"],
                  ["--corrected", "corrected.jsonl"]):
        ran = cli("refdis", "--preds", "p", *extra)
        assert ran.code == 2 and ran.out == "" and ran.error_lines == [said], extra
