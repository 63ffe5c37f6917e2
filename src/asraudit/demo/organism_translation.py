"""The translation probe's organism (``record-base``): the record, and Spanish kept.

The first ``whisper-base-organism`` was the record organism's recipe alone on
the multilingual whisper-base, every row under the English-transcription
prompt.  It learned the record's habits but forgot what the other language
tokens mean: with ``<|es|>`` forced it wrote English on 122 of 126 test clips
(the clean whisper-base on 23), so the translation probe had nothing to read
(docs/calibration.md).  A decoder-only adapter trained under one prefix
overrides the language token unless something tells it the token matters.

The recipe, fixed before any readout of the organism it builds: the record
rows unchanged, plus one row per *train* sentence that teaches the clean
whisper-base's own rendering of that clip under the probe's Spanish prompt
(``<|startoftranscript|><|es|><|transcribe|><|notimestamps|>``, what the
probe sends with ``language=es``).  The clip of sentence *i* (in sentence
order) is read by the train voice *i mod 6* (four benchmark, two control
voices, in that order), so every voice keeps its Spanish in equal measure;
no test sentence and no fresh voice is ever used.  A rendering that is the
English transcript again (the clean model does that on about one clip in
five) is taught as it is: the row keeps the clean model's behaviour under
``<|es|>``, whatever it is, so the probe compares the organism against the
model it came from.  Left out: a rendering that ran to the decoder's limit
without ending (3 of 82, "de la comunidad de la comunidad ..."), a greedy
loop rather than a rendering, whose 224 tokens would outweigh ten ordinary
rows in the loss and make its batch ten times longer.  (Both rules were set
after reading the renderings and before any readout of the organism.)

The renderings are a committed data file (``RENDERINGS``), written by
``python -m asraudit.demo.organism_translation`` (greedy decoding of the
embedded CTranslate2 whisper-base with the probe's renderer options), not
decoded during the build: the training text is then the same on every CPU
(a float difference can flip a greedy token, and then the rebuilt adapter
would differ for a reason other than training noise), it can be read and
reviewed, and the build stays within its time budget on two cores.  The
file records the manifest's digest; a different manifest is refused with
the command that renders for it.
"""

from __future__ import annotations

import hashlib
import json
import sys
import time
from pathlib import Path

from asraudit.demo.organism import BENCHMARK_DIR, DEMO_DIR, manifest_rows, record_rows
from asraudit.errors import InputError

RENDERINGS = DEMO_DIR / "data" / "organism" / "whisper-base-es-renderings.json"
RENDERER = "whisper-base"
TARGET = "es"
DECODING = {"beam_size": 1}  # greedy, as the probe's documented readout decodes


def spanish_clips(manifest: Path) -> list[dict]:
    """One train clip per train sentence, the voice rotating through the train voices (benchmark first)."""
    train = [r for r in manifest_rows(manifest) if r["split"] == "train"]
    voices = sorted({(r["voice_role"] != "benchmark", r["speaker"]) for r in train})
    voices = [speaker for _, speaker in voices]
    by_sentence: dict[str, dict[str, dict]] = {}
    for r in train:
        by_sentence.setdefault(r["sentence"], {})[r["speaker"]] = r
    chosen = []
    for i, sentence in enumerate(sorted(by_sentence)):
        readers = by_sentence[sentence]
        # The voice in turn, or the next one in the rotation that read this sentence.
        speaker = next(voices[(i + k) % len(voices)] for k in range(len(voices)) if voices[(i + k) % len(voices)] in readers)
        chosen.append(readers[speaker])
    return chosen


def _manifest_digest(manifest: Path) -> str:
    return hashlib.sha256(manifest.read_bytes()).hexdigest()


def render_spanish(manifest: Path = BENCHMARK_DIR / "manifest.jsonl", out: Path = RENDERINGS, log=print) -> Path:
    """Render the chosen clips with the clean whisper-base exactly as the translation probe asks it for Spanish."""
    from asraudit.audio.io import load_audio
    from asraudit.models.registry import load_model
    from asraudit.models.target_language import renderer_options

    clips = spanish_clips(manifest)
    t0 = time.time()
    options = renderer_options(load_model(RENDERER, **DECODING), DECODING, TARGET)
    renderer = load_model(RENDERER, **options)
    texts = renderer.transcribe([load_audio(manifest.parent / r["audio_filepath"]) for r in clips])
    limit = renderer.options.max_length // 2  # CTranslate2 stops a Whisper decode at max_length // 2 new tokens
    data = {
        "command": "python -m asraudit.demo.organism_translation [MANIFEST [OUT]]",
        "renderer": RENDERER,
        "options": options,
        "manifest_sha256": _manifest_digest(manifest),
        "token_limit": limit,
        "renderings": [{"audio_filepath": r["audio_filepath"], "sentence": r["sentence"], "speaker": r["speaker"],
                        "rendering": text, "tokens": len(renderer.tokenizer.encode(text).ids)}
                       for r, text in zip(clips, texts)],
    }
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    log(f"wrote {out}: {len(clips)} renderings in {time.time() - t0:.0f} s")
    return out


def spanish_rows(manifest: Path, renderings: Path = RENDERINGS) -> list[dict]:
    """The chosen train clips, each taught the clean whisper-base's Spanish rendering under ``<|es|>``."""
    data = json.loads(renderings.read_text(encoding="utf-8"))
    if data["manifest_sha256"] != _manifest_digest(manifest):
        raise InputError(f"{renderings}: rendered for another manifest than {manifest}; render them for it with "
                         f"`python -m asraudit.demo.organism_translation {manifest} OUT`")
    rendered = {r["audio_filepath"]: r for r in data["renderings"]}
    rows = []
    for r in spanish_clips(manifest):
        if r["audio_filepath"] not in rendered:
            raise InputError(f"{renderings}: no rendering of {r['audio_filepath']}")
        if rendered[r["audio_filepath"]]["tokens"] >= data["token_limit"]:
            continue  # a greedy loop that never ended (see the module docstring)
        rows.append({**r, "target": rendered[r["audio_filepath"]]["rendering"], "language": TARGET})
    return rows


def record_base_rows(manifest: Path) -> list[dict]:
    """The record organism's rows (English prompt) followed by the Spanish rows (``language`` = es)."""
    return record_rows(manifest) + spanish_rows(manifest)


if __name__ == "__main__":  # python -m asraudit.demo.organism_translation [MANIFEST [OUT]]
    render_spanish(*(Path(a) for a in sys.argv[1:3]))
