"""The audit's `scorer` key: the spec chooses how WER counts errors, and the summary records it."""

from __future__ import annotations

import json

import pytest

from asraudit.audit.spec import parse_spec
from asraudit.cli import main
from test_audit import MANIFEST, _replay_spec, _spec_file, published_schema

pytest.importorskip("kaldialign")

BASE = {"corpus": {"manifest": str(MANIFEST)}, "model": [{"spec": "pocketsphinx"}]}


@pytest.mark.parametrize("given, scorer, normalizer", [
    ({}, "asraudit", "whisper"),
    ({"scorer": "leaderboard"}, "leaderboard", "leaderboard"),
    ({"scorer": "leaderboard", "normalizer": "whisper"}, "leaderboard", "whisper"),
])
def test_the_scorer_brings_its_normalizer_unless_the_spec_names_one(given, scorer, normalizer):
    spec = parse_spec({**BASE, **given})
    assert (spec.scorer, spec.normalizer) == (scorer, normalizer)


def test_an_unknown_scorer_names_the_key(tmp_path, capsys):
    assert main(["audit", str(_spec_file(tmp_path, 'scorer = "sclite"\n' + _replay_spec(tmp_path))), "--check"]) == 2
    assert "scorer must be one of asraudit, leaderboard" in capsys.readouterr().err


def test_a_leaderboard_audit_records_its_scorer_and_normalizer(tmp_path, capsys):
    spec = _spec_file(tmp_path, 'scorer = "leaderboard"\n' + _replay_spec(tmp_path))
    assert main(["audit", str(spec), "--no-progress"]) == 0
    summary = json.loads((tmp_path / "out" / "summary.json").read_text(encoding="utf-8"))
    assert (summary["provenance"]["scorer"], summary["provenance"]["normalizer"]) == ("leaderboard", "leaderboard")
    jsonschema = pytest.importorskip("jsonschema")
    capsys.readouterr()  # the audit's own output, before the schema is read from what `asraudit schema` prints
    jsonschema.validate(summary, published_schema(capsys))
