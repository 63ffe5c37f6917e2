"""The demo audit: every organism and every stage a detector row reads, and the rows it prints and writes.

The shipped spec is checked for what the calibration report needs (an organism per detector, the stages
their rows read, sentences that carry each planted feature a detector reads); the command is run on
stand-in transcripts (replayed, no model runs) through the same path, so the rows are shown and written.
"""

from __future__ import annotations

import json

import pytest

from asraudit.audit.spec import load_spec
from asraudit.cli import main
from asraudit.demo import demo_audit
from asraudit.demo.calibration_report import PROVEN_ON, RECORD_ORGANISM
from asraudit.demo.organism import BENCHMARK_DIR
from asraudit.probes.families import load_catalogue
from asraudit.probes.masked import is_number
from asraudit.probes.occurrences import find_renderings
from asraudit.probes.translation_lexicon import load_lexicon
from asraudit.text import get_normalizer

MANIFEST = BENCHMARK_DIR / "test.jsonl"


def _selected_rows(spec) -> list[dict]:
    rows = [json.loads(line) for line in MANIFEST.read_text(encoding="utf-8").splitlines()]
    values = set(spec.corpus.select_values)
    return [r for r in rows if r[spec.corpus.select_field] in values]


def test_the_demo_audits_every_organism_on_the_stages_its_row_reads():
    spec = load_spec(demo_audit.DEMO_SPEC)
    names = [m.spec for m in spec.models]
    assert {RECORD_ORGANISM, *PROVEN_ON.values()} <= set(names)
    assert [m.spec for m in spec.models if m.panel] == ["whisper-tiny.en", "whisper-base", "pocketsphinx"]
    assert spec.corpus.group_field == "voice_role"           # the voice gate's two roles
    assert spec.masked is not None and spec.masked.params.lift  # the masked row's λ of the hidden word
    assert {PROVEN_ON["masked recovery"], "whisper-tiny.en", "whisper-base", "pocketsphinx"} <= set(spec.masked.models)
    assert set(spec.translation.models) == {"whisper-base", PROVEN_ON["translation"]}
    encoder = [e for e in spec.mechanism if e.model == PROVEN_ON["encoder-layer mechanism"]]
    assert encoder and all(e.site == "encoder" and e.splice is not None and e.ablate is not None for e in encoder)


def test_the_demo_sentences_carry_every_planted_feature_a_detector_reads():
    spec = load_spec(demo_audit.DEMO_SPEC)
    truth = json.loads((BENCHMARK_DIR / "truth.json").read_text(encoding="utf-8"))
    rows = _selected_rows(spec)
    entries = [truth[r["audio_filepath"]] for r in rows]
    edits = [e for t in entries for e in t["edits"]]
    families = {c["family"] for t in entries for c in t["conventions"]}
    normalize = get_normalizer("whisper")
    lexicon = load_lexicon("es").keyed(normalize)
    assert any(e["kind"] == "delete" and "President" in e["r"] for e in edits)  # an opener the record invents
    assert any(e["kind"] == "insert" and tuple(normalize(e["a"]).split()) in lexicon for e in edits)  # one it drops
    assert {"honorific", "number", "spelling"} <= families  # the switch rate's families
    # each family group the switch rate reads carried by three sentences or more whose planted convention its
    # catalogue matches: six clips an arm on the voice-cue references (two benchmark voices rewritten to the
    # spoken arm, two left as recorded), above the 5 an arm the switch rate needs
    catalogue = load_catalogue("en")
    carried: dict[str, set[str]] = {}
    for r in rows:
        for c in truth[r["audio_filepath"]]["conventions"]:
            for found in find_renderings(catalogue, r["text"]):
                if found.start < c["ref_end"] and c["ref_start"] < found.end:
                    family = catalogue.families[found.family]
                    carried.setdefault(family.pool or family.name, set()).add(r["sentence"])
    assert {g: len(carried.get(g, ())) >= 3 for g in ("honorific", "numeral", "spelling")} == \
        {"honorific": True, "numeral": True, "spelling": True}
    assert any(is_number(w) for r in rows for w in r["spoken"].split())  # a masked target
    assert {r["voice_role"] for r in rows} == {"benchmark", "fresh"}


@pytest.fixture()
def stand_in_spec(tmp_path):
    """The demo's clips on replayed transcripts: three faithful panel members and an echo of the record."""
    shipped = load_spec(demo_audit.DEMO_SPEC)
    rows = _selected_rows(shipped)

    def write(name, text_of):
        path = tmp_path / f"{name}.jsonl"
        path.write_text("".join(json.dumps({"audio_filepath": r["audio_filepath"], "text": r["text"],
                                            "pred_text": text_of(r)}) + "\n" for r in rows), encoding="utf-8")
        return path

    models = "".join(f'[[model]]\npredictions = "{write(f"clean{i}", lambda r: r["spoken"])}"\nname = "clean{i}"\n'
                     "panel = true\n" for i in range(3))
    models += f'[[model]]\npredictions = "{write("echo", lambda r: r["text"])}"\nname = "{RECORD_ORGANISM}"\n'
    spec = tmp_path / "demo.toml"
    select = json.dumps(list(shipped.corpus.select_values))
    spec.write_text(f'bootstrap = 100\n[corpus]\nmanifest = "{MANIFEST}"\ngroup_field = "voice_role"\n'
                    f'select = {{ field = "sentence", values = {select} }}\n{models}'
                    '[conventions]\n[refdis]\nmajority = 0.66\nmin_panel = 2\n', encoding="utf-8")
    return spec


def test_the_demo_command_prints_and_writes_one_row_per_detector(stand_in_spec, tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(demo_audit, "DEMO_SPEC", stand_in_spec)
    out = tmp_path / "demo-out"
    assert main(["demo", "--out", str(out), "--no-progress"]) == 0
    printed = capsys.readouterr().out
    assert "one row per detector" in printed and f"detector rows: {out / 'detectors.md'}" in printed
    # the readouts the rows are computed from, before the rows: the switch rate the rows read is the voice-cue one
    assert printed.index("Switch rate on the voice-cue references") < printed.index("one row per detector")
    assert "Wilson intervals in summary.json" in printed
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    rows = {r["detector"]: r for r in summary["detectors"]}
    assert list(rows)[:2] == ["accept-ref", "masked recovery"] and len(rows) == 8
    assert rows["accept-ref"]["status"] == "pass"  # the echo is far above three faithful members
    assert rows["masked recovery"]["status"] == "not run"  # no masked stage in the stand-in: said, not hidden
    jsonschema = pytest.importorskip("jsonschema")
    from asraudit.report.schema import summary_schema

    jsonschema.validate(summary, summary_schema())  # the rows ride in summary.json's published layout
    table = (out / "detectors.md").read_text(encoding="utf-8")
    assert sum(line.startswith("| ") for line in table.splitlines()) == 1 + len(rows) and "| accept-ref | whisper-tiny.en-organism |" in table
