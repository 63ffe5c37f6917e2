"""Case 339: a copy of the paper's released results whose set's ``language`` or ``split``, or a switch group's
``scope``, is not text: ``null`` (a field blanked by hand), a number, a list.

Each was read through ``str()`` and printed as released, exit 0: ``tiny (None, test)`` in the listing, ``g: None;
chance 0.5`` over a group's rows, and a scope of ``null`` named no corpus an audit could be put beside, while every
other name of the release (``dataset``, ``whitelist``, ``arms``) is refused when it is not text (cases 146, 256).
Now each is refused when the release is read, naming the file and the field; a field left out reads as before
(empty)."""

from __future__ import annotations

import pytest
from conftest import TINY_AGGREGATE, TINY_SWITCH, write_release


@pytest.mark.parametrize("key, value, shown", [("language", None, "None"), ("split", 3, "3"),
                                               ("language", ["en"], "['en']")])
def test_a_set_label_that_is_no_text_is_refused(tmp_path, cli, key, value, shown):
    release = write_release(tmp_path, TINY_AGGREGATE, TINY_SWITCH, lambda d: d.update({key: value}))
    ran = cli("reference", "--dir", release)
    assert (ran.code, ran.error_lines) == (2, [
        f"asraudit: error: {release / 'tiny_aggregate.json'}: tiny: {key} is {shown} "
        f"({type(value).__name__}), not text: the release writes it as a JSON string"])


def test_a_switch_scope_that_is_no_text_is_refused(tmp_path, cli):
    release = write_release(tmp_path, TINY_AGGREGATE, TINY_SWITCH, None, lambda d: d["g"].update(scope=None))
    ran = cli("reference", "--dir", release, "g")
    assert (ran.code, ran.error_lines) == (2, [
        f"asraudit: error: {release / 'ortho_switch.json'}: g: scope is None (NoneType), not text: the release "
        "writes it as a JSON string"])


def test_control_labels_left_out_read_as_empty(tmp_path, cli):
    def drop(d):
        del d["language"], d["split"]

    release = write_release(tmp_path, TINY_AGGREGATE, TINY_SWITCH, drop, lambda d: d["g"].pop("scope"))
    ran = cli("reference", "--dir", release)
    assert ran.code == 0 and "tiny (, )" in ran.out, ran.err
