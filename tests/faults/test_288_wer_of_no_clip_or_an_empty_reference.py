"""Case 288: ``corpus_wer`` / ``corpus_cer`` from Python on no clip at all, or on a clip whose reference is empty.

``corpus_wer([], [])`` returned a score whose rate and interval were NaN,
without a word (``f"{score.rate:.2%}"`` prints ``nan%``).  A clip with an
empty reference and a hypothesis (``["", "a"]`` against ``["x y", "a"]``) had
its hypothesis's words counted as insertions against the other clips' words:
a WER of 2.0, where ``asraudit wer`` and ``score_model`` leave the clip out
and list it (0.0): the number the API computed was not the one the command
prints for the same texts.  Now both are one line naming the argument and the
first clip, before any bootstrap; the audit's white-box readouts, which score
variants with ``corpus_wer``, leave such clips out as ``score_model`` does.
``score_model(preds, normalize, clip_ids=...)`` over no clip (the clips two
models share, ``set(a.rows) & set(b.rows)``, when they share none) was the
same NaN score without a word, where ``asraudit wer --common`` refuses two
files that share no clip; it is refused too.
"""

from __future__ import annotations

import json

import pytest

from asraudit import InputError, corpus_cer, corpus_wer, get_normalizer, load_predictions, score_model

from conftest import write_preds


def _message(score, refs, hyps) -> str:
    with pytest.raises(InputError) as err:
        score(refs, hyps, n_boot=10)
    return str(err.value)


@pytest.mark.parametrize(("score", "unit"), [(corpus_wer, "word"), (corpus_cer, "character")])
def test_no_clip_is_refused(score, unit):
    assert _message(score, [], []) == (f"refs and hyps are empty: there is no clip to score (a corpus rate is errors "
                                       f"over reference {unit}s, and there are none)")


@pytest.mark.parametrize(("score", "unit"), [(corpus_wer, "word"), (corpus_cer, "character")])
@pytest.mark.parametrize(("refs", "hyps", "where"), [
    (["", "a"], ["x y", "a"], "refs[0] has no {u}s (an empty reference; 1 of 2 clips have none)"),
    (["a", "  ", "\n"], ["a", "", "b"], "refs[1] has no {u}s (an empty reference; 2 of 3 clips have none)"),
    ([""], [""], "refs[0] has no {u}s (an empty reference; 1 of 1 clips have none)"),
])
def test_a_clip_with_an_empty_reference_is_refused(score, unit, refs, hyps, where):
    assert _message(score, refs, hyps) == (
        where.format(u=unit) + f": a clip without reference {unit}s has no rate, and its hypothesis's {unit}s would "
        f"count as insertions against the other clips' {unit}s; leave such clips out, as asraudit wer and "
        "score_model do")


def test_the_clips_left_out_give_the_number_the_command_prints(tmp_path, cli):
    preds = write_preds(tmp_path / "m.jsonl", [("c0", "", "x y"), ("c1", "the cat", "the cat"),
                                              ("c2", "a dog sat", "a dog")])
    ran = cli("wer", "--preds", preds, "--json", tmp_path / "w.json", "--bootstrap", "10")
    assert ran.code == 0, ran.err
    printed = json.loads((tmp_path / "w.json").read_text(encoding="utf-8"))["models"]["m"]
    normalize = get_normalizer("whisper")
    rows = load_predictions(preds).models["m"].rows.values()
    kept = [(normalize(p.reference), normalize(p.hypothesis)) for p in rows if normalize(p.reference).split()]
    score = corpus_wer([r for r, _ in kept], [h for _, h in kept], n_boot=10)
    assert (printed["wer"], printed["insertions"], printed["clips"]) == (score.rate, score.insertions, score.clips)
    assert printed["wer"] == pytest.approx(0.2)
    assert score_model(load_predictions(preds).models["m"], "whisper", n_boot=10).score.rate == score.rate


@pytest.mark.parametrize("clip_ids", [[], set(), ()], ids=["list", "set", "tuple"])
def test_score_model_over_no_clip_is_refused(tmp_path, clip_ids):
    preds = write_preds(tmp_path / "m.jsonl", [("c0", "the cat", "the cat")])
    other = write_preds(tmp_path / "n.jsonl", [("d0", "the cat", "the cat")])
    model = load_predictions(preds).models["m"]
    shared = set(model.rows) & set(load_predictions(other).models["n"].rows)  # two models that share no clip
    for ids in (clip_ids, shared):
        with pytest.raises(InputError) as err:
            score_model(model, "whisper", clip_ids=ids, n_boot=10)
        assert str(err.value) == (f"{preds}: clip_ids is empty: there is no clip to score (the clips two models "
                                  "share, when they share none?); give None to score every clip model m has a row "
                                  "for")
