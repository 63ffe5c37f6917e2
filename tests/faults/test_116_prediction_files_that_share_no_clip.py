"""Case 116: prediction files of one benchmark that name its clips differently, so they share no clip id.

The leaderboard layout names a clip by its ``audio_filepath``: files written
on two machines hold ``/home/user0/data/c0.wav`` and ``/home/user1/data/c0.wav``
for one recording.  asraudit compares ids as written, so they shared no
clip, and every comparison came out empty with exit 0: ``refdis`` (and
``--compat hume``, ``accept_ref_from_predictions``) mined no edit ("clips: 12
(small panel 12)"), ``wer --common`` scored every model on nothing, ``wer
--paired`` printed NaN for every pair, and a scored model whose file named
its clips otherwise got no accept-ref; from Python, ``measure_refdis`` on
``clip_inputs`` whose transcripts were keyed so mined nothing; a ``wer
--manifest`` so keyed put every clip in the group "(none)", and a ``refdis
--corrected`` file so keyed corrected nothing ("edits: 0", after a warning).  Each is now one line naming the two
files and a clip id of each (and, when the names match under other folders,
saying so), before any table; files that share some clips run as before.
"""

from __future__ import annotations

import pytest

from asraudit import InputError, accept_ref_from_predictions, clip_inputs, load_predictions, measure_refdis

from conftest import write_preds

ROWS = [(f"c{i}.wav", f"well the cat sat on mat {i}", f"the cat sat on mat {i}") for i in range(4)]
HINT = ("(the same file name under other folders: files written on other machines?); name each clip by one id "
        "everywhere, e.g. the path relative to the corpus")


@pytest.fixture()
def machines(tmp_path):
    """m1..m3: the same clips, each file under the paths of its own machine."""
    for k in range(1, 4):
        write_preds(tmp_path / f"m{k}.jsonl", [(f"/home/user{k}/data/{c}", r, h) for c, r, h in ROWS])
    return tmp_path


def line(what: str, a: int = 1, b: int = 2) -> str:
    return (f"m{a}.jsonl and m{b}.jsonl share no clip id, so {what} has no clip to compare them on: m{a}.jsonl names "
            f"its clips like '/home/user{a}/data/c0.wav', m{b}.jsonl like '/home/user{b}/data/c0.wav' {HINT}")


@pytest.mark.parametrize("flag", ["--common", "--paired"])
def test_wer_common_and_paired(machines, cli, flag):
    files = [machines / f"m{k}.jsonl" for k in range(1, 4)]
    ran = cli("wer", "--preds", *files, flag, "--bootstrap", 10)
    assert ran.code == 2 and ran.out == ""
    assert ran.error_lines == [f"asraudit: error: {files[1]}: {line(flag)}"]
    assert cli("wer", "--preds", *files).code == 0  # each model on its own clips: nothing compared


@pytest.mark.parametrize("compat", [[], ["--compat", "hume"]], ids=["full", "hume"])
def test_refdis_panel(machines, cli, compat):
    ran = cli("refdis", "--preds", machines, "--panel", "m1,m2,m3", *compat)
    assert ran.code == 2 and ran.out == ""
    vote = line("the panel's vote")
    assert ran.error_lines == [f"asraudit: error: {machines / 'm2.jsonl'}: {vote}"]


def test_a_scored_model_named_otherwise_and_the_python_api(tmp_path, cli):
    for k in range(1, 4):
        write_preds(tmp_path / f"m{k}.jsonl", ROWS)
    write_preds(tmp_path / "odd.jsonl", [(f"/scratch/{c}", r, h) for c, r, h in ROWS])
    expected = ("m1.jsonl and odd.jsonl share no clip id, so accept-ref has no clip to compare them on: m1.jsonl "
                f"names its clips like 'c0.wav', odd.jsonl like '/scratch/c0.wav' {HINT}")
    ran = cli("refdis", "--preds", tmp_path, "--panel", "m1,m2,m3")
    assert ran.error_lines == [f"asraudit: error: {tmp_path / 'odd.jsonl'}: {expected}"]
    with pytest.raises(InputError) as err:
        accept_ref_from_predictions(load_predictions(tmp_path), ["m1", "m2", "m3"])
    assert str(err.value) == f"{tmp_path / 'odd.jsonl'}: {expected}"
    result = accept_ref_from_predictions(load_predictions(tmp_path), ["m1", "m2", "m3"], models=["m1", "m2"])
    assert len(result.edits) == 4  # the panel's own files share every clip


def test_transcripts_keyed_by_two_spellings_from_python():
    refs = {f"/home/user{k}/data/{c}": r for k in (1, 2) for c, r, _ in ROWS}
    transcripts = {f"m{k}": {f"/home/user{1 if k != 2 else 2}/data/{c}": h for c, _, h in ROWS} for k in (1, 2, 3)}
    clips = clip_inputs(refs, transcripts, "whisper")
    with pytest.raises(InputError) as err:
        measure_refdis(clips, ["m1", "m2", "m3"], scored=["m1", "m2", "m3"])
    assert str(err.value) == line("the panel's vote").replace(".jsonl", "")
    # a human correction takes the panel's place: nothing is voted, nothing refused
    assert measure_refdis(clips, ["m1", "m2", "m3"], corrections={}, scored=["m1"]).edits == []


def test_a_group_manifest_naming_its_clips_otherwise(machines, cli):
    manifest = machines / "corpus.jsonl"
    write_preds(manifest, [(f"/data/{c}", r, "") for c, r, _ in ROWS])
    (machines / "corpus.jsonl").write_text(manifest.read_text(encoding="utf-8").replace('"pred_text": ""',
                                                                                      '"speaker": "s1"'),
                                           encoding="utf-8")
    ran = cli("wer", "--preds", machines / "m1.jsonl", "--group-field", "speaker", "--manifest", manifest)
    assert ran.code == 2 and ran.out == ""
    assert ran.error_lines == [
        f"asraudit: error: {manifest}: m1.jsonl and corpus.jsonl share no clip id, so --group-field speaker would put "
        "every clip of m1.jsonl in the group (none): m1.jsonl names its clips like '/home/user1/data/c0.wav', "
        f"corpus.jsonl like '/data/c0.wav' {HINT}"]


def test_a_corrected_reference_file_naming_its_clips_otherwise(machines, cli):
    corrected = machines / "fixed.jsonl"
    write_preds(corrected, [(f"/data/{c}", r.replace("well ", ""), "") for c, r, _ in ROWS])
    ran = cli("refdis", "--preds", machines / "m1.jsonl", "--corrected", corrected)
    assert ran.code == 2 and ran.out == ""
    assert ran.error_lines == [
        f"asraudit: error: {corrected}: m1.jsonl and fixed.jsonl share no clip id, so fixed.jsonl corrects no clip "
        f"the models ran: m1.jsonl names its clips like '/home/user1/data/c0.wav', fixed.jsonl like '/data/c0.wav' "
        f"{HINT}"]
    write_preds(corrected, [(f"/home/user1/data/{c}", r.replace("well ", ""), "") for c, r, _ in ROWS[:1]]
                + [("/data/c1.wav", "the cat", "")])
    ran = cli("refdis", "--preds", machines / "m1.jsonl", "--corrected", corrected)  # some match: warned, as before
    assert ran.code == 0 and "1 corrected clip(s) not in the predictions" in ran.err


def test_files_sharing_some_clips_but_none_all_of_them(tmp_path, cli):
    write_preds(tmp_path / "a.jsonl", ROWS[0:2])
    write_preds(tmp_path / "b.jsonl", ROWS[1:3])
    write_preds(tmp_path / "c.jsonl", [ROWS[0], ROWS[2]])
    ran = cli("wer", "--preds", tmp_path, "--common")
    assert ran.error_lines == [f"asraudit: error: {tmp_path / 'c.jsonl'}: no clip is in every one of a.jsonl, "
                               "b.jsonl, c.jsonl (each two share some), so --common has no clip to compare them "
                               "on: leave it out, or leave out the file that ran other clips"]
    write_preds(tmp_path / "c.jsonl", ROWS[1:2])
    ran = cli("wer", "--preds", tmp_path, "--common", "--paired", "--bootstrap", 10)
    assert ran.code == 0 and "Paired bootstrap on 1 common clips" in ran.out
