"""Case 340: a copy of the paper's released results whose switch file's name is in another case
(``Ortho_Switch.JSON``, a copy through a tool that changes case).

The aggregates are matched ignoring case (case 311), the switch file was not: it was not read and not named, the
listing went on without its switch groups, exit 0, and an audit's ``[published]`` had none to put beside its
own. Now it is found ignoring case (hidden files still skipped), and two files of switch groups (``ortho_switch.json``
beside ``ORTHO_SWITCH.json``) are refused, naming both, rather than one hiding the other."""

from __future__ import annotations

from conftest import TINY_AGGREGATE, TINY_SWITCH, write_release


def test_a_switch_file_named_in_another_case_is_read(tmp_path, cli):
    release = write_release(tmp_path, TINY_AGGREGATE, TINY_SWITCH)
    (release / "ortho_switch.json").rename(release / "Ortho_Switch.JSON")
    ran = cli("reference", "--dir", release)
    assert ran.code == 0, ran.err
    assert "Published switch rates" in ran.out and "within-tiny" in ran.out
    assert cli("reference", "--dir", release, "g").code == 0


def test_two_switch_files_are_refused(tmp_path, cli):
    release = write_release(tmp_path, TINY_AGGREGATE, TINY_SWITCH)
    (release / "ORTHO_SWITCH.json").write_bytes((release / "ortho_switch.json").read_bytes())
    ran = cli("reference", "--dir", release)
    assert (ran.code, ran.error_lines) == (2, [
        f"asraudit: error: {release}: two switch files, ORTHO_SWITCH.json and ortho_switch.json: a release has one "
        "ortho_switch.json; remove the copy"])


def test_control_a_hidden_copy_is_not_read(tmp_path, cli):
    release = write_release(tmp_path, TINY_AGGREGATE, TINY_SWITCH)
    (release / "._ortho_switch.json").write_bytes(b"\x00\x05\x16\x07")  # a Mac's metadata beside the file
    ran = cli("reference", "--dir", release)
    assert ran.code == 0 and "within-tiny" in ran.out, ran.err
