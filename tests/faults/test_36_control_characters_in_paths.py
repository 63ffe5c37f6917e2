"""Case 36: a path holding a NUL or a newline is one line, not a traceback or two lines.

A manifest row ``"audio_filepath": "a\\u0000b.wav"`` (JSON allows the escape)
crashed while the error was worded: ``ValueError: embedded null byte`` from
``Path.resolve`` in ``display_path``, a traceback.  So did ``out =
"o\\u0000x"`` in an audit spec (from the check that outputs are not inputs).
A row ``"a\\nb.wav"`` printed its error over two lines.  Now every error line
escapes control characters and line separators (``a\\nb.wav``), paths
shown in errors survive a NUL, and a spec's path refuses a NUL by name.
"""

from __future__ import annotations

import json

import pytest


@pytest.mark.parametrize("name, shown", [("a\u0000b.wav", "a\\x00b.wav"), ("a\nb.wav", "a\\nb.wav"),
                                         ("a\u2028b.wav", "a\\u2028b.wav")])
def test_a_manifest_path_with_a_control_character_is_one_line(tmp_path, cli, name, shown):
    manifest = tmp_path / "m.jsonl"
    manifest.write_text(json.dumps({"audio_filepath": name, "text": "x"}) + "\n", encoding="utf-8")
    ran = cli("transcribe", "--model", "pocketsphinx", "--corpus", manifest, "--out", tmp_path / "out",
              "--no-progress")
    assert ran.code == 2
    assert ran.err.splitlines() == [f"asraudit: error: {manifest}, row 1: audio file {tmp_path}/{shown} is missing"]


def test_a_spec_path_with_a_nul_is_refused_by_name(tmp_path, cli):
    (tmp_path / "p.jsonl").write_text(json.dumps({"audio_filepath": "c0", "text": "x", "pred_text": "x"}) + "\n")
    spec = tmp_path / "audit.toml"
    spec.write_text('out = "o\\u0000x"\n[corpus]\npredictions = "p.jsonl"\n[[model]]\npredictions = "p.jsonl"\n',
                    encoding="utf-8")
    ran = cli("audit", spec, "--check")
    assert ran.code == 2
    assert ran.err.splitlines() == [f"asraudit: error: {spec}: spec: out: a path cannot hold a NUL character "
                                    "(\\u0000), got 'o\\x00x'"]
