"""The translation probe: the lexicon, the spans, the reading of one span, the summary, and a run through the store.

Models here are stand-ins that answer from a table (one transcribes in
English, its renderer writes Spanish), so every outcome is known; the
forced-language path of real model families is tested in
``test_translation_renderers.py``.
"""

from __future__ import annotations

import numpy as np
import pytest

from asraudit.demo.markup import parse_sentence
from asraudit.errors import InputError
from asraudit.metrics.stats import wilson, wilson_interval
from asraudit.data.corpus import Clip
from asraudit.probes.lift_run import EditItem
from asraudit.probes.translation_lexicon import contains, fold, load_lexicon
from asraudit.probes.translation_probe import (
    SpanItem,
    TranslationParams,
    clusters_of,
    items_from_edits,
    items_from_truth,
    judge,
    measure_translation,
    summarize,
)
from asraudit.run.executor import LocalExecutor
from asraudit.run.store import ResultStore
from asraudit.text.normalize import get_normalizer

NORMALIZE = get_normalizer("whisper")
LEXICON = load_lexicon("es")
ENTRIES = LEXICON.keyed(NORMALIZE)
PARAMS = TranslationParams()

# ---------------------------------------------------------------- the lexicon


@pytest.mark.parametrize("entry", LEXICON.entries, ids=lambda e: e.en)
def test_every_builtin_entry_matches_its_examples_and_not_its_counterexamples(entry):
    for example in entry.match:
        assert LEXICON.found(entry, example), example
    for example in entry.no_match:
        assert not LEXICON.found(entry, example), example


def test_matching_ignores_case_punctuation_and_accents_but_not_word_edges():
    madam = ENTRIES[("madam", "president")]
    assert fold("¡Señora PRESIDENTA, la Comisión!", "es") == "senora presidenta la comision"
    assert LEXICON.found(madam, "senora presidenta")
    assert not LEXICON.found(madam, "las señora presidentas")  # a longer word is not the word
    assert not LEXICON.found(ENTRIES[("now",)], "hay que ahorrar")


def test_a_lexicon_whose_example_stopped_matching_is_refused_naming_the_entry(tmp_path):
    path = tmp_path / "lex.toml"
    path.write_text('target = "es"\n[[span]]\nen = "Well"\npatterns = ["bueno"]\n'
                    'match = ["Pues, el Consejo"]\nno_match = ["El Consejo"]\n', encoding="utf-8")
    with pytest.raises(InputError, match=r"span #1 \('Well'\).*'Pues, el Consejo' must match"):
        load_lexicon(path)


def test_a_lexicon_for_another_target_is_refused_before_any_model_runs(tmp_path):
    path = tmp_path / "lex.toml"
    path.write_text('target = "fr"\n[[span]]\nen = "Well"\npatterns = ["bon"]\n'
                    'match = ["Bon, le Conseil"]\nno_match = ["Le Conseil"]\n', encoding="utf-8")
    with pytest.raises(InputError, match="reads 'fr', the probe renders 'es'"):
        TranslationParams(lexicon=path).validate()


def test_a_span_is_found_only_as_consecutive_words():
    assert contains(("i", "think", "we", "agree"), ("think", "we"))
    assert not contains(("think", "that", "we"), ("think", "we"))
    assert not contains(("a",), ())


# ---------------------------------------------------------------- spans


def _truth_of(clip_id: str, markup: str) -> tuple[dict, dict]:
    s = parse_sentence("x", "test", markup)
    edits = [{"kind": e.kind, "r": e.r, "a": e.a, "ref_start": e.ref_start, "ref_end": e.ref_end} for e in s.edits]
    return {clip_id: {"edits": edits}}, {clip_id: s.record}


def test_said_only_words_are_dropped_and_record_only_words_invented_with_the_rest_of_the_sentence():
    truth, refs = _truth_of("c1", "{+Madam President, +}the Commission must act.")
    (item,) = items_from_truth(truth, refs, NORMALIZE)
    assert (item.kind, item.span, item.rest) == ("invented", ("madam", "president"), ("the", "commission", "must", "act"))
    truth, refs = _truth_of("c2", "{-Well, -}the Council has not answered.")
    (item,) = items_from_truth(truth, refs, NORMALIZE)
    assert (item.kind, item.span) == ("dropped", ("well",))
    assert item.rest == ("the", "council", "has", "not", "answered")
    truth, refs = _truth_of("c3", "We need {~quickly|swiftly~} a reform.")  # a substitution is neither
    assert items_from_truth(truth, refs, NORMALIZE) == []


def test_mined_inserts_and_deletes_become_dropped_and_invented_spans():
    ref = ("madam", "president", "the", "council", "acts")
    delete = EditItem("e1", "c", "delete", "start", ref, 0, 2, ())
    insert = EditItem("e2", "c", "insert", "start", ref[2:], 0, 0, ("well",))
    dropped, invented = sorted(items_from_edits([delete, insert]), key=lambda i: i.kind)
    assert (invented.span, invented.rest) == (("madam", "president"), ("the", "council", "acts"))
    assert (dropped.span, dropped.rest, dropped.origin) == (("well",), ("the", "council", "acts"), "mined")


# ---------------------------------------------------------------- one span read


def _judge(item, transcript, rendering):
    return judge("m", item, transcript, rendering, LEXICON, ENTRIES, NORMALIZE, PARAMS)


WELL = SpanItem("c", "dropped", ("well",), ("the", "council", "has", "not", "answered"), "planted")


def test_a_dropped_span_the_transcript_omits_can_still_be_in_the_rendering():
    o = _judge(WELL, "The council has not answered.", "Bueno, el Consejo no ha respondido.")
    assert (o.status, o.in_transcript, o.in_rendering) == ("checked", False, True)
    o = _judge(WELL, "Well, the council has not answered.", "El Consejo no ha respondido.")
    assert (o.status, o.in_transcript, o.in_rendering) == ("checked", True, False)


def test_spans_that_cannot_be_read_are_counted_by_reason():
    repeated = SpanItem("c", "dropped", ("i", "think"), ("i", "think", "we", "agree"), "planted")
    assert _judge(repeated, "I think we agree", "Creo que estamos de acuerdo").status == "clash"
    thanked = SpanItem("c", "invented", ("thank", "you"), ("i", "thank", "the", "rapporteur"), "planted")
    assert _judge(thanked, "I thank the rapporteur", "Doy las gracias al ponente").status == "clash"
    pronoun = SpanItem("c", "dropped", ("we",), ("we", "cannot", "accept"), "planted")  # Spanish drops it anyway
    assert _judge(pronoun, "We cannot accept", "No podemos aceptar").status == "no entry"
    unknown = SpanItem("c", "dropped", ("they", "need"), ("our", "regions", "need"), "planted")
    assert _judge(unknown, "x", "y").status == "no entry"
    echoed = _judge(WELL, "Well, the council has not answered.", "Well, the council has not answered!")
    assert echoed.status == "untranslated" and echoed.in_rendering is None
    assert _judge(WELL, None, "Bueno").status == "missing"


def test_the_summary_counts_renderings_per_kind_and_transcript_state_with_wilson_intervals():
    outcomes = [_judge(WELL, "The council has not answered.", r) for r in ("Bueno, el Consejo", "El Consejo",
                                                                            "Pues el Consejo")]
    outcomes.append(_judge(WELL, "Well, the council", "Bueno, el Consejo"))
    cells = {(c.kind, c.transcript): c for c in summarize(outcomes)}
    omitted = cells[("dropped", "omitted")]
    assert (omitted.k, omitted.n) == (2, 3) and omitted.interval == wilson(2, 3)
    assert (cells[("dropped", "contained")].k, cells[("dropped", "contained")].n) == (1, 1)
    assert cells[("invented", "omitted")].n == 0  # every cell is reported, an empty one with n = 0


def test_clustered_clips_count_their_clusters_not_their_clips_and_a_clip_without_the_field_is_named():
    outcomes = [_judge(SpanItem(f"c{i}", "dropped", ("well",), WELL.rest, "planted"), "The council has not answered.",
                       "Bueno, el Consejo") for i in range(6)]
    clusters = {f"c{i}": f"s{i // 2}" for i in range(6)}  # three sentences, two voices each
    (cell,) = [c for c in summarize(outcomes, clusters) if c.n]
    (by_clip,) = [c for c in summarize(outcomes) if c.n]
    assert (cell.k, cell.n, cell.interval.estimate, cell.interval.method) == (6, 6, 1.0, "wilson")
    # 6/6 clips, but 3 sentences: the interval is Wilson's for 3/3, wider than for 6/6, never a point
    assert (cell.interval.low, cell.interval.high) == wilson_interval(3, 3)
    assert cell.interval.low < by_clip.interval.low and cell.interval.high == 1.0
    with pytest.raises(InputError, match="clip 'c1' has no field 'sentence'"):
        clusters_of([Clip("c1", np.zeros(10, dtype=np.float32), "x", metadata={})], "sentence")


# ---------------------------------------------------------------- a run through the store


class TableModel:
    """Answers each clip (found by its length) from a table; the renderer is the same class with Spanish answers."""

    def __init__(self, model_id: str, language: str, answers: dict[int, str]):
        self.model_id, self.language, self.answers = model_id, language, answers

    @property
    def config_hash(self) -> str:
        return f"table-{self.language}"

    def transcribe(self, audio):
        return [self.answers[len(a)] for a in audio]


def test_a_run_reads_transcripts_and_renderings_back_from_the_store_and_reruns_free(tmp_path):
    said = {"c1": "{-Well, -}the Council has not answered.", "c2": "{+Madam President, +}the Commission acts.",
            "c3": "{-Uh, -}the rules are unclear."}
    truth, refs = {}, {}
    for cid, markup in said.items():
        t, r = _truth_of(cid, markup)
        truth.update(t)
        refs.update(r)
    clips = [Clip(cid, np.zeros(1600 * (i + 1), dtype=np.float32), refs[cid]) for i, cid in enumerate(said)]
    english = TableModel("m", "en", {1600: "The Council has not answered.", 3200: "Madam President, the Commission acts.",
                                     4800: "The rules are unclear."})
    spanish = TableModel("m", "es", {1600: "Bueno, el Consejo no ha respondido.", 3200: "La Comisión actúa.",
                                     4800: "Las reglas no son claras."})
    items = items_from_truth(truth, refs, NORMALIZE)
    with ResultStore(tmp_path / "s.sqlite") as store:
        result = measure_translation(store, LocalExecutor(progress=False), [english], [spanish], clips, items,
                                     NORMALIZE)
        again = measure_translation(store, LocalExecutor(progress=False), [english], [spanish], clips, items,
                                    NORMALIZE)
    cells = {(c.kind, c.transcript): (c.k, c.n) for c in result.cells}
    assert cells[("dropped", "omitted")] == (1, 1)     # "Well" left out of the transcript, "Bueno" in the rendering
    assert cells[("invented", "contained")] == (0, 1)  # "Madam President" written, not rendered
    assert result.excluded == {"m": {"checked": 2, "no entry": 1}}  # the filler has no translation
    # c3 has no readable span: only the two readable clips were run, each once per model
    assert [s.jobs_run for s in result.jobs[0].models] == [2]
    assert [s.jobs_run for s in again.jobs[0].models + again.jobs[1].models] == [0, 0]
    assert [c.k for c in again.cells] == [c.k for c in result.cells]
