"""The paper's switch-rate groups beside an audit: the scope read, each setting compared, rows and report.

The comparison cases use a small release written here (``ortho_switch.json``
in the release's format) and a small catalogue; the cases against the real
release skip cleanly when ``../shared`` is absent.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from asraudit.audit.published_switch import differences
from asraudit.cli import main
from asraudit.data.published import load_published, scope_corpora, scope_families
from asraudit.probes.conventions_probe import ConventionsParams
from asraudit.probes.families import Catalogue, load_catalogue
from test_audit import _replay_spec, _spec_file, published_schema

PROJECT_ROOT = Path(__file__).resolve().parents[1]
CANDIDATES = [PROJECT_ROOT.parent / "shared" / "reference" / "hume-paper-results",
              Path("/work/shared/reference/hume-paper-results")]

# Two families in one pool; the test corpus's references say "Madam President" and "Mr President".
CATALOGUE = """schema = 1
language = "en"
description = "forms of address in the replayed parliament sample (test catalogue)"

[[pool]]
name = "address"
arms = ["madam", "mister"]

[[family]]
name = "chair"
class = "address"
pool = "address"
arms = ["madam", "mister"]
forms = [["Madam President", "Mr President"]]

[[family]]
name = "committee"
class = "address"
pool = "address"
arms = ["madam", "mister"]
forms = [["Madam Chair", "Mr Chair"]]
"""


def _group(scope: str, min_per_arm: int = 3, arms=("madam", "mister")) -> dict:
    return {"scope": scope, "arms": list(arms), "chance": 0.5, "min_per_arm": min_per_arm, "results": {
        "published-echo": {"switch": 0.9, "lo": 0.6, "hi": 0.98, "limiting_arm": arms[1],
                           "arms": {arms[0]: {"hits": 10, "n": 10}, arms[1]: {"hits": 9, "n": 10}}},
        "published-faithful": {"switch": 0.1, "lo": 0.02, "hi": 0.4, "limiting_arm": arms[0],
                               "arms": {arms[0]: {"hits": 1, "n": 10}, arms[1]: {"hits": 2, "n": 10}}}}}


def _release(folder: Path) -> Path:
    folder.mkdir(exist_ok=True)
    groups = {
        "address": _group("within-parliament-mini, pooled over 2 address families"),
        "address_strict": _group("within-parliament-mini, pooled over 2 address families", min_per_arm=5),
        "address_cross": _group("cross-corpus: parliament-mini (abbreviated) vs librispeech (spelled out)"),
        "spacing": _group("within-parliament-mini, pooled over 2 spacing families", arms=("spaced", "solid")),
    }
    (folder / "ortho_switch.json").write_text(json.dumps(groups), encoding="utf-8")
    return folder


@pytest.fixture()
def catalogue(tmp_path):
    path = tmp_path / "address.toml"
    path.write_text(CATALOGUE, encoding="utf-8")
    return path


def test_the_scope_names_the_corpora_and_the_pooled_families():
    assert scope_corpora("within-librispeech, pooled over 4 spacing families") == ("librispeech",)
    assert scope_families("within-librispeech, pooled over 4 spacing families") == 4
    assert scope_corpora("cross-corpus: voxpopuli (abbreviated) vs librispeech (spelled out)") == (
        "voxpopuli", "librispeech")
    assert scope_families("cross-corpus: voxpopuli (abbreviated) vs librispeech (spelled out)") is None
    assert scope_corpora("somewhere else") == ()


def test_each_setting_that_differs_is_named(tmp_path, catalogue):
    groups = load_published(_release(tmp_path / "r")).switches
    cat = load_catalogue(str(catalogue))
    params = ConventionsParams(language=str(catalogue), min_per_arm=3)
    group, differs = differences(groups["address"], "parliament-mini", params, cat)
    assert (group.name, group.kind, group.families, differs) == ("address", "pool", 2, [])
    assert differences(groups["address"], "voxpopuli", params, cat)[1] == ["corpus parliament-mini, not voxpopuli"]
    assert differences(groups["address_strict"], "parliament-mini", params, cat)[1] == ["min_per_arm 5 (audit: 3)"]
    [cross] = differences(groups["address_cross"], "parliament-mini", params, cat)[1]
    assert "across parliament-mini and librispeech" in cross
    [arms] = differences(groups["spacing"], "parliament-mini", params, cat)[1]
    assert arms.startswith("arms spaced, solid: no family or pool")
    one_family = Catalogue(cat.families[:1], dict(cat.pools))
    assert differences(groups["address"], "parliament-mini", params, one_family)[1] == [
        "families: 2 pooled, this audit's pool address pools 1"]
    assert differences(groups["address"], "parliament-mini", None, None)[1] == [
        "this audit measured no switch rates (no [conventions] table)"]


def test_a_matching_audit_draws_its_switch_rates_with_the_published_ones(tmp_path, catalogue, capsys):
    release = _release(tmp_path / "release")
    text = _replay_spec(tmp_path).replace(
        "[conventions]\nmin_per_arm = 3\n", f'[conventions]\nmin_per_arm = 3\nlanguage = "{catalogue}"\n')
    text += f'\n[published]\ndir = "{release}"\ncorpus = "parliament-mini"\n'
    assert main(["audit", str(_spec_file(tmp_path, text)), "--no-progress"]) == 0
    out = tmp_path / "out"
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    groups = {g["name"]: g for g in summary["published_switch"]}
    address = groups["address"]
    assert address["differs"] == [] and address["audit_group"] == "address"
    assert address["note"] == "published, not re-measured"
    rows = {r["model"]: r for r in address["rows"]}
    # the echo model writes the reference: every "Madam President" and "Mr President" kept
    assert rows["echo"]["source"] == "audited" and rows["echo"]["switch"] == 1.0
    # the faithful models write what was said, which drops the address: neither arm
    assert rows["clean0"]["switch"] == 0.0
    # published: recomputed from the counts (the lowest arm, 9/10), Wilson on that arm
    assert rows["published-echo"]["source"] == "published, not re-measured"
    assert rows["published-echo"]["switch"] == pytest.approx(0.9)
    assert (rows["published-echo"]["limiting_arm"], rows["published-echo"]["hits"], rows["published-echo"]["n"]) == (
        "mister", 9, 10)
    assert rows["published-echo"]["switch_interval"]["method"] == "wilson"
    assert groups["address_strict"]["differs"] == ["min_per_arm 5 (audit: 3)"]
    assert groups["address_strict"]["rows"] == []
    notes = summary["provenance"]["notes"]
    assert any("address_strict not drawn beside this audit: min_per_arm 5 (audit: 3)" in n for n in notes)
    capsys.readouterr()
    import jsonschema
    jsonschema.validate(summary, published_schema(capsys))
    page = (out / "report.html").read_text(encoding="utf-8")
    section = page[page.index('id="published-section"'):]
    section = section[: section.index("</section>")]
    table = section[section.index("published-switch-address"):]
    assert "echo" in table and "published-echo" in table
    assert table.count('class="audited"') >= 4 and table.count('class="published"') >= 2
    assert "min_per_arm 5 (audit: 3)" in section and "across parliament-mini and librispeech" in section


@pytest.fixture(scope="module")
def released():
    folder = next((c for c in CANDIDATES if c.is_dir()), None)
    if folder is None:
        pytest.skip("the paper's released results (shared/reference/hume-paper-results) are absent")
    return load_published(folder)


def test_the_released_groups_against_the_curated_english_catalogue(released):
    cat = load_catalogue("en")
    spacing, mister = released.switches["spacing"], released.switches["hon_mister"]
    assert spacing.corpora == ("librispeech",) and spacing.families == 4
    # the release pools two arms; asraudit's compound pool has three, so they are not drawn together
    [arms] = differences(spacing, "librispeech", ConventionsParams(min_per_arm=5), cat)[1]
    assert "spaced, solid" in arms and "compound has spaced, hyphenated, solid" in arms
    # Mr vs mister was measured with one arm from each of two corpora: no single-corpus audit matches it
    group, differs = differences(mister, "voxpopuli", ConventionsParams(min_per_arm=3), cat)
    assert group.name == "mister" and len(differs) == 1 and "across voxpopuli and librispeech" in differs[0]


@pytest.mark.parametrize("arm, message", [
    ({"hits": 11, "n": 10}, "address.results.published-echo.madam: hits 11 exceed n 10"),
    ({"hits": -1, "n": 10}, "address.results.published-echo.madam: hits is a count, got -1"),
])
def test_arm_counts_that_cannot_be_are_refused_naming_the_arm(tmp_path, arm, message):
    from asraudit.data.published import load_published
    from asraudit.errors import InputError

    group = _group("within-parliament-mini, pooled over 2 address families")
    group["results"]["published-echo"]["arms"]["madam"] = arm
    (tmp_path / "ortho_switch.json").write_text(json.dumps({"address": group}), encoding="utf-8")
    with pytest.raises(InputError) as exc:
        load_published(tmp_path)
    assert str(exc.value).endswith(f"ortho_switch.json: {message}")
