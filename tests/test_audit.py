"""`asraudit audit`: the spec is checked before any work, and the whole audit writes its outputs.

The end-to-end cases replay prediction files over parliament-mini, so they
exercise every text stage, the flags and every output file in seconds; the
audio stages run in test_audit_audio.py.
"""

from __future__ import annotations

import json
import re

import pytest

from asraudit.audit.spec import SpecError, load_spec, parse_spec
from asraudit.cli import main
from asraudit.demo.organism import BENCHMARK_DIR

MANIFEST = BENCHMARK_DIR / "test.jsonl"
EVIL = "<script>alert(1)</script>"


def _rows(n: int = 70):
    return [json.loads(line) for line in MANIFEST.read_text(encoding="utf-8").splitlines()][:n]


def _write_preds(path, rows, text_of):
    with path.open("w", encoding="utf-8") as fh:
        for r in rows:
            fh.write(json.dumps({"audio_filepath": r["audio_filepath"], "text": r["text"],
                                 "pred_text": text_of(r)}) + "\n")
    return path


def _replay_spec(tmp_path, *, extra: str = "", organism_text=lambda r: r["text"], n: int = 70,
                 report_audio: bool = False) -> str:
    """The spec of a replayed audit; its page plays no audio unless ``report_audio`` (encoding and aligning the
    clips of 70 edits took about 5 s of each audit that reads nothing of them: test_report_listen.py reads them)."""
    rows = _rows(n)
    faithful = [_write_preds(tmp_path / f"clean{i}.jsonl", rows, lambda r: r["spoken"]) for i in range(3)]
    echo = _write_preds(tmp_path / "echo.jsonl", rows, organism_text)
    models = "".join(f'[[model]]\npredictions = "{p}"\nname = "clean{i}"\npanel = true\n\n'
                     for i, p in enumerate(faithful))
    models += f'[[model]]\npredictions = "{echo}"\nname = "echo"\n\n'
    sentences = json.dumps(sorted({r["sentence"] for r in rows}))
    return (f'name = "replayed"\nout = "{tmp_path / "out"}"\nbootstrap = 200\n\n'
            f'[corpus]\nmanifest = "{MANIFEST}"\ngroup_field = "voice_role"\n'
            f'select = {{ field = "sentence", values = {sentences} }}\n\n'
            # a 3-member panel: two of three must agree (the miner's defaults need 0.8 of at least 3)
            f"{models}[refdis]\nmajority = 0.66\nmin_panel = 2\n\n[conventions]\nmin_per_arm = 3\n\n"
            + ("" if report_audio else '[report]\naudio = false\nalign = "none"\n\n') + extra)


def _spec_file(tmp_path, text: str):
    path = tmp_path / "audit.toml"
    path.write_text(text, encoding="utf-8")
    return path


# ------------------------------------------------------------------ checks before any work


@pytest.mark.parametrize("text, message", [
    ('name = "x"\n', "needs a [corpus] table"),
    (f'[corpus]\nmanifest = "{MANIFEST}"\n', "at least one [[model]]"),
    (f'colour = "red"\n[corpus]\nmanifest = "{MANIFEST}"\n[[model]]\nspec = "pocketsphinx"\n',
     "unknown key(s) colour"),
    ('[corpus]\nmanifest = "nowhere.jsonl"\n[[model]]\nspec = "pocketsphinx"\n', "no such file"),
    (f'[corpus]\nmanifest = "{MANIFEST}"\nfolder = "."\n[[model]]\nspec = "pocketsphinx"\n', "exactly one of"),
    (f'[corpus]\nmanifest = "{MANIFEST}"\n[[model]]\nspec = "pocketsphinx"\npanel = "yes"\n',
     "[[model]] #1: panel must be true or false"),
    (f'[corpus]\nmanifest = "{MANIFEST}"\n[[model]]\nspec = "pocketsphinx"\n[refdis]\nmajority = 2\n',
     "[refdis]: majority must be in [0.0, 1.0]"),
    # the check shared with the CLI names its flag (--majority); in a spec the knob is the key
    (f'[corpus]\nmanifest = "{MANIFEST}"\n[[model]]\nspec = "pocketsphinx"\n[refdis]\nmajority = 0\n',
     "[refdis]: majority must be in (0, 1], got 0"),
    (f'[corpus]\nmanifest = "{MANIFEST}"\n[[model]]\nspec = "pocketsphinx"\n[masked]\ntargets = "listed"\n',
     'targets = "listed" needs words'),
])
def test_spec_shape_errors_name_the_entry(tmp_path, text, message):
    with pytest.raises(SpecError) as err:
        parse_spec(__import__("tomllib").loads(text), "audit.toml", tmp_path)
    assert message in str(err.value) and "audit.toml" in str(err.value)


def test_broken_toml_and_non_utf8_specs_are_errors_naming_the_file(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text("name = \n", encoding="utf-8")
    with pytest.raises(SpecError, match="not valid TOML"):
        load_spec(bad)
    raw = tmp_path / "raw.toml"
    raw.write_bytes(b'name = "\xff"\n')
    with pytest.raises(SpecError, match=r"raw.toml, row 1: not valid UTF-8 \(byte 0xff at offset 8\)"):
        load_spec(raw)


def test_unknown_model_is_refused_before_any_work(tmp_path, capsys):
    text = _replay_spec(tmp_path) + '[[model]]\nspec = "whisper-huge-v9"\n'
    code = main(["audit", str(_spec_file(tmp_path, text))])
    err = capsys.readouterr().err
    assert code == 2 and "[[model]] #5 (whisper-huge-v9)" in err
    assert not (tmp_path / "out" / "asraudit.sqlite").exists()


def test_a_probe_needing_scores_from_a_model_that_cannot_score_is_refused(tmp_path, capsys):
    text = _replay_spec(tmp_path, extra='[lift]\nmodels = ["echo"]\n')
    assert main(["audit", str(_spec_file(tmp_path, text))]) == 2
    err = capsys.readouterr().err
    assert "[lift] models" in err and "echo" in err


def test_probe_sections_naming_unknown_models_are_refused(tmp_path, capsys):
    text = _replay_spec(tmp_path, extra='[battery]\nmodels = ["nobody"]\n')
    assert main(["audit", str(_spec_file(tmp_path, text))]) == 2
    assert "unknown model(s) nobody" in capsys.readouterr().err


def test_a_prediction_file_missing_clips_is_refused_with_its_entry(tmp_path, capsys):
    text = _replay_spec(tmp_path)
    short = tmp_path / "short.jsonl"
    _write_preds(short, _rows(10), lambda r: r["spoken"])
    text += f'[[model]]\npredictions = "{short}"\nname = "short"\n'
    assert main(["audit", str(_spec_file(tmp_path, text))]) == 2
    err = capsys.readouterr().err
    assert "[[model]] #5" in err and "no row for 60 clip(s)" in err


def test_a_prediction_file_with_other_references_is_refused_naming_the_row(tmp_path, capsys):
    text = _replay_spec(tmp_path)
    rows = _rows(70)
    rows[3] = {**rows[3], "text": "something else entirely"}
    other = _write_preds(tmp_path / "other.jsonl", rows, lambda r: r["spoken"])
    text += f'[[model]]\npredictions = "{other}"\nname = "other"\n'
    assert main(["audit", str(_spec_file(tmp_path, text))]) == 2
    err = capsys.readouterr().err
    assert "row 4" in err and "differs from the corpus" in err


def test_audio_probes_on_a_corpus_without_audio_are_refused(tmp_path, capsys):
    rows = _rows(14)
    for r in rows:
        r["audio_filepath"] = "gone/" + r["audio_filepath"]
    corpus = tmp_path / "noaudio.jsonl"
    corpus.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    preds = [_write_preds(tmp_path / f"m{i}.jsonl", rows, lambda r: r["spoken"]) for i in range(2)]
    text = (f'[corpus]\npredictions = "{corpus}"\n'
            + "".join(f'[[model]]\npredictions = "{p}"\npanel = true\n' for p in preds)
            + '[refdis]\nmin_panel = 2\n[masked]\n')
    assert main(["audit", str(_spec_file(tmp_path, text))]) == 2
    assert "has no audio, which [masked] need" in capsys.readouterr().err


# ------------------------------------------------------------------ the whole text audit


@pytest.fixture(scope="module")
def replayed(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("audit")
    spec = _spec_file(tmp, _replay_spec(tmp, organism_text=lambda r: r["text"] if r["audio_filepath"] != _rows(1)[0]["audio_filepath"] else EVIL,
                                        report_audio=True))  # the report command's test compares the pages
    assert main(["audit", str(spec), "--no-progress"]) == 0
    return tmp / "out", spec


def test_the_echoing_model_is_flagged_and_the_faithful_ones_are_not(replayed):
    out, _ = replayed
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    models = summary["models"]
    assert models["echo"]["flagged"] and models["echo"]["accept_ref"] > 0.9
    assert any("above every panel member" in r for r in models["echo"]["flag_reasons"])
    for name in ("clean0", "clean1", "clean2"):
        assert not models[name]["flagged"] and models[name]["accept_ref"] == 0.0
        assert models[name]["wer_corrected"] < models[name]["wer"]
    # Echoing the record's errors is worth WER to the echoing model, nothing to the faithful ones.
    assert models["echo"]["wer_gained"] > 0.02 and models["clean0"]["wer_gained"] == 0.0
    assert set(summary["accept_ref_by_group"]["groups"]) == {"benchmark", "fresh"}
    assert summary["mining"]["edits"] > 10
    assert summary["provenance"]["models"]["echo"]["model_id"].startswith("replay:")


def test_the_echoing_model_leads_the_record_ranking_and_loses_it_on_corrected_references(replayed):
    out, _ = replayed
    ranking = json.loads((out / "summary.json").read_text(encoding="utf-8"))["wer_ranking"]
    assert ranking["ranking"]["record"][0] == "echo"
    assert ranking["models"]["echo"]["rank_corrected_loo"] > 1
    for name in ("clean0", "clean1", "clean2"):  # the panel: each judged by the other two's corrections
        row = ranking["models"][name]
        assert row["panel_member"] and row["wer_corrected_loo"] < row["wer_record"]
    assert ranking["truth_field"] is None and "truth" not in ranking["ranking"]


def test_every_output_is_written_and_parquet_tables_read_back(replayed):
    import pyarrow.parquet as pq

    out, _ = replayed
    for name in ("edits", "verdicts", "clips", "conventions"):
        table = pq.read_table(out / "tables" / f"{name}.parquet")
        assert table.num_rows > 0
    verdicts = pq.read_table(out / "tables" / "verdicts.parquet").to_pylist()
    assert {v["model"] for v in verdicts} == {"clean0", "clean1", "clean2", "echo"}
    clips = pq.read_table(out / "tables" / "clips.parquet").to_pylist()
    assert len(clips) == 70 * 4
    page = (out / "report.html").read_text(encoding="utf-8")
    assert EVIL not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert (out / "preds" / "echo.jsonl").is_file()


def test_a_rerun_reads_everything_from_the_store_and_gives_the_same_numbers(replayed, capsys):
    out, spec = replayed
    before = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert main(["audit", str(spec), "--no-progress"]) == 0
    captured = capsys.readouterr()
    assert "0 job(s) run now" in captured.err and "report: " in captured.out
    after = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert after["models"] == before["models"]
    assert after["edits"] == before["edits"]


def test_check_only_validates(tmp_path, capsys):
    spec = _spec_file(tmp_path, _replay_spec(tmp_path))
    assert main(["audit", str(spec), "--check"]) == 0
    assert "ok: 70 clips" in capsys.readouterr().out
    assert not (tmp_path / "out").exists()


def test_the_ray_executor_gives_the_local_numbers(tmp_path):
    pytest.importorskip("ray")
    results = {}
    for kind in ("local", "ray"):
        folder = tmp_path / kind
        folder.mkdir()
        text = _replay_spec(folder, n=28) + f'\n[executor]\nkind = "{kind}"\n'
        assert main(["audit", str(_spec_file(folder, text)), "--no-progress"]) == 0
        summary = json.loads((folder / "out" / "summary.json").read_text(encoding="utf-8"))
        results[kind] = {m: (v["accept_ref"], v["n_eligible"], v["wer"]) for m, v in summary["models"].items()}
        import sqlite3

        with sqlite3.connect(folder / "out" / "asraudit.sqlite") as db:
            executors = {row[0] for row in db.execute("SELECT executor FROM runs")}
        assert executors == {kind}
    assert results["ray"] == results["local"]
    assert results["ray"]["echo"][0] == 1.0


def published_schema(capsys) -> dict:
    """The schema `asraudit schema` prints."""
    assert main(["schema"]) == 0
    return json.loads(capsys.readouterr().out)


def test_the_summary_satisfies_the_published_schema_and_names_its_version(replayed, capsys):
    jsonschema = pytest.importorskip("jsonschema")
    out, _ = replayed
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    schema = published_schema(capsys)
    jsonschema.Draft202012Validator.check_schema(schema)
    jsonschema.validate(summary, schema)
    assert summary["schema_version"] == schema["properties"]["schema_version"]["const"]
    # a key the layout does not have is refused: the schema is a contract, not a description
    summary["models"]["echo"]["accept_ref_low"] = 0.5
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(summary, schema)


def test_the_summary_splits_each_stages_time_into_model_calls_and_overhead(replayed):
    out, _ = replayed
    timing = json.loads((out / "summary.json").read_text(encoding="utf-8"))["timing"]
    assert list(timing["stages"]) == ["prepare", "transcribe", "mine and score", "conventions", "outputs"]
    for t in [*timing["stages"].values(), timing["total"]]:
        assert t["overhead_s"] == pytest.approx(t["wall_s"] - t["model_s"], abs=2e-3)  # each rounded to 1 ms
        assert 0 <= t["model_s"] <= t["wall_s"] and 0 <= t["model_cpu_s"] <= t["cpu_s"]
    assert timing["total"]["wall_s"] == pytest.approx(sum(t["wall_s"] for t in timing["stages"].values()), abs=1e-2)
    # only the transcribe stage (and loading, in prepare) calls models; mining reads the store
    assert timing["stages"]["mine and score"]["model_s"] == 0


def test_every_interval_of_the_summary_is_one_object_under_its_fields_name(replayed):
    out, _ = replayed
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    echo = summary["models"]["echo"]
    assert echo["accept_ref_interval"]["method"] == "wilson" and echo["accept_ref_interval"]["level"] == 0.95
    assert echo["accept_ref_interval"]["low"] <= echo["accept_ref"] <= echo["accept_ref_interval"]["high"]
    assert echo["wer_interval"]["method"] == "bootstrap"
    text = (out / "summary.json").read_text(encoding="utf-8")
    for old in ('"lo"', '"hi"', "_ci", "wilson_low", "_lo\"", "_hi\""):  # the three spellings of layout 1.0
        assert old not in text, old


def without_audio(page: str) -> str:
    """A report page without what only the audit, which has the clips, can show: the audio, its note, the players."""
    page = re.sub(r'<div id="clip-audio">.*?</div>', "", page, flags=re.S)
    page = re.sub(r'<p class="note" id="audio-note">.*?</p>', "", page, flags=re.S)
    page = re.sub(r'<svg class="wave-defs".*?</svg>', "", page, flags=re.S)  # each clip's waveform, drawn once
    return re.sub(r'<div class="listen">.*?</div>', "", page, flags=re.S)


def test_the_report_command_renders_the_audits_own_page_from_its_summary(replayed, tmp_path, capsys):
    out, _ = replayed
    page = tmp_path / "again" / "report.html"
    assert main(["report", str(out / "summary.json"), "--out", str(page)]) == 0
    rebuilt, own = page.read_text(encoding="utf-8"), (out / "report.html").read_text(encoding="utf-8")
    # summary.json holds no audio: the rebuilt page is the audit's own but for the players, and says so.
    assert without_audio(rebuilt) == without_audio(own)
    assert "<audio " in own and "<audio " not in rebuilt and "summary.json holds no audio" in rebuilt
    old = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    old["schema_version"] = "1.0"
    stale = tmp_path / "stale.json"
    stale.write_text(json.dumps(old), encoding="utf-8")
    capsys.readouterr()
    assert main(["report", str(stale), "--out", str(tmp_path / "stale.html")]) == 2
    err = capsys.readouterr().err
    assert "stale.json" in err and "schema_version '1.0'" in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "stale.html").exists()
    # the audit's folder, as the audit prints it, reads its summary.json; a folder without one is named
    assert main(["report", str(out), "--out", str(tmp_path / "from-folder.html")]) == 0
    assert without_audio((tmp_path / "from-folder.html").read_text(encoding="utf-8")) == without_audio(rebuilt)
    capsys.readouterr()
    assert main(["report", str(tmp_path / "again")]) == 2
    assert capsys.readouterr().err.strip().endswith("again: a folder without a summary.json: give an audit's "
                                                    "summary.json or its out folder")


def test_every_knob_of_a_probe_is_settable_from_its_section_and_unknown_keys_name_the_spec(tmp_path):
    text = (f'[corpus]\nmanifest = "{MANIFEST}"\n[[model]]\nspec = "pocketsphinx"\n'
            '[refdis]\nmin_consensus_cer = 0.1\ninclude_middle = false\nleave_one_out = false\n'
            '[masked]\nattenuation_db = 12\nskip_trivial = false\nmodels = ["x"]\n')
    spec = parse_spec(__import__("tomllib").loads(text), "audit.toml", tmp_path)
    assert (spec.refdis.min_consensus_cer, spec.refdis.include_middle, spec.refdis.leave_one_out) == (0.1, False, False)
    assert spec.refdis.majority == 0.8 and spec.refdis.min_panel == 3  # the miner's own defaults
    assert spec.masked.params.attenuation_db == 12.0 and not spec.masked.params.skip_trivial
    assert spec.masked.models == ("x",)
    with pytest.raises(SpecError) as err:
        parse_spec(__import__("tomllib").loads(text + "colour = 1\n"), "audit.toml", tmp_path)
    assert "audit.toml" in str(err.value) and "[masked]: unknown key(s) colour" in str(err.value)


def test_the_refdis_command_and_the_audit_report_the_same_accept_ref(replayed, tmp_path, capsys):
    # One recipe: the command over the audit's exported prediction files, with the audit's panel settings,
    # gives every model the audit's accept-ref and counts.
    out, _ = replayed
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    preds = sorted(str(p) for p in (out / "preds").glob("*.jsonl"))
    result = tmp_path / "refdis.json"
    assert main(["refdis", "--preds", *preds, "--panel", "clean0,clean1,clean2", "--majority", "0.66",
                 "--min-panel", "2", "--json", str(result)]) == 0
    capsys.readouterr()
    command = json.loads(result.read_text(encoding="utf-8"))["accept_ref"]
    for name, m in summary["models"].items():
        assert (command[name]["n_ref"], command[name]["n_eligible"]) == (m["n_ref"], m["n_eligible"])
        assert command[name]["rate"] == pytest.approx(m["accept_ref"], rel=1e-12)  # the same counts' ratio
