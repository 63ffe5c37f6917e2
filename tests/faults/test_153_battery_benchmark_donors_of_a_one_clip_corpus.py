"""Case 153: a battery drawing on the corpus's own clips (babble noise, ``donor = "benchmark"``) over a corpus that
has no other clip to give.

A donor is another clip of the corpus that says something else than the clip. A corpus of one clip (a first try
of the built-in ``paper`` battery on one file), or whose clips all say one text (one sentence read by several
speakers), has none: the battery found it when it reached the condition, after the models had run every
condition before it, babble as ``ValueError: babble noise needs donor audio (other clips)`` (a traceback), the
splice as one line naming neither the spec nor the condition. Now it is refused with the spec's other checks,
before the aligner or any model runs (``audit --check`` too), and the donor pool says it in one line if reached.
Babble of ``donors = 3`` over a corpus where a clip has fewer other clips that say something else was summed
from the ones there were (one voice: a competing talker, not babble) without a word; it is refused the same way.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from conftest import one_clip_manifest

from asraudit.data.corpus import load_corpus
from asraudit.errors import InputError
from asraudit.probes.battery import parse_spec
from asraudit.probes.battery_donors import DonorPool

BABBLE = 'type = "noise"\nsnr_db = 10\nkind = "babble"\n'
SPLICE = 'type = "splice"\ndonor = "benchmark"\nseconds = 2\n'


def _battery(tmp_path: Path, condition: str) -> Path:
    spec = tmp_path / "b.toml"
    spec.write_text('probes = ["accept-ref"]\n[[condition]]\nname = "original"\n[[condition]]\nname = "x"\n'
                    + condition, encoding="utf-8")
    return spec


@pytest.mark.parametrize("condition, what, fix", [
    (BABBLE, "babble noise is summed from", 'use kind = "white", or'),
    (SPLICE, "donor 'benchmark' splices", "use a corpus: or tts: donor, or"),
])
def test_a_one_clip_corpus_is_refused_before_any_model_runs(tmp_path, cli, condition, what, fix):
    manifest = one_clip_manifest(tmp_path, text="a tone")
    edits = tmp_path / "edits.jsonl"
    edits.write_text(json.dumps({"edit_id": "e1", "clip": "a.wav", "kind": "delete", "position": "start",
                                 "ref_start": 0, "ref_end": 1, "r": "a", "a": ""}) + "\n", encoding="utf-8")
    spec = _battery(tmp_path, condition)
    ran = cli("battery", "--spec", spec, "--model", "whisper-tiny.en", "--corpus", manifest, "--edits", edits,
              "--no-mask", "--out", tmp_path / "out", "--no-progress", "--bootstrap", "10")
    assert (ran.code, ran.error_lines) == (2, [
        f"asraudit: error: {spec}: [[condition]] #2 (x): {what} other clips of the corpus that say something else "
        f"than the clip, and the corpus holds one clip ('a.wav'), so no clip has a donor: {fix} audit a larger "
        "corpus"])
    assert "battery condition original" not in ran.err  # no condition ran
    assert not (tmp_path / "out").exists()


def test_clips_that_all_say_one_text_give_no_donor(tmp_path):
    from asraudit.probes.battery import check_benchmark_donors

    one_clip_manifest(tmp_path, text="The cat sat")
    shutil.copy(tmp_path / "a.wav", tmp_path / "b.wav")
    (tmp_path / "m.jsonl").write_text(json.dumps({"audio_filepath": "a.wav", "text": "The cat sat"}) + "\n"
                                      + json.dumps({"audio_filepath": "b.wav", "text": "the  cat sat"}) + "\n",
                                      encoding="utf-8")
    corpus = load_corpus(tmp_path / "m.jsonl")
    spec = parse_spec({"condition": [{"name": "original"}, {"name": "x", "type": "noise", "snr_db": 5,
                                                            "kind": "babble"}]}, "b.toml")
    with pytest.raises(InputError) as err:
        check_benchmark_donors(spec, corpus)
    assert "and the corpus holds 2 clips that all say one text, so no clip has a donor" in str(err.value)
    said = {"b.wav": "a dog ran"}  # what the run reads the clip as saying
    with pytest.raises(InputError) as err:  # babble of 3 voices (the default) from one other clip
        check_benchmark_donors(spec, corpus, said)
    assert str(err.value) == (
        "b.toml: [[condition]] #2 (x): babble noise sums donors = 3 other clips of the corpus that say something else "
        "than the clip, and clip 'a.wav' has 1 (the corpus holds 2 clips), so its babble would hold fewer voices "
        "than asked: give donors = 1, or audit a larger corpus")
    check_benchmark_donors(parse_spec({"condition": [{"name": "x", "type": "noise", "snr_db": 5, "kind": "babble",
                                                      "donors": 1}]}, "b.toml"), corpus, said)
    check_benchmark_donors(parse_spec({"condition": [{"name": "x", "type": "splice", "donor": "benchmark",
                                                      "seconds": 2}]}, "b.toml"), corpus, said)
    with pytest.raises(InputError) as err:  # reached at run time (the Python API): one line, not a ValueError
        DonorPool("benchmark", corpus, {}).sample("a.wav", "the cat sat", 3, 0)
    assert str(err.value) == "donor source 'benchmark' has no utterance other than clip 'a.wav'"


def test_audit_check_refuses_it_before_any_model_loads(tmp_path, cli):
    one_clip_manifest(tmp_path)
    _battery(tmp_path, SPLICE)
    spec = tmp_path / "audit.toml"
    spec.write_text('out = "o"\n[corpus]\nmanifest = "m.jsonl"\n[[model]]\nspec = "whisper-tiny.en"\n'
                    '[battery]\nspec = "b.toml"\n', encoding="utf-8")
    ran = cli("audit", spec, "--check")
    assert ran.code == 2 and len(ran.error_lines) == 1
    assert ran.error_lines[0].startswith(f"asraudit: error: {tmp_path / 'b.toml'}: [[condition]] #2 (x): donor "
                                         "'benchmark' splices other clips")
