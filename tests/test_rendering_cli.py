"""`asraudit conventions`: tables, JSON contract, examples, and the real VoxPopuli set."""

from __future__ import annotations

import json

from asraudit.cli import main


def _write_preds(tmp_path, n: int = 12):
    """Half the references write "Mr", half "Mister"; one model keeps "Mr", one follows."""
    d = tmp_path / "preds"
    d.mkdir()
    habit, tracker = [], []
    for i in range(n):
        arm = "Mr" if i % 2 == 0 else "Mister"
        ref = f"Thank you, {arm} Smith, and colour {i}."
        habit.append({"audio_filepath": f"c{i}", "text": ref, "pred_text": f"Thank you, Mr. Smith, and color {i}."})
        tracker.append({"audio_filepath": f"c{i}", "text": ref, "pred_text": ref})
    for name, rows in (("habit", habit), ("tracker", tracker)):
        (d / f"{name}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return d


def test_conventions_prints_switch_table_and_writes_the_json_contract(tmp_path, capsys):
    d = _write_preds(tmp_path)
    out = tmp_path / "c.json"
    assert main(["conventions", "--preds", str(d), "--json", str(out), "--bootstrap", "50"]) == 0
    printed = capsys.readouterr().out
    assert "Switch rate per family" in printed and "NOT MEASURABLE" not in printed
    line = next(ln for ln in printed.splitlines() if ln.startswith("mister") and "habit" in ln)
    assert "0.000" in line and "Mister" in line  # the limiting arm of a fixed habit
    data = json.loads(out.read_text())
    habit = data["switch"]["mister"]["habit"]
    assert habit["switch"] == 0.0 and habit["limiting_arm"] == "Mister" and habit["measurable"]
    assert habit["arms"]["Mr"] == {"clips": 6, "hits": 6, "rendered": 6, "scored": True}
    assert data["switch"]["mister"]["tracker"]["switch"] == 1.0
    assert data["reference_usage"]["mister"] == {"Mr": 6, "Mister": 6}
    spelling = data["agreement_by_class"]["habit"]["spelling"]
    assert (spelling["agree"], spelling["rendered"], spelling["rate"]) == (0, 12, 0.0)
    assert data["agreement_by_class"]["tracker"]["all"]["rate"] == 1.0
    assert any(r["name"] == "us_united_states" for r in data["catalogue"]["rejected"])


def test_show_highlights_the_reference_and_hypothesis_spans(tmp_path, capsys):
    d = _write_preds(tmp_path, n=4)
    assert main(["conventions", "--preds", str(d / "habit.jsonl"), "--show", "2", "--bootstrap", "20"]) == 0
    printed = capsys.readouterr().out
    assert "== habit: 2 example occurrence(s) ==" in printed
    assert "ref: Thank you, [[Mister]] Smith" in printed
    assert "hyp: Thank you, [[Mr.]] Smith" in printed


def test_pool_prints_pooled_switch_rates(tmp_path, capsys):
    d = _write_preds(tmp_path)
    assert main(["conventions", "--preds", str(d), "--pool", "--bootstrap", "20"]) == 0
    printed = capsys.readouterr().out
    assert "Switch rate per pool" in printed
    assert any(ln.startswith("honorific") and "habit" in ln for ln in printed.splitlines())


def test_bad_family_file_exits_2_with_the_file_named(tmp_path, capsys):
    d = _write_preds(tmp_path, n=2)
    bad = tmp_path / "fam.toml"
    bad.write_text('[[family]]\nname = "x"\n', encoding="utf-8")
    assert main(["conventions", "--preds", str(d), "--families", str(bad)]) == 2
    assert str(bad) in capsys.readouterr().err


def test_voxpopuli_says_clearly_that_switch_rate_is_not_measurable(shared_predictions, capsys, tmp_path):
    out = tmp_path / "vox.json"
    assert main(["conventions", "--preds", str(shared_predictions), "--pool", "--json", str(out),
                 "--bootstrap", "100"]) == 0
    printed = capsys.readouterr().out
    assert "Switch rate per family: NOT MEASURABLE on this corpus" in printed
    assert "one arm only" in printed
    assert "Rendering agreement" in printed
    data = json.loads(out.read_text())
    assert data["reference_usage"]["mister"] == {"Mr": 7, "Mister": 0}
    assert not any(v["measurable"] for fam in data["switch"].values() for v in fam.values())
    # wav2vec2 writes "MISTER" where VoxPopuli writes "Mr"; the Whisper models keep "Mr".
    assert data["agreement_by_class"]["wav2vec2-base-960h"]["honorific"]["rate"] == 0.0
    assert data["agreement_by_class"]["whisper-base.en"]["honorific"]["rate"] == 1.0
