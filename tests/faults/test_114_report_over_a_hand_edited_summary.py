"""Case 114: ``asraudit report`` over a summary.json edited by hand (or by a tool) into values no audit writes.

An accept-ref of 1e308 stopped the page with ``OverflowError: int too large
to convert to float`` from the plots' tick labels, and a WER ranking naming
a model that ``wer_ranking/models`` does not hold with ``KeyError``: tracebacks.
A negative count, ``n_ref`` above ``n_eligible``, an interval whose low bound
is above its high one or an infinity were rendered as if measured, exit 0.
The schema now holds the layout's ranges (counts at least 0, accept-ref in
[0, 1], WER at least 0, an interval's level in (0, 1)), and what it cannot
say is checked after it; each is one line naming the file and the place.
A WER of 1e308, inside its range, is plotted.
"""

from __future__ import annotations

import json

import pytest

from conftest import text_only_audit_summary

LAYOUT = "not a summary.json of layout 2.4"


@pytest.fixture(scope="module")
def summary(tmp_path_factory):
    path = text_only_audit_summary(tmp_path_factory.mktemp("audit"), n_clips=6, bootstrap=20)
    return json.loads(path.read_text(encoding="utf-8"))


def report(cli, tmp_path, data, raw: str | None = None):
    path = tmp_path / "summary.json"
    path.write_text(raw if raw is not None else json.dumps(data), encoding="utf-8")
    ran = cli("report", path, "--out", tmp_path / "page.html")
    return ran, path


def edited(summary, change):
    data = json.loads(json.dumps(summary))
    change(data)
    return data


def test_the_file_as_written_renders(summary, cli, tmp_path):
    ran, _ = report(cli, tmp_path, summary)
    assert ran.code == 0, ran.err
    assert summary["models"]["m3"]["accept_ref"] is not None and summary["wer_ranking"]["ranking"]["record"]


CASES = {
    "an accept-ref of 1e308": (lambda d: d["models"]["m3"].update(accept_ref=1e308),
                               "at models/m3/accept_ref: 1e+308 is greater than the maximum of 1"),
    "an accept-ref bound of 1e308": (lambda d: d["models"]["m3"]["accept_ref_interval"].update(high=1e308),
                                     "at models/m3/accept_ref_interval/high: 1e+308 is greater than the maximum of 1"),
    "accept-ref by kind above 1": (lambda d: d["accept_ref_by_kind"]["m3"]["substitute"].update(rate=1.5),
                                   "at accept_ref_by_kind/m3/substitute/rate: 1.5 is greater than the maximum of 1"),
    "a negative WER": (lambda d: d["models"]["m0"].update(wer=-5),
                       "at models/m0/wer: -5 is less than the minimum of 0"),
    "a negative count": (lambda d: d["models"]["m3"].update(n_ref=-5),
                         "at models/m3/n_ref: -5 is less than the minimum of 0"),
    "a negative rank": (lambda d: d["wer_ranking"]["models"]["m0"].update(rank_record=-1),
                        "at wer_ranking/models/m0/rank_record: -1 is less than the minimum of 0"),
    "more echoed than judged": (lambda d: d["models"]["m3"].update(n_ref=5, n_eligible=2),
                                "at models/m3: n_ref 5 is more than n_eligible 2 (the edits a model echoed are among "
                                "those judged)"),
    "an interval upside down": (lambda d: d["models"]["m0"]["wer_interval"].update(low=0.9, high=0.1),
                                "at models/m0/wer_interval: the interval's low bound 0.9 is above its high bound 0.1"),
    "an interval level of 5": (lambda d: d["models"]["m0"]["wer_interval"].update(level=5),
                               "at models/m0/wer_interval/level: 5 is greater than or equal to the maximum of 1"),
    "a ranking naming another model": (lambda d: d["wer_ranking"]["ranking"]["record"].append("zzz"),
                                       "at wer_ranking/ranking/record: 'zzz' is not one of wer_ranking/models "
                                       "(m0, m1, m2, m3)"),
    "a ranked model left out of the models": (lambda d: d["wer_ranking"]["models"].pop("m0"),
                                              "at wer_ranking/ranking/record: 'm0' is not one of wer_ranking/models "
                                              "(m1, m2, m3)"),
    "a ranking listing a model twice": (lambda d: d["wer_ranking"]["ranking"]["record"].__setitem__(
        1, d["wer_ranking"]["ranking"]["record"][0]), None),
}


@pytest.mark.parametrize("case", CASES, ids=list(CASES))
def test_a_value_no_audit_writes_is_one_line_naming_its_place(summary, cli, tmp_path, case):
    change, message = CASES[case]
    ran, path = report(cli, tmp_path, edited(summary, change))
    assert ran.code == 2 and ran.out == ""
    assert len(ran.error_lines) == 1 and ran.err.count("\n") == 1, ran.err
    if message is None:  # which model repeats depends on the ranking's order
        first = summary["wer_ranking"]["ranking"]["record"][0]
        message = (f"at wer_ranking/ranking/record: {first!r} is listed 2 times: a ranking lists each model once")
    assert ran.error_lines == [f"asraudit: error: {path}: {LAYOUT}: {message}"]
    assert not (tmp_path / "page.html").exists()


@pytest.mark.parametrize("token", ["Infinity", "-Infinity", "1e400"])
def test_an_infinity_is_refused(summary, cli, tmp_path, token):
    data = edited(summary, lambda d: d["models"]["m0"].update(wer="@"))
    ran, path = report(cli, tmp_path, None, json.dumps(data).replace('"@"', token))
    sign = "-" if token.startswith("-") else ""
    assert ran.error_lines == [f"asraudit: error: {path}: {LAYOUT}: at models/m0/wer: {sign}inf is not a number a "
                               "summary holds (JSON has no infinity; an undefined value is null)"]


def test_a_huge_wer_inside_its_range_is_plotted(summary, cli, tmp_path):
    data = edited(summary, lambda d: [row.update(wer=1e308) for row in d["models"].values()])
    ran, _ = report(cli, tmp_path, data)
    assert ran.code == 0, ran.err
    assert (tmp_path / "page.html").read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
