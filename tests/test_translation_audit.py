"""The audit's ``[translation]`` section: parsed and checked before any model runs, then run end to end.

The end-to-end audit takes four parliament-mini clips (two voices of a
sentence whose record invents "Madam President", two of one whose record
drops a spoken "Well"), three replayed panel members that write what was
said, and the embedded multilingual whisper-base, which transcribes and
renders the clips in Spanish.  What must hold whatever whisper-base makes of
them: every planted span is accounted for, the summary carries the section
and satisfies the published schema, the rows are written as a table, and the
report shows the section.
"""

from __future__ import annotations

import json
import shutil
import tomllib
from pathlib import Path

import pytest

from asraudit.audit.spec import SpecError, parse_spec
from asraudit.cli import main
from asraudit.models import embedded

PARLIAMENT = Path(__file__).resolve().parents[1] / "src/asraudit/demo/data/parliament_mini"
CLIPS = ("audio/s001-flite-slt.ogg", "audio/s001-piper-joe.ogg", "audio/s007-flite-slt.ogg", "audio/s007-piper-joe.ogg")


def _write_corpus(tmp: Path) -> tuple[Path, Path, dict[str, str]]:
    """A manifest of CLIPS (absolute paths), their truth keyed the same way, and clip -> what was said."""
    rows = {json.loads(line)["audio_filepath"]: json.loads(line)
            for line in (PARLIAMENT / "test.jsonl").read_text(encoding="utf-8").splitlines()}
    truth = json.loads((PARLIAMENT / "truth.json").read_text(encoding="utf-8"))
    manifest, said, planted = [], {}, {}
    for rel in CLIPS:
        path = str(PARLIAMENT / rel)
        manifest.append({**rows[rel], "audio_filepath": path})
        said[path] = rows[rel]["spoken"]
        planted[path] = truth[rel]
    (tmp / "manifest.jsonl").write_text("".join(json.dumps(r) + "\n" for r in manifest), encoding="utf-8")
    (tmp / "truth.json").write_text(json.dumps(planted), encoding="utf-8")
    return tmp / "manifest.jsonl", tmp / "truth.json", said


def _spec_dict(tmp: Path, translation: str) -> dict:
    manifest, _, _ = _write_corpus(tmp)
    return tomllib.loads(f'[corpus]\nmanifest = "{manifest}"\n[[model]]\nspec = "whisper-tiny.en"\n'
                         f'[translation]\n{translation}\n')


def test_the_section_is_read_onto_the_probes_params_and_a_bad_key_or_file_is_refused(tmp_path):
    spec = parse_spec(_spec_dict(tmp_path, f'truth = "{tmp_path / "truth.json"}"\nmax_english_overlap = 0.4'))
    assert spec.translation.params.target == "es" and spec.translation.params.max_english_overlap == 0.4
    with pytest.raises(SpecError, match=r"\[translation\].*unknown"):
        parse_spec(_spec_dict(tmp_path, 'language = "es"'))
    with pytest.raises(SpecError, match=r"\[translation\].*truth"):
        parse_spec(_spec_dict(tmp_path, f'truth = "{tmp_path / "absent.json"}"'))
    with pytest.raises(SpecError, match=r"\[translation\]: target 'fr' has no built-in lexicon"):
        parse_spec(_spec_dict(tmp_path, 'target = "fr"'))


@pytest.mark.skipif(not embedded.is_present("whisper-tiny.en"), reason="the embedded whisper-tiny.en is not installed")
def test_an_audit_whose_translation_models_cannot_render_stops_before_any_model_runs(tmp_path, capsys):
    manifest, truth, _ = _write_corpus(tmp_path)
    spec = tmp_path / "audit.toml"
    spec.write_text(f'out = "{tmp_path / "out"}"\n[corpus]\nmanifest = "{manifest}"\n'
                    '[[model]]\nspec = "whisper-tiny.en"\nname = "tiny"\npanel = true\n'
                    '[[model]]\nspec = "whisper-tiny.en"\nname = "tiny2"\npanel = true\noptions = { beam_size = 2 }\n'
                    f'[refdis]\nmin_panel = 2\n[translation]\ntruth = "{truth}"\nmodels = ["tiny"]\n', encoding="utf-8")
    assert main(["audit", str(spec), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert "[translation] models: tiny cannot render es: an English-only Whisper" in err
    assert not (tmp_path / "out" / "asraudit.sqlite").exists()


@pytest.fixture(scope="module")
def translation_audit(tmp_path_factory):
    pytest.importorskip("ctranslate2")
    if not embedded.is_present("whisper-base"):
        pytest.skip("the embedded multilingual whisper-base is not installed")
    tmp = tmp_path_factory.mktemp("audit_translation")
    manifest, truth, said = _write_corpus(tmp)
    rows = [json.loads(line) for line in manifest.read_text(encoding="utf-8").splitlines()]
    for name in ("panel1", "panel2", "panel3"):
        (tmp / f"{name}.jsonl").write_text("".join(
            json.dumps({"audio_filepath": r["audio_filepath"], "text": r["text"], "pred_text": said[r["audio_filepath"]]})
            + "\n" for r in rows), encoding="utf-8")
    panel = "".join(f'[[model]]\npredictions = "{tmp / f"{n}.jsonl"}"\nname = "{n}"\npanel = true\n\n'
                    for n in ("panel1", "panel2", "panel3"))
    spec = tmp / "audit.toml"
    spec.write_text(f'name = "translation"\nout = "{tmp / "out"}"\nbootstrap = 50\n[corpus]\nmanifest = "{manifest}"\n\n'
                    f'{panel}[[model]]\nspec = "whisper-base"\nname = "base"\noptions = {{ beam_size = 1 }}\n\n'
                    f'[report]\nalign = "none"\n[translation]\ntruth = "{truth}"\n', encoding="utf-8")
    assert main(["audit", str(spec), "--no-progress"]) == 0
    # The same audit reading the panel's mined edits instead of the truth file, from a copy of the store (free).
    (tmp / "mined").mkdir()
    shutil.copy(tmp / "out" / "asraudit.sqlite", tmp / "mined" / "asraudit.sqlite")
    text = spec.read_text(encoding="utf-8").replace(f'out = "{tmp / "out"}"', f'out = "{tmp / "mined"}"')
    (tmp / "mined.toml").write_text(text.replace(f'truth = "{truth}"\n', ""), encoding="utf-8")
    assert main(["audit", str(tmp / "mined.toml"), "--no-progress"]) == 0
    return tmp / "out"


def test_without_a_truth_file_the_spans_are_the_panels_mined_edits(translation_audit):
    mined = json.loads((translation_audit.parent / "mined" / "summary.json").read_text(encoding="utf-8"))
    section = mined["translation"]
    assert section["spans"] == "mined"
    # the panel writes what was said, so it mines the planted opener (delete) and false start (insert) on each clip
    assert mined["mining"]["by_kind"]["delete"] == 2 and mined["mining"]["by_kind"]["insert"] == 2
    assert sum(section["spans_by_status"]["base"].values()) == 4
    planted = json.loads((translation_audit / "summary.json").read_text(encoding="utf-8"))["translation"]
    assert section["rows"] == planted["rows"]  # the same spans, read on the same stored outputs


def test_every_planted_span_is_accounted_for_per_model(translation_audit):
    summary = json.loads((translation_audit / "summary.json").read_text(encoding="utf-8"))
    section = summary["translation"]
    assert section["target"] == "es" and section["spans"] == "planted" and section["models"] == ["base"]
    # two "Madam President" (invented) and two "Well" (dropped): each either read or counted with its reason
    assert sum(section["spans_by_status"]["base"].values()) == 4
    rows = section["rows"]
    assert {(r["kind"], r["transcript"]) for r in rows} == {(k, t) for k in ("dropped", "invented")
                                                             for t in ("omitted", "contained")}
    assert sum(r["n"] for r in rows) == section["spans_by_status"]["base"].get("checked", 0)
    for r in rows:
        assert 0 <= r["in_rendering"] <= r["n"] and (r["rate"] is None) == (r["n"] == 0)


def test_the_translation_summary_satisfies_the_published_schema_and_reads_back(translation_audit):
    jsonschema = pytest.importorskip("jsonschema")
    from asraudit.report.schema import read_summary, summary_schema

    summary = json.loads((translation_audit / "summary.json").read_text(encoding="utf-8"))
    jsonschema.validate(summary, summary_schema())
    typed = read_summary(translation_audit / "summary.json")
    assert typed.translation.rows[0].rate_interval.method == "wilson"


def test_the_outcomes_are_a_table_and_the_report_shows_the_section(translation_audit):
    pq = pytest.importorskip("pyarrow.parquet")
    table = pq.read_table(translation_audit / "tables" / "translation.parquet").to_pylist()
    assert len(table) == 4 and {r["model"] for r in table} == {"base"}
    assert {r["span"] for r in table} == {"madam president", "well"}
    page = (translation_audit / "report.html").read_text(encoding="utf-8")
    assert 'id="translation-section"' in page and 'id="translation"' in page


def test_a_summary_without_the_section_has_no_translation_block_and_one_with_it_is_escaped():
    from asraudit.report.html import render_report
    from asraudit.report.schema import SCHEMA_VERSION, from_json

    base = {"schema_version": SCHEMA_VERSION, "title": "", "subtitle": "", "models": {}}
    assert 'id="translation-section"' not in render_report(from_json(base))
    wilson = {"low": 0.2, "high": 0.9, "level": 0.95, "method": "wilson"}
    evil = "<script>x</script>"
    section = {"target": "es", "lexicon": "built-in:es", "spans": "planted", "models": [evil],
               "rows": [{"model": evil, "kind": "dropped", "transcript": "omitted", "in_rendering": 3, "n": 5,
                         "rate": 0.6, "rate_interval": wilson}],
               "spans_by_status": {evil: {"checked": 5, "clash": 2}}}
    page = render_report(from_json({**base, "translation": section}))
    block = page.split('id="translation-section"', 1)[1].split("</section>", 1)[0]
    assert "60.0%" in block and "3/5" in block and "clash 2" in block
    assert evil not in page and "&lt;script&gt;" in block


# ---------------------------------------------------------------- asraudit translate


@pytest.mark.skipif(not embedded.is_present("whisper-tiny.en"), reason="the embedded whisper-tiny.en is not installed")
def test_the_command_refuses_an_english_only_model_and_bad_knobs_with_one_line(tmp_path, capsys):
    manifest, truth, _ = _write_corpus(tmp_path)
    common = ["translate", "--corpus", str(manifest), "--truth", str(truth), "--out", str(tmp_path / "o.jsonl")]
    assert main(common + ["--model", "whisper-tiny.en"]) == 2
    assert "cannot render Spanish: an English-only Whisper" in capsys.readouterr().err
    assert main(common + ["--model", "whisper-base", "--max-english-overlap", "2"]) == 2
    assert "--max-english-overlap must be in [0, 1]" in capsys.readouterr().err
    assert not (tmp_path / "o.jsonl").exists()


@pytest.mark.skipif(not embedded.is_present("whisper-base"), reason="the embedded whisper-base is not installed")
def test_the_command_writes_one_row_per_span_and_the_cells(tmp_path, capsys):
    manifest, truth, _ = _write_corpus(tmp_path)
    out, summary = tmp_path / "o.jsonl", tmp_path / "s.json"
    assert main(["translate", "--corpus", str(manifest), "--truth", str(truth), "--model", "whisper-base",
                 "--option", "beam_size=1", "--max-clips", "1", "--out", str(out), "--json", str(summary),
                 "--no-progress"]) == 0
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert len(rows) == 1 and rows[0]["model"] == "whisper-base" and rows[0]["status"] in ("checked", "untranslated")
    cells = json.loads(summary.read_text(encoding="utf-8"))["cells"]
    assert len(cells) == 4 and sum(c["n"] for c in cells) == (rows[0]["status"] == "checked")
    assert "span rendered in es" in capsys.readouterr().out
