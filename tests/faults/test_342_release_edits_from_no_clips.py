"""Case 342: a copy of the paper's released results whose set gives ``clips_analyzed: 0`` beside ``n_runs: 4``
(a count blanked by hand, a file pieced together from two sets).

Edits are mined from clips, so no set has edits from no clips; the release was read as released, exit 0, and
``reference`` printed its rows without a word (an audit's ``[published]`` drew them beside its own, edits on 0
clips).  Now the set is refused when it is read, naming the file and the field; a set with no edits on its clips
reads as before (control)."""

from __future__ import annotations

from conftest import TINY_AGGREGATE, TINY_SWITCH, write_release


def test_edits_mined_from_no_clips_are_refused(tmp_path, cli):
    release = write_release(tmp_path, TINY_AGGREGATE, TINY_SWITCH,
                            lambda d: d["prominence"].update(clips_analyzed=0))
    ran = cli("reference", "--dir", release, "tiny")
    assert (ran.code, ran.error_lines) == (2, [
        f"asraudit: error: {release / 'tiny_aggregate.json'}: prominence: n_runs is 4 but clips_analyzed is 0: edits "
        "are mined from the clips analyzed, so a set with edits analyzed some (a damaged file?)"])


def test_control_no_edits_on_clips_reads_as_before(tmp_path, cli):
    def no_edits(d):
        d["prominence"].update(n_runs=0, clips_analyzed=10)
        d["benchmaxx_leaderboard"][0].update(benchmaxx_score=0.0, accepted_ref=0, followed_consensus=0,
                                             eligible_runs=0)

    release = write_release(tmp_path, TINY_AGGREGATE, TINY_SWITCH, no_edits)
    assert cli("reference", "--dir", release, "tiny").code == 0
