"""Case 337: an audit's ``[translation] truth`` file with spans on clips outside the corpus (a truth file of the
whole benchmark, the audit run on a subset). ``translate --truth`` leaves them out with a warning saying how many
(case 159); the audit left them out silently, so its translation section measured fewer planted spans than the
file held without a word. Now both read the file through one check (``probes.translation_probe.truth_outside``)
and say so: ``translate`` as a warning, the audit, whose specs commonly audit one split against the whole
benchmark's truth file, as a note when the spec is checked, before any model runs.  Clips a ``[corpus] select`` or
``limit`` leaves out are left out on purpose and not named."""

from __future__ import annotations

import json

import numpy as np
import soundfile as sf

from conftest import two_pocketsphinx_audit

SPAN = {"kind": "delete", "r": "we", "a": "", "ref_start": 0, "ref_end": 2}
NOTE = "asraudit: note: the spans of 1 clip(s) outside the corpus left out, e.g. b.wav"


def _spec(tmp_path, truth: dict, corpus: str = ""):
    sf.write(tmp_path / "a.wav", np.zeros(16_000, dtype=np.float32), 16_000)
    sf.write(tmp_path / "b.wav", np.zeros(16_000, dtype=np.float32), 16_000)
    rows = [{"audio_filepath": "a.wav", "text": "we agree"}] + ([{"audio_filepath": "b.wav", "text": "we agree"}]
                                                               if corpus else [])
    (tmp_path / "m.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    (tmp_path / "truth.json").write_text(json.dumps(truth), encoding="utf-8")
    spec = tmp_path / "audit.toml"
    spec.write_text(two_pocketsphinx_audit().replace("[corpus]\n", "[corpus]\n" + corpus) + '[[model]]\nspec = "whisper-base"\n[translation]\ntruth = "truth.json"\n',
                    encoding="utf-8")
    return spec


def test_audit_check_notes_truth_spans_outside_the_corpus(tmp_path, cli):
    spec = _spec(tmp_path, {"a.wav": {"edits": [SPAN]}, "b.wav": {"edits": [SPAN]}, "c.wav": {"edits": []}})
    ran = cli("audit", spec, "--check")
    assert ran.code == 0, ran.err
    assert NOTE in ran.err.splitlines()  # c.wav has no span, so it is not counted


def test_control_truth_all_on_the_corpus_gives_no_warning(tmp_path, cli):
    spec = _spec(tmp_path, {"a.wav": {"edits": [SPAN]}})
    ran = cli("audit", spec, "--check")
    assert ran.code == 0 and "outside the corpus" not in ran.err, ran.err


def test_control_a_clip_the_spec_leaves_out_on_purpose_is_not_named(tmp_path, cli):
    spec = _spec(tmp_path, {"a.wav": {"edits": [SPAN]}, "b.wav": {"edits": [SPAN]}}, corpus="limit = 1\n")
    ran = cli("audit", spec, "--check")
    assert ran.code == 0 and "outside the corpus" not in ran.err, ran.err
