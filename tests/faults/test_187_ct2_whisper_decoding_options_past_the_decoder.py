"""Case 187: a CTranslate2 Whisper's decoding options past what its decoder, its vocabulary or CTranslate2 can take.

Case 30 checked each option's kind and lower bound when the model loads; the upper ends were not checked:

- ``max_length=1000``: CTranslate2 decodes up to ``max_length // 2`` new tokens, so past 895 (after the
  English-only prompt) a clip whose decoding ran long (a model caught in a loop) stopped the run with
  ``RuntimeError: No position encodings are defined for positions >= 448``, a traceback after every clip before
  it; a short clip ran, so the load and ``audit --check`` passed;
- ``max_length`` or ``no_repeat_ngram_size`` past C's integers: a pybind11 ``TypeError`` dump at the first clip;
- ``patience=1e308`` (beam_size x patience past 1e19): CTranslate2's ``ValueError: The number of hypotheses cannot
  be greater than beam_size * patience``, a traceback at the first clip;
- ``suppress_tokens=[99999999]`` or ``[-5]``: no token of the model, accepted, suppressing nothing, exit 0.

Now each is refused when the model loads, in one line naming the option and the bound.
"""

from __future__ import annotations

import pytest

from conftest import one_clip_manifest

BIG = 99999999999999999999
CASES = {
    "max-length-past-the-decoder": ("max_length=1000", "option max_length 1000 lets CTranslate2 decode 500 tokens after "
                                    "the 2-token prompt, past what Whisper's decoder holds (448 positions): give at "
                                    "most 895"),
    "max-length-past-c": (f"max_length={BIG}", f"option max_length {BIG} lets CTranslate2 decode {BIG // 2} tokens "
                          "after the 2-token prompt, past what Whisper's decoder holds (448 positions): give at most "
                          "895"),
    "ngram-past-c": (f"no_repeat_ngram_size={BIG}", f"option no_repeat_ngram_size {BIG} is longer than Whisper's "
                     "decoder (448 positions), so no n-gram of it could repeat: give at most 448, or 0 to allow "
                     "repeats"),
    "patience-overflowing": ("patience=1e308", "option patience 1e+308 asks for beam_size x patience = inf finished "
                             "hypotheses, past 128, the most asraudit decodes with (real decoding uses a patience of "
                             "1 to 2): give a smaller one"),
    "suppress-past-the-vocabulary": ("suppress_tokens=[220, 99999999]", "option suppress_tokens: 99999999 is no token "
                                     "id of this model (its ids run from 0 to 51863; -1 stands for Whisper's default "
                                     "set of symbols)"),
    "suppress-negative": ("suppress_tokens=[-5]", "option suppress_tokens: -5 is no token id of this model (its ids run "
                          "from 0 to 51863; -1 stands for Whisper's default set of symbols)"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_refused_when_the_model_loads(tmp_path, cli, case):
    option, said = CASES[case]
    ran = cli("transcribe", "--model", "whisper-tiny.en", "--corpus", one_clip_manifest(tmp_path), "--option", option,
              "--out", tmp_path / "o", "--no-progress")
    assert (ran.code, ran.error_lines) == (2, [f"asraudit: error: --model whisper-tiny.en: {said}"])
    assert not (tmp_path / "o" / "whisper-tiny.en.jsonl").exists()


def test_the_values_at_the_bounds_still_load():
    from asraudit.models.registry import load_model

    model = load_model("whisper-tiny.en", max_length=895, no_repeat_ngram_size=448, patience=25.6,
                       suppress_tokens=[-1, 0, 51863])  # 51863: a timestamp token, in vocabulary.txt only
    assert model.options.max_length == 895 and model.options.suppress_tokens == (-1, 0, 51863)
