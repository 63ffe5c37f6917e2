"""Case 93: an audit run again into the same ``out`` with a stage left out.

``tables/`` kept the earlier run's Parquet file of a stage this run did not
run (or had no rows for): after a rerun without ``[conventions]``,
``tables/conventions.parquet`` was the last run's, beside a ``summary.json``
with no conventions, and a reader of ``tables/`` took the two runs for one.
Now a table this run does not write is removed (each one is written whole,
then moved into place), and an input file where a table goes is refused by
``--check``, so no input is ever removed.
"""

from __future__ import annotations

import json


def _spec(tmp_path, name, sections, corpus="m0.jsonl"):
    for model in ("m0", "m1", "m2", "sus"):
        with (tmp_path / f"{model}.jsonl").open("w", encoding="utf-8") as fh:
            for i in range(8):
                ref = f"well mr smith sat on mat {i}"
                fh.write(json.dumps({"audio_filepath": f"c{i}", "text": ref,
                                     "pred_text": ref if model == "sus" else ref.replace("well ", "")}) + "\n")
    models = "".join(f'[[model]]\npredictions = "{m}.jsonl"\npanel = {str(m != "sus").lower()}\n\n'
                     for m in ("m0", "m1", "m2", "sus"))
    spec = tmp_path / name
    spec.write_text(f'out = "out"\nbootstrap = 20\n[corpus]\npredictions = "{corpus}"\n\n{models}'
                    f"[refdis]\nmajority = 0.66\nmin_panel = 2\n{sections}", encoding="utf-8")
    return spec


def test_a_rerun_without_a_stage_removes_that_stages_table(tmp_path, cli):
    tables = tmp_path / "out" / "tables"
    assert cli("audit", _spec(tmp_path, "a.toml", "[conventions]\n"), "--no-progress").code == 0
    assert sorted(p.name for p in tables.iterdir()) == ["clips.parquet", "conventions.parquet", "edits.parquet",
                                                        "verdicts.parquet"]
    mine = tables / "notes.txt"  # a file of the user's own, of no table's name, is left alone
    mine.write_text("mine", encoding="utf-8")
    assert cli("audit", _spec(tmp_path, "b.toml", ""), "--no-progress").code == 0
    assert sorted(p.name for p in tables.iterdir()) == ["clips.parquet", "edits.parquet", "notes.txt",
                                                        "verdicts.parquet"]
    summary = json.loads((tmp_path / "out" / "summary.json").read_text(encoding="utf-8"))
    assert "conventions" not in summary


def test_an_input_where_a_table_goes_is_refused_by_check(tmp_path, cli):
    import pyarrow as pa
    import pyarrow.parquet as pq

    spec = _spec(tmp_path, "a.toml", "")
    table = tmp_path / "out" / "tables" / "battery.parquet"  # model m1's predictions, saved where a table goes
    table.parent.mkdir(parents=True)
    rows = [json.loads(line) for line in (tmp_path / "m1.jsonl").read_text(encoding="utf-8").splitlines()]
    pq.write_table(pa.Table.from_pylist(rows), table)
    spec.write_text(spec.read_text(encoding="utf-8").replace('predictions = "m1.jsonl"',
                                                             'predictions = "out/tables/battery.parquet"'),
                    encoding="utf-8")
    ran = cli("audit", spec, "--check")
    assert ran.code == 2 and len(ran.error_lines) == 1
    assert "the audit's table 'battery'" in ran.error_lines[0], ran.error_lines
    assert table.is_file()


def test_a_rerun_without_a_model_removes_its_old_export_and_nothing_else(tmp_path, cli):
    """``asraudit wer --preds out/preds`` (the README's tour) scored the dropped model beside the audit's own."""
    preds = tmp_path / "out" / "preds"
    assert cli("audit", _spec(tmp_path, "a.toml", ""), "--no-progress").code == 0
    (preds / "mine.jsonl").write_text((preds / "m2.jsonl").read_text(encoding="utf-8"), encoding="utf-8")
    without_m2 = _spec(tmp_path, "b.toml", "")
    without_m2.write_text(without_m2.read_text(encoding="utf-8").replace(
        '[[model]]\npredictions = "m2.jsonl"\npanel = true\n\n', ""), encoding="utf-8")
    ran = cli("audit", without_m2, "--no-progress")
    assert ran.code == 0, ran.err
    assert "removed m2.jsonl from preds/: an earlier audit's export of a model this spec lacks" in ran.err
    assert sorted(p.name for p in preds.glob("*.jsonl")) == ["m0.jsonl", "m1.jsonl", "mine.jsonl", "sus.jsonl"]
    ran = cli("wer", "--preds", preds)
    assert ran.code == 0 and "m2 " not in ran.out and "mine" in ran.out


def test_an_old_export_replayed_as_an_input_is_kept(tmp_path, cli):
    preds = tmp_path / "out" / "preds"
    assert cli("audit", _spec(tmp_path, "a.toml", ""), "--no-progress").code == 0
    replaying = _spec(tmp_path, "b.toml", "")
    replaying.write_text(replaying.read_text(encoding="utf-8").replace(
        '[[model]]\npredictions = "m2.jsonl"\npanel = true\n',
        '[[model]]\nname = "m2-again"\npredictions = "out/preds/m2.jsonl"\npanel = true\n'), encoding="utf-8")
    ran = cli("audit", replaying, "--no-progress")
    assert ran.code == 0, ran.err
    assert (preds / "m2.jsonl").is_file() and (preds / "m2-again.jsonl").is_file()


def test_the_edits_table_keeps_loo_for_as_a_list(tmp_path, cli):
    """``loo_for`` was joined with commas ("m0,m1"), ambiguous once a model name holds a comma; it is JSON text
    like every other list in the tables."""
    import pyarrow.parquet as pq

    assert cli("audit", _spec(tmp_path, "a.toml", ""), "--no-progress").code == 0
    edits = pq.read_table(tmp_path / "out" / "tables" / "edits.parquet").to_pylist()
    assert edits and all(json.loads(e["loo_for"]) == ["m0", "m1", "m2"] for e in edits), edits[0]


def test_a_column_with_no_value_this_run_is_typed_as_numbers(tmp_path, cli):
    """The switch rate and its bounds where nothing was measurable were Arrow's null type, and concatenating the
    table with another audit's (where they hold numbers) failed on the schema."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    assert cli("audit", _spec(tmp_path, "a.toml", "[conventions]\n"), "--no-progress").code == 0
    table = pq.read_table(tmp_path / "out" / "tables" / "conventions.parquet")
    assert table.column("s").null_count == table.num_rows  # not measurable here: one arm only
    assert all(table.schema.field(c).type == pa.float64() for c in ("s", "lo", "hi"))
    measured = table.set_column(table.schema.get_field_index("s"), "s", pa.array([0.5] * table.num_rows))
    assert pa.concat_tables([table, measured]).num_rows == 2 * table.num_rows
