"""Case 188: a pocketsphinx option of the wrong kind, or one that leaves it nothing to search with.

pocketsphinx's Python Config converts what it is given without a word: ``--option bestpath=no`` (a switch as
pocketsphinx's own command line writes it) turned the pass *on* (any text is true), ``maxhmmpf=2.5`` ran as 2,
``beam=true`` as a beam of 1, and ``lw=1e400`` (infinity, from the JSON reader) went into the search; each run
ended with exit 0, its transcripts stored under the options as written.  ``lm=null`` loaded and stopped at the first
clip with ``RuntimeError: Failed to start utterance processing``, a traceback.  Now each value is checked against
the type pocketsphinx's Config gives the option, and a decoder that cannot start an utterance is refused, when the
model loads.
"""

from __future__ import annotations

import pytest

from conftest import one_clip_manifest

pytest.importorskip("pocketsphinx")

CASES = {
    "switch-as-text": ("bestpath=no", "option bestpath must be true or false (pocketsphinx's command line writes "
                                      "yes/no), got 'no'"),
    "whole-number-as-fraction": ("maxhmmpf=2.5", "option maxhmmpf must be a whole number, got 2.5"),
    "number-as-switch": ("beam=true", "option beam must be a finite number, got True"),
    "infinite-number": ("lw=1e400", "option lw must be a finite number, got inf"),
    "text-as-number": ("lm=5", "option lm must be a text, got 5"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_value_of_the_wrong_kind_is_refused_when_the_model_loads(tmp_path, cli, case):
    option, said = CASES[case]
    ran = cli("transcribe", "--model", "pocketsphinx", "--corpus", one_clip_manifest(tmp_path), "--option", option,
              "--out", tmp_path / "o", "--no-progress")
    assert (ran.code, ran.error_lines) == (2, [f"asraudit: error: model 'pocketsphinx': {said}"])


def test_a_decoder_with_nothing_to_search_with_is_refused_when_it_loads(tmp_path, cli):
    ran = cli("transcribe", "--model", "pocketsphinx", "--corpus", one_clip_manifest(tmp_path), "--option", "lm=null",
              "--out", tmp_path / "o", "--no-progress")
    assert (ran.code, ran.error_lines) == (2, [
        "asraudit: error: --model pocketsphinx: pocketsphinx refused its options {'samprate': 16000, 'lm': None}: "
        "Failed to start utterance processing: its decoder needs a language model, grammar or keyphrase to search "
        "with"])


def test_values_of_the_right_kind_still_run(tmp_path, cli):
    ran = cli("transcribe", "--model", "pocketsphinx", "--corpus", one_clip_manifest(tmp_path), "--option",
              "bestpath=false", "--option", "beam=1e-60", "--option", "maxhmmpf=30000", "--option", "dict=null",
              "--out", tmp_path / "o", "--no-progress")
    assert ran.code == 0, ran.err
