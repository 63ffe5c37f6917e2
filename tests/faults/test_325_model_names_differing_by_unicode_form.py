"""Case 325: an audit spec naming two models ``café`` and ``café``, one written composed (``\\u00e9``) and one
decomposed (``e`` and a combining accent, as some editors and a Mac's file names save it), or naming in
``[lift] models`` (``[masked]``, ``[battery]``, ``[translation]``) a model in the other form than its ``[[model]]``.

The names are other strings, so the audit ran both, and every table and the report showed two rows named
``café``, telling the reader nothing of which is which (``audit --check``: ``models m0, m1, m2, café, café``); a
probe's list in the other form was refused as ``unknown model(s) café; the audit's models are m0, m1, m2, café``,
the name it said was unknown among those it listed.  Names stay exact (as case 103 kept texts), and the lines say
which name is which form."""

from __future__ import annotations

from conftest import write_preds

COMPOSED, DECOMPOSED = "caf\u00e9", "cafe\u0301"


def _spec(folder, extra: str):
    for i in range(5):
        rows = [(f"c{k}.wav", f"mr smith said the cat sat {k}", f"mister smith said the cat sat {k}" + " x" * i)
                for k in range(4)]
        write_preds(folder / f"m{i}.jsonl", rows)
    panel = "".join(f'[[model]]\npredictions = "m{i}.jsonl"\npanel = true\n\n' for i in range(3))
    (folder / "a.toml").write_text(f'out = "out"\n[corpus]\npredictions = "m0.jsonl"\n\n{panel}{extra}\n',
                                   encoding="utf-8")


def test_two_models_named_alike_in_two_unicode_forms(tmp_path, cli, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _spec(tmp_path, f'[[model]]\npredictions = "m3.jsonl"\nname = "{DECOMPOSED}"\n\n'
                    f'[[model]]\npredictions = "m4.jsonl"\nname = "{COMPOSED}"\n')
    ran = cli("audit", "a.toml", "--check")
    assert (ran.code, ran.error_lines) == (2, [
        f"asraudit: error: a.toml: [[model]] #5: the name {COMPOSED!r} is the name of [[model]] #4, {DECOMPOSED!r}, "
        "written in another Unicode form ('caf\\xe9' and 'cafe\\u0301': composed and decomposed accents), so every "
        "table would show two models of one name: give the models names that differ visibly"])


def test_a_probes_list_naming_a_model_in_the_other_form(tmp_path, cli, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _spec(tmp_path, f'[[model]]\npredictions = "m3.jsonl"\nname = "{DECOMPOSED}"\n\n[lift]\nmodels = ["{COMPOSED}"]\n')
    ran = cli("audit", "a.toml", "--check")
    assert ran.code == 2
    assert ran.error_lines == [
        f"asraudit: error: a.toml: [lift] models: unknown model(s) {COMPOSED}; the audit's models are m0, m1, m2, "
        f"{DECOMPOSED}: {COMPOSED!r} is the model {DECOMPOSED!r} written in another Unicode form ('caf\\xe9' and "
        "'cafe\\u0301'): write it as its [[model]] name is written"]


def test_control_names_in_one_form_and_names_in_two_cases_are_two_models(tmp_path, cli, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _spec(tmp_path, f'[[model]]\npredictions = "m3.jsonl"\nname = "{COMPOSED}"\n\n'
                    '[[model]]\npredictions = "m4.jsonl"\nname = "M0"\n')
    ran = cli("audit", "a.toml", "--check")
    assert ran.code == 0, ran.err
    assert f"models m0, m1, m2, {COMPOSED}, M0" in ran.out
