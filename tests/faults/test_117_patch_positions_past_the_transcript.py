"""Case 117: where ``asraudit patch`` places a patch, given where it acts on nothing.

``--site decoder --positions 999`` (or any position past the clips' transcripts: ``--positions 20`` on clips of 10
tokens) patched no position of any clip: the patched run was the baseline, and the table reported an intervention
that changed 0 of 2 transcripts, as if the decoder did not matter, exit 0. ``--positions 3`` without ``--site
decoder`` was ignored: every encoder frame was patched instead (100% WER, the table saying nothing of the
positions), as was ``--frames`` on a decoder patch, ``--layer`` on the projector (one module) and any of them
without ``--source`` (``--block-attention`` alone blocks every layer's cross-attention: ``--layer 2`` beside it
did nothing). Now the place options are
checked against the site before the model loads, a position the decoder never reaches (past its token limit) once
it has loaded, before any variant runs, and positions past the longest baseline transcript once the baseline has
run, naming that clip, before the patch runs.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from asraudit.run.store import ResultStore

DEMO = Path(__file__).resolve().parents[2] / "src" / "asraudit" / "demo" / "data" / "parliament_mini"


@pytest.mark.parametrize("argv, message", [
    (("--source", "silence", "--positions", "3"),
     "--positions 3: decoder text positions place a patch of --site decoder, not --site encoder (placed by "
     "--frames): give --site decoder, or leave --positions out"),
    (("--source", "silence", "--site", "decoder", "--frames", "0-1"),
     "--frames 0-1: a patch of --site decoder is placed by --positions (decoder text positions), not by audio "
     "frames: give --positions, or another --site"),
    (("--block-attention", "0-1", "--positions", "2"),
     "--positions places an activation patch, and there is none: give --source (the input the patch takes its "
     "activations from); --block-attention takes its span alone (it blocks the cross-attention of every decoder "
     "layer)"),
    (("--block-attention", "0-1", "--layer", "2"),
     "--layer places an activation patch, and there is none: give --source (the input the patch takes its "
     "activations from); --block-attention takes its span alone (it blocks the cross-attention of every decoder "
     "layer)"),
    (("--source", "silence", "--site", "projector", "--layer", "3"),
     "--layer 3: the projector is one module, not a stack of layers, so a patch of --site projector has no layer: "
     "leave --layer out, or give --site decoder-audio (an LM layer's output at the audio positions)"),
])
def test_a_place_option_the_site_does_not_read_is_refused_before_the_model_loads(tmp_path, cli, argv, message):
    store = tmp_path / "s.sqlite"
    ran = cli("patch", "--model", tmp_path / "no-such-model", "--corpus", tmp_path, "--store", store, *argv)
    assert (ran.code, ran.error_lines) == (2, [f"asraudit: error: {message}"])
    assert not store.exists()


@pytest.fixture(scope="module")
def speech(tmp_path_factory):
    """Two spoken clips of parliament-mini (10 tokens each for whisper-tiny.en) and the white-box tiny.en."""
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    from asraudit.models import embedded

    if not embedded.is_present("whisper-tiny.en"):
        pytest.skip("needs the embedded whisper-tiny.en (the models extra)")
    root = tmp_path_factory.mktemp("positions")
    rows = [json.loads(line) for line in (DEMO / "test.jsonl").read_text(encoding="utf-8").splitlines()[:2]]
    with (root / "c.jsonl").open("w", encoding="utf-8") as fh:
        for row in rows:
            fh.write(json.dumps({"audio_filepath": str(DEMO / row["audio_filepath"]), "text": row["text"]}) + "\n")
    return root  # the white-box conversion: the shared model cache's, as the other white-box tests use it


def _patch(cli, root, store, positions):
    return cli("patch", "--model", "whisper-tiny.en", "--corpus", root / "c.jsonl", "--source", "silence", "--site",
               "decoder", "--positions", positions, "--store", store, "--no-progress")


def test_a_position_the_decoder_never_reaches_is_refused_before_any_variant_runs(speech, cli):
    store = speech / "limit.sqlite"
    ran = _patch(cli, speech, store, "0,999")
    assert (ran.code, ran.error_lines) == (2, [
        "asraudit: error: --positions 0,999: position 999 is never decoded: whisper-tiny.en writes at most 224 "
        "tokens, so its text positions are 0..222: give positions inside a transcript"])
    assert not store.exists()  # not even the baseline ran


def test_positions_past_every_transcript_are_refused_after_the_baseline_naming_the_clip(speech, cli):
    store = speech / "past.sqlite"
    for positions in ("10", "20,30"):
        ran = _patch(cli, speech, store, positions)
        assert (ran.code, ran.error_lines) == (2, [
            f"asraudit: error: --positions {positions}: the longest baseline transcript (clip "
            f"'{DEMO / 'audio' / 's001-flite-slt.ogg'}') has 10 tokens, text positions 0..9: the decoder patch would "
            "act at no position of any clip and change nothing: give positions inside the transcripts"])
        assert ran.out == ""  # no table
    with ResultStore(store) as s:
        assert {r.model_id for r in s.results()} == {"whitebox:whisper-tiny.en"}  # the baseline alone ran


def test_a_position_inside_the_transcripts_still_runs(speech, cli):
    ran = _patch(cli, speech, speech / "inside.sqlite", "9")
    assert ran.code == 0 and ran.error_lines == []
    assert "patch decoder L-1 <- silence" in ran.out


def test_a_clip_whose_transcript_ends_before_the_positions_is_named_in_a_warning(speech, cli, capsys):
    rows = [json.loads(line) for line in (DEMO / "test.jsonl").read_text(encoding="utf-8").splitlines()]
    short, long_ = (next(r for r in rows if r["audio_filepath"].endswith(name))
                    for name in ("s019-flite-slt.ogg", "s044-festival-ked.ogg"))
    corpus = speech / "mixed.jsonl"
    corpus.write_text("".join(json.dumps({"audio_filepath": str(DEMO / r["audio_filepath"]), "text": r["text"]}) + "\n"
                              for r in (short, long_)), encoding="utf-8")
    ran = cli("patch", "--model", "whisper-tiny.en", "--corpus", corpus, "--source", "silence", "--site", "decoder",
              "--positions", "12", "--store", speech / "mixed.sqlite", "--no-progress")
    assert ran.code == 0 and ran.error_lines == []
    assert (f"asraudit: warning: --positions 12: 1 of 2 clip(s) have a baseline transcript that ends before position "
            f"12 (first: '{DEMO / short['audio_filepath']}', 10 tokens): the patch leaves those transcripts as they "
            "are") in ran.err.splitlines()
