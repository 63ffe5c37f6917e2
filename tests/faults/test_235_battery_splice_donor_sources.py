"""Case 235: a splice condition's donor source: holding less audio than its ``seconds``, or named as an output.

Donors are joined whole until they last ``seconds``.  A source that holds less (a ``corpus:`` donor set of one
short utterance, the ten TTS sentences, about 30 s in all, against ``seconds = 60``, a corpus of a few clips as its
own ``benchmark`` donors) gave each clip all it had, without a word: the paper's contrast of benchmark against
other donor then set a 4-s splice against a 1-s one under one ``seconds = 8``, and its difference in differences
measured the donors' lengths as much as their source.  Now it is refused with the spec's other checks, from the
donors' headers, before the aligner or any model runs (``audit --check`` too).

A ``corpus:`` donor set is an input the spec names, not the command line: ``battery --json donors.jsonl``
replaced the donor manifest with the readout (the next run: ``broken JSON row``), ``--json d0.wav`` a donor's
audio, exit 0.  Such outputs are refused with the others, before the corpus is read.
"""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest
import soundfile as sf

from asraudit.data.corpus import load_corpus
from asraudit.probes.battery import parse_spec


def _clips(tmp):
    """Two clips (3 s and 4 s) saying two texts, edits on both, and a donor corpus of one 1-s utterance."""
    rng = np.random.default_rng(0)
    rows = []
    for i, (secs, text) in enumerate(((3, "the cat sat on the mat"), (4, "a dog ran in the park"))):
        sf.write(tmp / f"c{i}.wav", (0.05 * rng.standard_normal(secs * 16_000)).astype("float32"), 16_000)
        rows.append({"audio_filepath": f"c{i}.wav", "text": text})
    (tmp / "m.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    sf.write(tmp / "d1.wav", (0.05 * rng.standard_normal(16_000)).astype("float32"), 16_000)
    (tmp / "donors.jsonl").write_text(json.dumps({"audio_filepath": "d1.wav", "text": "one short line"}) + "\n",
                                      encoding="utf-8")
    (tmp / "e.jsonl").write_text("".join(json.dumps({"clip": r["audio_filepath"], "ref_start": 1, "ref_end": 2,
                                                     "r": r["text"].split()[1], "a": "x"}) + "\n" for r in rows),
                                 encoding="utf-8")
    return tmp / "m.jsonl"


def _spec(tmp, donor, seconds):
    path = tmp / "b.toml"
    path.write_text(f'probes = ["accept-ref"]\n[[condition]]\nname = "original"\n[[condition]]\nname = "x"\n'
                    f'type = "splice"\ndonor = "{donor}"\nseconds = {seconds}\n', encoding="utf-8")
    return path


@pytest.mark.parametrize("donor, seconds, said", [
    ("corpus:donors.jsonl", 8, "donor corpus:{tmp}/donors.jsonl holds 1.00 s for clip 'c0.wav'"),
    ("benchmark", 8, "the corpus's other clips hold 3.00 s for clip 'c1.wav'"),
])
def test_a_donor_source_shorter_than_seconds_is_refused_before_any_model(tmp_path, cli, monkeypatch, donor, seconds,
                                                                         said):
    import asraudit.commands.transcribe as transcribe_command

    manifest = _clips(tmp_path)
    spec = _spec(tmp_path, donor, seconds)
    monkeypatch.setattr(transcribe_command, "model_factories", lambda args: pytest.fail("a model was loaded"))
    ran = cli("battery", "--spec", spec, "--model", "whisper-tiny.en", "--corpus", manifest, "--edits",
              tmp_path / "e.jsonl", "--no-mask", "--out", tmp_path / "out", "--no-progress")
    have = said.split(" holds ")[-1].split(" hold ")[-1].split(" s ")[0]
    assert (ran.code, ran.error_lines) == (2, [
        f"asraudit: error: {spec}: [[condition]] #2 (x): seconds = {seconds} of donor audio, and "
        f"{said.format(tmp=tmp_path)} (every utterance that is not the clip and does not say its text), so its splice "
        f"would be shorter than asked, and set against conditions of the full length: give seconds = "
        f"{float(have):g} or less, or a donor source with more audio"])
    assert not (tmp_path / "out").exists()


def test_seconds_the_source_holds_run(tmp_path):
    from asraudit.probes.battery import check_donor_seconds

    corpus = load_corpus(_clips(tmp_path))
    for donor, seconds in (("corpus:" + str(tmp_path / "donors.jsonl"), 1), ("benchmark", 3)):
        check_donor_seconds(parse_spec({"condition": [{"name": "x", "type": "splice", "donor": donor,
                                                      "seconds": seconds}]}, "b.toml"), corpus)


@pytest.mark.skipif(shutil.which("espeak-ng") is None, reason="espeak-ng is not installed")
def test_tts_donors_hold_their_ten_sentences(tmp_path):
    from asraudit.errors import InputError
    from asraudit.probes.battery import check_donor_seconds

    corpus = load_corpus(_clips(tmp_path))
    spec = parse_spec({"condition": [{"name": "x", "type": "splice", "donor": "tts:espeak-ng", "seconds": 120}]},
                      "b.toml")
    with pytest.raises(InputError) as err:
        check_donor_seconds(spec, corpus)
    assert str(err.value).startswith("b.toml: [[condition]] #1 (x): seconds = 120 of donor audio, and donor "
                                     "tts:espeak-ng holds ")


def test_audit_check_refuses_it_before_any_model_loads(tmp_path, cli, monkeypatch):
    import asraudit.audit.prepare as prepare

    _clips(tmp_path)
    _spec(tmp_path, "corpus:donors.jsonl", 8)
    spec = tmp_path / "audit.toml"
    spec.write_text('out = "o"\n[corpus]\nmanifest = "m.jsonl"\n[[model]]\nspec = "whisper-tiny.en"\n'
                    '[battery]\nspec = "b.toml"\nmask = false\n', encoding="utf-8")
    monkeypatch.setattr(prepare, "load_models", lambda spec: pytest.fail("a model was loaded"))
    ran = cli("audit", spec, "--check")
    assert ran.code == 2 and len(ran.error_lines) == 1
    assert ran.error_lines[0].startswith(f"asraudit: error: {tmp_path / 'b.toml'}: [[condition]] #2 (x): seconds = 8 "
                                         f"of donor audio, and donor corpus:{tmp_path / 'donors.jsonl'} holds 1.00 s")


@pytest.mark.parametrize("name, what", [("donors.jsonl", "the donor corpus of [[condition]] #2 (x) of {spec}"),
                                        ("d1.wav", "the audio of donor clip 'd1.wav' of [[condition]] #2 (x) of "
                                                   "{spec}")])
def test_an_output_named_after_the_donor_corpus_is_refused(tmp_path, cli, name, what):
    manifest = _clips(tmp_path)
    spec = _spec(tmp_path, "corpus:donors.jsonl", 1)
    target = tmp_path / name
    before = target.read_bytes()
    ran = cli("battery", "--spec", spec, "--model", "whisper-tiny.en", "--corpus", manifest, "--edits",
              tmp_path / "e.jsonl", "--no-mask", "--out", tmp_path / "out", "--json", target, "--no-progress",
              "--bootstrap", "10")
    assert (ran.code, ran.error_lines) == (2, [
        f"asraudit: error: {target}: --json would overwrite {what.format(spec=spec)}, an input: write it to another "
        "file"])
    assert target.read_bytes() == before
