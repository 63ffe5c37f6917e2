"""A corpus in another language: the spec's [corpus] language, and a Spanish audit end to end.

The end-to-end audit speaks four short Spanish sentences with espeak-ng and
gives them references with planted errors (a word the reference leaves out,
a word nobody said) and convention arms ("Sr." for "señor", "21" for
"veintiún").  Three replayed panel models write what was said, one replayed
model echoes the references, and the multilingual embedded Whisper base
really transcribes the audio in Spanish.  The checks are on what must hold
whatever Whisper base makes of synthetic speech: the edits are mined, the
echoing model accepts the reference and the panel does not, the Spanish
catalogue and normalizer are used, and the language is in the provenance.
"""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest

from asraudit.audit.spec import SpecError, parse_spec
from asraudit.cli import main

# (what is said, the benchmark's reference)
CLIPS = [
    ("El señor García habla hoy.", "El Sr. García habla hoy."),  # honorific arm: abbreviated
    ("Tengo veintiún años.", "Tengo 21 años."),  # numeral arm: digits
    ("La casa es muy grande.", "La casa es grande."),  # planted: the reference leaves out "muy"
    # planted: "ahora" was never said; the honorific spelled out, so the references use both arms
    ("La señora Pérez vive en Madrid.", "La señora Pérez vive en Madrid ahora."),
]
REFERENCE_WORDS = 19  # after the Spanish basic normalizer: 5 + 3 + 4 + 7


def _spec(tmp_path, corpus: str = "", top: str = "", conventions: str = "") -> dict:
    preds = tmp_path / "p.jsonl"
    preds.write_text(json.dumps({"audio_filepath": "a.wav", "text": "hola", "pred_text": "hola"}) + "\n",
                     encoding="utf-8")
    text = (f'{top}\n[corpus]\npredictions = "{preds}"\n{corpus}\n[[model]]\npredictions = "{preds}"\n'
            f'[conventions]\n{conventions}\n')
    import tomllib

    return tomllib.loads(text)


def test_the_corpus_language_defaults_to_english_and_picks_catalogue_and_normalizer(tmp_path):
    english = parse_spec(_spec(tmp_path), base=tmp_path)
    assert (english.corpus.language, english.normalizer, english.conventions.language) == ("en", "whisper", "en")
    spanish = parse_spec(_spec(tmp_path, corpus='language = "es"'), base=tmp_path)
    assert (spanish.corpus.language, spanish.normalizer, spanish.conventions.language) == ("es", "basic-es", "es")
    assert spanish.to_json()["corpus"]["language"] == "es"


def test_an_explicit_normalizer_or_catalogue_is_kept_when_it_fits_the_language(tmp_path):
    spec = parse_spec(_spec(tmp_path, corpus='language = "fr"', top='normalizer = "none"',
                            conventions='language = "en"'), base=tmp_path)
    assert (spec.normalizer, spec.conventions.language) == ("none", "en")


@pytest.mark.parametrize("corpus, top, message", [
    ('language = "xx"', "", "[corpus]: language must be one of en, es, fr, de, it, nl, pl, pt, got 'xx'"),
    ('language = "es"', 'normalizer = "whisper"', "normalizer 'whisper' does not fit the corpus language 'es'"),
    ('language = "es"', 'normalizer = "basic-fr"', "normalizer 'basic-fr' does not fit the corpus language 'es'"),
])
def test_a_language_that_cannot_be_served_is_refused_naming_the_field(tmp_path, corpus, top, message):
    with pytest.raises(SpecError, match=message.replace("[", r"\[").replace("]", r"\]")):
        parse_spec(_spec(tmp_path, corpus=corpus, top=top), base=tmp_path)


def test_the_audit_command_exits_2_with_one_line_for_an_unknown_language(tmp_path, capsys):
    spec = tmp_path / "audit.toml"
    preds = tmp_path / "p.jsonl"
    preds.write_text(json.dumps({"audio_filepath": "a.wav", "text": "hola", "pred_text": "hola"}) + "\n",
                     encoding="utf-8")
    spec.write_text(f'[corpus]\npredictions = "{preds}"\nlanguage = "klingon"\n[[model]]\npredictions = "{preds}"\n',
                    encoding="utf-8")
    assert main(["audit", str(spec), "--check"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "language" in err[0] and "klingon" in err[0] and "audit.toml" in err[0]


def test_the_conventions_command_reads_the_language_catalogue(tmp_path, capsys):
    rows = [("a.wav", "El Sr. García habla.", "El señor García habla."), ("b.wav", "Tengo 21 años.", "Tengo 21 años.")]
    preds = tmp_path / "m.jsonl"
    preds.write_text("".join(json.dumps({"audio_filepath": a, "text": r, "pred_text": h}) + "\n" for a, r, h in rows),
                     encoding="utf-8")
    assert main(["conventions", "--preds", str(preds), "--language", "es", "--min-per-arm", "1",
                 "--json", str(tmp_path / "c.json")]) == 0
    out = json.loads((tmp_path / "c.json").read_text(encoding="utf-8"))
    assert "built-in:es" in json.dumps(out)
    with pytest.raises(SystemExit) as exited:  # argparse refuses an unknown choice, naming --language
        main(["conventions", "--preds", str(preds), "--language", "xx"])
    assert exited.value.code == 2 and "--language" in capsys.readouterr().err


# ------------------------------------------------------------------ the Spanish audit, end to end


@pytest.fixture(scope="module")
def spanish_audit(tmp_path_factory):
    pytest.importorskip("ctranslate2")
    if shutil.which("espeak-ng") is None:
        pytest.skip("espeak-ng is not installed (Debian package espeak-ng): no synthetic Spanish speech")
    from asraudit.models.registry import available_models

    if not any(e.name == "whisper-base" and e.present for e in available_models().embedded):
        pytest.skip("the embedded multilingual whisper-base is not installed")
    tmp = tmp_path_factory.mktemp("audit_es")
    manifest, files = [], {"panel1": [], "panel2": [], "panel3": [], "echo": []}
    for i, (said, ref) in enumerate(CLIPS):
        wav = tmp / f"es{i}.wav"
        subprocess.run(["espeak-ng", "-v", "es", "-s", "150", "-w", str(wav), said], check=True,
                       capture_output=True, timeout=60)
        manifest.append({"audio_filepath": str(wav), "text": ref})
        readings = {"panel1": said, "panel2": said.replace("señor García", "Sr. García").replace("veintiún", "21"),
                    "panel3": said.replace("veintiún", "21"), "echo": ref}
        for name, text in readings.items():
            files[name].append({"audio_filepath": str(wav), "text": ref, "pred_text": text})
    for name, rows in {"manifest": manifest, **files}.items():
        (tmp / f"{name}.jsonl").write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows),
                                           encoding="utf-8")
    models = "".join(f'[[model]]\npredictions = "{tmp / f"{n}.jsonl"}"\nname = "{n}"\npanel = true\n\n'
                     for n in ("panel1", "panel2", "panel3"))
    spec = tmp / "audit.toml"
    spec.write_text(
        f'name = "spanish"\nout = "{tmp / "out"}"\nbootstrap = 50\n'
        f'[corpus]\nmanifest = "{tmp / "manifest.jsonl"}"\nlanguage = "es"\n\n{models}'
        f'[[model]]\npredictions = "{tmp / "echo.jsonl"}"\nname = "echo"\n\n'
        '[[model]]\nspec = "whisper-base"\nname = "base"\noptions = { language = "es", beam_size = 1 }\n\n'
        '[conventions]\nmin_per_arm = 1\n', encoding="utf-8")
    assert main(["audit", str(spec), "--no-progress"]) == 0
    return json.loads((tmp / "out" / "summary.json").read_text(encoding="utf-8"))


def test_the_spanish_audit_mines_the_planted_errors_and_flags_the_echo(spanish_audit):
    s = spanish_audit
    assert s["mining"]["edits"] == 2  # "muy" left out of the reference, "ahora" never said
    models = s["models"]
    assert models["echo"]["accept_ref"] == 1.0
    # Whisper base really heard the audio: it is judged at least once (eligible), with a verdict of its own
    assert models["base"]["n_eligible"] >= 1 and models["base"]["accept_ref"] is not None
    # WER against the references, normalized by basic-es: the echo is perfect; panel1 pays for the two
    # planted errors and its two spelled-out arms, panel2 (the references' arms) for the errors only
    assert models["echo"]["wer"] == 0.0
    assert models["panel1"]["wer"] == pytest.approx(4 / REFERENCE_WORDS, rel=1e-12)  # exact ratio of counts
    assert models["panel2"]["wer"] == pytest.approx(2 / REFERENCE_WORDS, rel=1e-12)
    assert 0.0 <= models["base"]["wer"] <= 2.0  # real Spanish transcription of synthetic speech: a number, finite


def test_the_spanish_audit_uses_the_spanish_catalogue_and_normalizer_and_records_the_language(spanish_audit):
    prov = spanish_audit["provenance"]
    assert prov["corpus"]["language"] == "es" and prov["spec"]["corpus"]["language"] == "es"
    assert prov["normalizer"] == "basic-es"
    rows = spanish_audit["conventions"]["switch"]
    echo = {r["group"]: r for r in rows if r["model"] == "echo"}
    # the references write "Sr." once and "señora" once; the echo writes the reference's arm every time
    assert echo["honorific"]["measurable"] and echo["honorific"]["s"] == 1.0


def test_the_spanish_summary_satisfies_the_published_schema(spanish_audit):
    jsonschema = pytest.importorskip("jsonschema")
    from asraudit.report.schema import summary_schema

    jsonschema.validate(spanish_audit, summary_schema())


def test_summaries_written_before_the_language_field_still_read_as_english():
    from asraudit.report.schema import summary_schema

    corpus = summary_schema()["$defs"]["CorpusInfo"]
    assert "language" in corpus["properties"] and "language" not in corpus["required"]
