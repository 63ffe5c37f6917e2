"""Case 240: a convention family whose arms name its pool's (or its generator's) arms in another order.

Pooled switch rates add the families of a pool arm by arm position.  A user's
family joining the built-in ``honorific`` pool (abbreviated, spelled out) with
``arms = ["spelled out", "abbreviated"]`` had its spelled-out clips pooled as
the pool's abbreviated ones: a model that abbreviates always (its switch rate
0 on each family) was printed at 0.500 on the pool, chance, exit 0.  A
generator's arms come in its own order (cardinal: digits, words), so
``arms = ["words", "digits"]`` labelled every "21" words.  Both are refused
when the catalogue is read; other names (a renamed arm) are fine as before.
"""

from __future__ import annotations

import json

import pytest

from asraudit.errors import InputError
from asraudit.probes.families import load_catalogue

SENATOR = ('[[family]]\nname = "senator"\nclass = "honorific"\npool = "honorific"\narms = {arms}\n'
           'forms = [["Senator", "Sen."]]\n')


def predictions(folder):
    rows = []
    for i in range(6):  # a model that abbreviates always
        rows += [(f"a{i}", "Mr Smith spoke", "Mr Smith spoke"), (f"b{i}", "Mister Smith spoke", "Mr Smith spoke"),
                 (f"c{i}", "Senator Jones spoke", "Sen. Jones spoke"), (f"d{i}", "Sen. Jones spoke", "Sen. Jones spoke")]
    path = folder / "h.jsonl"
    path.write_text("".join(json.dumps({"audio_filepath": a, "text": t, "pred_text": p}) + "\n" for a, t, p in rows),
                    encoding="utf-8")
    return path


def test_a_family_pooled_in_another_order_is_refused(tmp_path, cli):
    family = tmp_path / "senator.toml"
    family.write_text(SENATOR.format(arms='["spelled out", "abbreviated"]'), encoding="utf-8")
    ran = cli("conventions", "--preds", predictions(tmp_path), "--families", "en", "--families", family, "--pool",
              "--json", tmp_path / "c.json")
    assert (ran.code, ran.error_lines) == (2, [
        f"asraudit: error: {family}: family 'senator' has arms ['spelled out', 'abbreviated'], the arms of pool "
        "'honorific' (abbreviated, spelled out) in another order: pooling is by arm position, so its 'spelled out' "
        "clips would be pooled as the pool's 'abbreviated': list the family's arms in the pool's order"])
    assert not (tmp_path / "c.json").exists()
    # the family's own names, its arms in the pool's order
    family.write_text(SENATOR.format(arms='["Sen", "Senator"]').replace('["Senator", "Sen."]', '["Sen.", "Senator"]'),
                      encoding="utf-8")
    ran = cli("conventions", "--preds", predictions(tmp_path), "--families", "en", "--families", family, "--pool",
              "--json", tmp_path / "c.json")
    assert ran.code == 0, ran.err
    pooled = json.loads((tmp_path / "c.json").read_text())["pooled_switch"]["honorific"]["h"]
    assert pooled["switch"] == 0.0  # a fixed habit: 0, not the 0.5 the misplaced arms made of it


@pytest.mark.parametrize("generator, arms, said", [
    ("cardinal", '["words", "digits"]', "it makes digits, words, in that order, so its digits renderings would be "
                                        "labelled 'words'"),
    ("initialism", '["Solid", "dotted", "spaced"]', "it makes dotted, spaced, solid, in that order, so its dotted "
                                                    "renderings would be labelled 'Solid'"),
])
def test_a_generators_arms_in_another_order_are_refused(tmp_path, generator, arms, said):
    extra = 'range = [1, 99]\n' if generator == "cardinal" else 'letters = ["BBC"]\n'
    path = tmp_path / "f.toml"
    path.write_text(f'[[family]]\nname = "g"\nclass = "number"\ngenerate = "{generator}"\narms = {arms}\n{extra}',
                    encoding="utf-8")
    with pytest.raises(InputError) as err:
        load_catalogue(path)
    assert str(err.value) == (f"{path}: family #1 ('g'): arms {arms.replace(chr(34), chr(39))} name the arms of "
                              f"generator '{generator}' in another order: {said}: give them in the generator's order "
                              "(other names are fine)")
    path.write_text(path.read_text().replace(arms, '["cifras", "palabras"]' if generator == "cardinal"
                                             else '["con puntos", "espaciada", "junta"]'), encoding="utf-8")
    assert load_catalogue(path).families[0].name == "g"  # renamed arms in the generator's order
