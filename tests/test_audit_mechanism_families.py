"""Whole audits with [[mechanism]] entries on tiny non-Whisper models: one of each kind.

Each test writes a corpus of tones (a manifest with ``band`` and ``pair``
fields), a panel of three prediction files and an audit spec, and runs
`asraudit audit` on it: the same pipeline the demo's audit runs.  The
corpus plants a benchmark error: a high tone's reference says "low", and
the panel writes "high" (what was played), so every high clip carries a
mined edit on which a model that writes "low" follows the reference.

* encoder-decoder: the tiny trained Moonshine (conftest.py) with an
  encoder-site direction (low tones minus high tones) induced on held-out
  high tones, and a decoder-site model contrast (a copy whose decoder says
  "low" for every tone, minus the clean model) added to the clean model;
* speech LLM: a tiny Qwen2-Audio trained the same way
  (``speech_llm_fixtures.trained_qwen2_audio``), at the encoder site and,
  with a copy whose language model alone learned to say "low", at the
  decoder site (the LM's last block);
* transducer: a tiny Parakeet TDT trained the same way (transformers'
  ``ParakeetForTDT`` computes the TDT loss; ``transducer_tiny.py``) on gated
  tones, at the encoder site and, with a copy whose prediction network alone
  learned to say "low", at the decoder site (the prediction network's output).

What is checked: the mechanism stage finishes and its rows land in
summary.json, which satisfies the published schema; the learned direction
flips the held-out high tones to "low" (accept-ref rises to the reference's
reading) while the random direction of the same norm flips at most a stated
few.  (On random weights this could not be checked on transcripts: any push
scrambles a random model's greedy answer; hence the tiny trained models.)
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")
sf = pytest.importorskip("soundfile")
jsonschema = pytest.importorskip("jsonschema")

import encdec_tiny  # noqa: E402
from asraudit.cli import main  # noqa: E402
from asraudit.report.schema import summary_schema  # noqa: E402

PAIRS = 16  # pair groups; holdout 0.5 learns from 8 and reads out on the other 8
PANEL = ("panel-a", "panel-b", "panel-c")
LEARNED_AT_LEAST = 7  # of the 8 held-out high tones turned to "low" (seen: 8 of 8 on both trained models)
RANDOM_AT_MOST = 1    # for the random control of equal norm (seen: 0 of 8)


def steady_tone(rng, band: str) -> np.ndarray:
    return encdec_tiny.tone(rng, *(encdec_tiny.LOW if band == "low" else encdec_tiny.HIGH))


def write_corpus(folder: Path, make=steady_tone) -> Path:
    """Low and high tones (``make(rng, band)``), one of each per pair; a high tone's reference says "low"
    (the planted error)."""
    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(0)
    rows, said = [], {}
    for i in range(PAIRS):
        for band in ("low", "high"):
            name = f"{band}-{i:02d}.wav"
            sf.write(folder / name, make(rng, band), 16000, subtype="FLOAT")
            rows.append({"audio_filepath": name, "text": "low", "band": band, "pair": f"p{i:02d}"})
            said[name] = band
    manifest = folder / "tones.jsonl"
    manifest.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    for member in PANEL:  # the panel writes what was played
        (folder / f"{member}.jsonl").write_text("".join(
            json.dumps({"audio_filepath": r["audio_filepath"], "text": r["text"], "pred_text": said[r["audio_filepath"]]})
            + "\n" for r in rows), encoding="utf-8")
    return manifest


def encoder_entry(name: str, model: Path, layer: int, alpha: float = 1.0, frames: str = "audio") -> dict:
    return {"type": "steer", "name": name, "model": str(model), "layer": layer, "frames": frames,
            "positive": {"field": "band", "value": "low"}, "negative": {"field": "band", "value": "high"},
            "pair_by": "pair", "induce": {"field": "band", "value": "high"}, "alphas": [alpha]}


def run_audit(folder: Path, entries: list[dict], make=steady_tone) -> dict:
    """`asraudit audit` on the tones with these [[mechanism]] entries; summary.json, checked against the schema."""
    manifest = write_corpus(folder / "corpus", make)
    spec = {
        "name": "tones", "out": str(folder / "out"), "bootstrap": 100,
        "corpus": {"manifest": str(manifest)},
        # One-word transcripts: a model matching none of the reference (the panel on a high tone) still counts.
        "refdis": {"min_ref_match": 0.0},
        "model": [{"predictions": str(folder / "corpus" / f"{m}.jsonl"), "name": m, "panel": True} for m in PANEL],
        "mechanism": entries,
    }
    toml = folder / "audit.toml"
    toml.write_text(_toml(spec), encoding="utf-8")
    assert main(["audit", str(toml), "--no-progress"]) == 0
    summary = json.loads((folder / "out" / "summary.json").read_text(encoding="utf-8"))
    jsonschema.validate(summary, summary_schema())
    return summary


def _toml(spec: dict) -> str:
    """The spec as TOML (the format users write), for the few value types it holds."""
    def value(v):
        if isinstance(v, dict):
            return "{ " + ", ".join(f"{k} = {value(x)}" for k, x in v.items()) + " }"
        if isinstance(v, list):
            return "[" + ", ".join(value(x) for x in v) + "]"
        if isinstance(v, bool):
            return "true" if v else "false"
        return json.dumps(v)

    lines = [f"{k} = {value(v)}" for k, v in spec.items() if not isinstance(v, (dict, list))]
    for table in ("corpus", "refdis"):
        lines += [f"[{table}]"] + [f"{k} = {value(v)}" for k, v in spec[table].items()]
    for table in ("model", "mechanism"):
        for entry in spec[table]:
            lines += [f"[[{table}]]"] + [f"{k} = {value(v)}" for k, v in entry.items()]
    return "\n".join(lines) + "\n"


def rows_of(summary: dict, experiment: str) -> dict[str, dict]:
    rows = {r["intervention"]: r for r in summary["mechanism"] if r["experiment"] == experiment}
    assert rows, f"no rows for {experiment!r}: {sorted({r['experiment'] for r in summary['mechanism']})}"
    return rows


def check_learned_against_random(rows: dict[str, dict], alpha: str = "1") -> None:
    base, learned, control = rows["baseline"], rows[f"add a={alpha}"], rows[f"random a={alpha}"]
    assert base["clips"] == learned["clips"] == PAIRS // 2
    assert base["value"] == 0.0  # the model writes what was played on every judged edit
    assert learned["changed"] >= LEARNED_AT_LEAST and control["changed"] <= RANDOM_AT_MOST
    # The flips are towards the reference: accept-ref on the planted edits rises, the control's does not.
    assert learned["to_ref"] >= LEARNED_AT_LEAST and learned["value"] >= LEARNED_AT_LEAST / learned["n_eligible"]
    assert control["to_ref"] <= RANDOM_AT_MOST and control["control_of"] == f"add a={alpha}"


def decoder_entry(name: str, organism: Path, clean: Path, layer: int, positions: str) -> dict:
    """The organism's decoder minus the clean one's, learned on high tones (forced with their reference "low"),
    added to the clean model on held-out high tones."""
    return {"type": "steer", "name": name, "site": "decoder", "model": str(organism), "contrast": str(clean),
            "layer": layer, "positions": positions, "positive": {"field": "band", "value": "high"}, "pair_by": "pair",
            "induce": {"field": "band", "value": "high"}, "alphas": [1.0], "apply_to": [str(clean)],
            "induce_model": False}


def test_an_encoder_decoder_audit_steers_moonshine_at_both_sites(trained_moonshine, moonshine_organism, tmp_path):
    decoder = decoder_entry("organism", moonshine_organism, trained_moonshine, 1, "each:3")
    summary = run_audit(tmp_path, [encoder_entry("tone", trained_moonshine, -1), decoder])
    encoder_rows = rows_of(summary, f"tone: induce in {trained_moonshine}")
    check_learned_against_random(encoder_rows)
    assert {r["site"] for r in encoder_rows.values()} == {"encoder"}
    decoder_rows = rows_of(summary, f"organism: induce in {trained_moonshine}")
    check_learned_against_random(decoder_rows)
    assert {r["site"] for r in decoder_rows.values()} == {"decoder"}
    assert decoder_rows["add a=1"]["direction"].startswith("pdir-")


def test_a_speech_llm_audit_steers_qwen2_audio_at_both_sites(trained_qwen2_audio_folder, qwen2_audio_organism,
                                                             tmp_path):
    """Encoder site: the audio encoder's last block.  Decoder site: the LM's last block (at its first block
    the contrast of an LM-only fine-tune turned no clip: seen "how" for "high", the first token unmoved)."""
    model = trained_qwen2_audio_folder
    decoder = decoder_entry("organism", qwen2_audio_organism, model, 1, "each:2")
    summary = run_audit(tmp_path, [encoder_entry("tone", model, -1), decoder])
    rows = rows_of(summary, f"tone: induce in {model}")
    check_learned_against_random(rows)
    assert {r["model"] for r in rows.values()} == {str(model)}
    decoder_rows = rows_of(summary, f"organism: induce in {model}")
    check_learned_against_random(decoder_rows)
    assert {r["site"] for r in decoder_rows.values()} == {"decoder"}


def test_a_transducer_audit_steers_parakeet_tdt(trained_parakeet_tdt_folder, tmp_path):
    """The tones are gated (``transducer_tiny.gated_tone``: Parakeet's per-bin feature normalisation erases a
    steady tone), so the direction is learned and added over the tone's quarter second at the first conformer
    block, at alpha 2.  Seen there (10 held-out tones, two learning sets): 9-10 turned to "low" for alpha
    1.75-2.25 and 0 for random controls; alpha 1.5 turned 3-4 (the rest "how"), 2.5 turned 1-2 (the rest
    "ow"), 3 and more overshot ("w"); the last block moved none at any alpha."""
    from transducer_tiny import gated_tone

    model = trained_parakeet_tdt_folder
    entry = encoder_entry("tone", model, 0, frames="0.0-0.25")
    # The window of alphas that turns the tones is narrow, and where it lies depends on the trained weights,
    # which carry each CPU's float rounding: the best of three alphas inside the window seen here must pass,
    # and every random control of equal norm must stay at most RANDOM_AT_MOST.
    alphas = ["1.75", "2", "2.25"]
    entry["alphas"] = [float(a) for a in alphas]
    summary = run_audit(tmp_path, [entry], make=gated_tone)
    rows = rows_of(summary, f"tone: induce in {model}")
    assert all(rows[f"random a={a}"]["changed"] <= RANDOM_AT_MOST for a in alphas)
    check_learned_against_random(rows, alpha=max(alphas, key=lambda a: rows[f"add a={a}"]["changed"]))
    assert all(r["site"] == "encoder" and r["layer"] == 0 for r in rows.values())
    cached = list((tmp_path / "out" / "mechanism").glob("tone-*.safetensors"))
    assert len(cached) == 1


def test_a_transducer_audit_steers_parakeet_tdt_at_the_decoder(trained_parakeet_tdt_folder, parakeet_tdt_organism,
                                                               tmp_path):
    """The contrast of a prediction-network-only fine-tune, one direction per label position (``each:5``:
    the start symbol, then after each of "low"'s four labels "▁", "l", "o", "w", the last deciding the end).
    Seen (8 held-out high tones): each:5 turned 8 to "low" and random controls none; each:4 wrote "lowh"
    (the end undecided), each:2 "ligh", one vector shared by every position ("all") scrambled ("how", "hog")."""
    from transducer_tiny import gated_tone

    model = trained_parakeet_tdt_folder
    summary = run_audit(tmp_path, [decoder_entry("organism", parakeet_tdt_organism, model, 0, "each:5")],
                        make=gated_tone)
    rows = rows_of(summary, f"organism: induce in {model}")
    check_learned_against_random(rows)
    assert {r["site"] for r in rows.values()} == {"decoder"} and rows["add a=1"]["direction"].startswith("pdir-")
