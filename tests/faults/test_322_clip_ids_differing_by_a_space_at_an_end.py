"""Case 322: clip ids that differ only by a space at an end between two prediction files (``c1`` in one, ``c1 ``
in the other, a spreadsheet's cell or a hand edit), or between a manifest and a prediction file.

Clip ids are exact strings (a name may end in a space), so they are two clips and are not stripped; but nothing
said why they failed to match: ``wer`` printed ``ran 2/4`` for every model, exit 0, refusals of files sharing no
clip named the first ids (``'c1'``, ``'c1 '``) with the advice to "name each clip by the same id", and a replayed
file's refusal named ``'a.wav'`` while the file plainly held ``a.wav``.  Now one line names the two ids and the
space: a warning where files may run other clips, the error's reason where they must share some (as case 321 names
an audio path's space).
"""

from __future__ import annotations

import json

from conftest import one_clip_manifest, write_preds

from asraudit.data.predictions import load_predictions

WORDS = ("m1.jsonl's clip 'c1' and m2.jsonl's 'c1 ' differ only by a space at an end, and clip ids are compared as "
         "written, so they are two clips: remove the space")
WARNING = f"asraudit: warning: {WORDS}, or the models are scored on different clips"


def _files(folder, second_ids):
    folder.mkdir()
    write_preds(folder / "m1.jsonl", [("c1", "the cat", "the cat"), ("c2", "a dog", "a dog")])
    write_preds(folder / "m2.jsonl", [(second_ids[0], "the cat", "the hat"), (second_ids[1], "a dog", "a dog")])
    return folder


def _warnings(err):
    return [line for line in err.splitlines() if line.startswith("asraudit: warning:")]


def test_wer_warns_where_some_clips_differ_by_a_space(tmp_path, cli):
    preds = _files(tmp_path / "p", ("c1 ", "c2"))
    ran = cli("wer", "--preds", preds)
    assert ran.code == 0
    assert _warnings(ran.err) == [WARNING]
    assert "2/3" in ran.out  # still two clips: the ids are not stripped


def test_wer_paired_names_the_space_where_no_clip_is_shared(tmp_path, cli):
    preds = _files(tmp_path / "p", ("c1 ", "c2 "))
    ran = cli("wer", "--preds", preds, "--paired")
    assert (ran.code, ran.error_lines) == (2, [
        f"asraudit: error: {preds / 'm2.jsonl'}: m1.jsonl and m2.jsonl share no clip id, so --paired has no clip to "
        f"compare them on: {WORDS}"])


def test_loaded_predictions_warn_and_a_panel_is_refused_with_the_reason(tmp_path):
    pset = load_predictions(_files(tmp_path / "p", ("c1 ", "c2")))
    assert pset.warnings == [WARNING.removeprefix("asraudit: warning: ")]
    disjoint = load_predictions(_files(tmp_path / "q", ("c1 ", "c2 ")))
    try:
        disjoint.require_shared_clips(["m1", "m2"])
    except Exception as err:  # noqa: BLE001 (the message is what is checked)
        assert str(err).endswith(f"so the panel's vote has no clip to compare them on: {WORDS}")
    else:
        raise AssertionError("a panel sharing no clip was accepted")


def test_a_group_manifest_whose_ids_have_the_space(tmp_path, cli, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _files(tmp_path / "p", ("c1", "c2"))
    (tmp_path / "g.jsonl").write_text(json.dumps({"audio_filepath": "c1 ", "speaker": "a"}) + "\n"
                                      + json.dumps({"audio_filepath": "c2", "speaker": "b"}) + "\n", encoding="utf-8")
    ran = cli("wer", "--preds", "p/m1.jsonl", "--group-field", "speaker", "--manifest", "g.jsonl")
    assert ran.code == 0
    assert _warnings(ran.err) == [
        "asraudit: warning: g.jsonl has no row for 1 of the 2 clip(s) of the prediction files: m1.jsonl's clip 'c1' "
        "and g.jsonl's 'c1 ' differ only by a space at an end, and clip ids are compared as written, so they are two "
        "clips: remove the space, or --group-field speaker puts such clips in the group (none)"]


def test_a_replayed_file_whose_id_has_the_space(tmp_path, cli, monkeypatch):
    monkeypatch.chdir(tmp_path)
    manifest = one_clip_manifest(tmp_path)  # a.wav
    (tmp_path / "mine.jsonl").write_text(json.dumps({"audio_filepath": "a.wav ", "text": "a tone",
                                                     "pred_text": "a tone"}) + "\n", encoding="utf-8")
    ran = cli("transcribe", "--model", "replay:mine.jsonl", "--corpus", manifest, "--out", "o", "--no-progress")
    assert (ran.code, ran.error_lines) == (2, [
        "asraudit: error: mine.jsonl: no prediction for clip(s) 'a.wav': the corpus's clip 'a.wav' and mine.jsonl's "
        "'a.wav ' differ only by a space at an end, and clip ids are compared as written, so they are two clips: "
        "remove the space"])


def test_an_audits_replayed_model_whose_id_has_the_space(tmp_path, cli, monkeypatch):
    monkeypatch.chdir(tmp_path)
    rows = [(f"c{i}.wav", f"the cat sat {i}", f"the cat sat {i}") for i in range(3)]
    for i in range(3):
        write_preds(tmp_path / f"m{i}.jsonl", [(c + " " if i == 1 and c == "c0.wav" else c, r, h) for c, r, h in rows])
    (tmp_path / "audit.toml").write_text('out = "out"\n[corpus]\npredictions = "m0.jsonl"\n\n' + "".join(
        f'[[model]]\npredictions = "m{i}.jsonl"\npanel = true\n\n' for i in range(3)), encoding="utf-8")
    ran = cli("audit", "audit.toml", "--check")
    assert ran.code == 2
    assert ran.error_lines == [
        f"asraudit: error: audit.toml: [[model]] #2: the prediction file {tmp_path / 'm1.jsonl'} has no row for 1 "
        "clip(s) of the corpus: the corpus's clip 'c0.wav' and m1.jsonl's 'c0.wav ' differ only by a space at an end, "
        "and clip ids are compared as written, so they are two clips: remove the space"]


def test_control_ids_that_differ_otherwise_read_as_before(tmp_path, cli):
    preds = _files(tmp_path / "p", ("c8", "c9"))
    ran = cli("wer", "--preds", preds, "--paired")
    assert ran.error_lines == [
        f"asraudit: error: {preds / 'm2.jsonl'}: m1.jsonl and m2.jsonl share no clip id, so --paired has no clip to "
        "compare them on: m1.jsonl names its clips like 'c1', m2.jsonl like 'c8'; prediction files of one benchmark "
        "name each clip by the same id"]
    assert _warnings(cli("wer", "--preds", _files(tmp_path / "q", ("c1", "c9"))).err) == []
