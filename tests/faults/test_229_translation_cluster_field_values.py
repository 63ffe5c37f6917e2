"""Case 229: the translation probe's cluster field (``translate --cluster-field``, ``[translation] cluster_field``).

The probe read a clip's field from its metadata only, so ``speaker`` (the
corpus reads a speaker column into the clip's speaker, case 27) was "clip
'a.wav' has no field 'speaker'": in ``translate`` once the models had
loaded, in an audit once every stage before the translation stage had run
(its up-front check, case 77, reads the speaker and passed).  The values
were compared as printed: a sentence ``1`` and ``1.0`` (a pandas column with
a gap) were two clusters, a NaN a cluster "nan" (``audit --check`` passed
it).  ``translate`` looked for the field only once the models had loaded;
``--cluster-field ""`` (``cluster_field = ""``) counted clips, with no word.
Now the field is read as a group's value is (``Clip.field``, ``group_label``),
and every refusal comes before any model loads.
"""

from __future__ import annotations

import json

import numpy as np
import soundfile as sf

from asraudit import load_corpus
from asraudit.probes.translation_probe import clusters_of


def corpus(tmp_path, rows) -> str:
    for i in range(len(rows)):
        sf.write(tmp_path / f"c{i}.wav", np.zeros(16_000, dtype=np.float32), 16_000)
    (tmp_path / "m.jsonl").write_text("".join(json.dumps({"audio_filepath": f"c{i}.wav", "text": "we agree", **r})
                                              + "\n" for i, r in enumerate(rows)), encoding="utf-8")
    return "m.jsonl"


def translate(cli, tmp_path, field):
    edits = tmp_path / "edits.jsonl"
    edits.write_text("".join(json.dumps({"edit_id": f"e{i}", "clip": f"c{i}.wav", "kind": "delete",
                                         "position": "start", "ref_start": 0, "ref_end": 1, "r": "we", "a": ""})
                             + "\n" for i in range(2)), encoding="utf-8")
    return cli("translate", "--model", tmp_path / "no-such-model", "--corpus", "m.jsonl", "--edits", edits,
               "--target", "es", "--out", tmp_path / "t.jsonl", "--no-progress", "--cluster-field", field)


def test_speaker_and_numbers_are_read_as_group_values(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    clips = load_corpus(corpus(tmp_path, [{"speaker": "v1", "sentence": 1}, {"speaker": "v2", "sentence": 1.0}])).clips
    assert clusters_of(clips, "speaker") == {"c0.wav": "v1", "c1.wav": "v2"}
    assert clusters_of(clips, "sentence") == {"c0.wav": "1", "c1.wav": "1"}


def test_translate_refuses_a_field_before_any_model_loads(tmp_path, cli, monkeypatch):
    monkeypatch.chdir(tmp_path)
    corpus(tmp_path, [{"sentence": "s1"}, {"sentence": float("nan")}])
    ran = translate(cli, tmp_path, "sentence")
    assert ran.code == 2 and ran.error_lines == [
        "asraudit: error: m.jsonl, row 2: clip 'c1.wav' has no field 'sentence' (the translation probe's "
        "cluster_field)"]
    assert translate(cli, tmp_path, "sentense").error_lines == [
        "asraudit: error: m.jsonl, row 1: clip 'c0.wav' has no field 'sentense' (the translation probe's "
        "cluster_field)"]
    assert translate(cli, tmp_path, "").error_lines == [
        "asraudit: error: cluster_field names the clip field whose values the intervals count, got ''"]
    corpus(tmp_path, [{"speaker": "v1"}, {"speaker": "v2"}])
    ran = translate(cli, tmp_path, "speaker")  # the field is there: the missing model is the only error
    assert ran.code == 2 and len(ran.error_lines) == 1 and "no-such-model" in ran.error_lines[0]
    assert not (tmp_path / "t.jsonl").exists()


def test_audit_check_reads_the_values_as_the_stage_does(tmp_path, cli, monkeypatch):
    monkeypatch.chdir(tmp_path)
    corpus(tmp_path, [{"sentence": "s1"}, {"sentence": float("nan")}])
    (tmp_path / "truth.json").write_text("{}", encoding="utf-8")
    spec = tmp_path / "audit.toml"
    head = '[corpus]\nmanifest = "m.jsonl"\n[[model]]\nspec = "whisper-base"\n[translation]\ntruth = "truth.json"\n'
    spec.write_text(head + 'cluster_field = "sentence"\n', encoding="utf-8")
    assert cli("audit", spec, "--check").error_lines == [
        "asraudit: error: m.jsonl, row 2: clip 'c1.wav' has no field 'sentence' (the translation probe's "
        "cluster_field)"]
    spec.write_text(head + 'cluster_field = ""\n', encoding="utf-8")
    assert cli("audit", spec, "--check").error_lines == [
        f"asraudit: error: {spec.name}: [translation]: cluster_field names the clip field whose values the "
        "intervals count, got ''"]
