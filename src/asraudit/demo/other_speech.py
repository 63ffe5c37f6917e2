"""Other speech for the battery's control splice, shipped with the demo.

The paired splice compares a clip followed by the benchmark's own audio with
the same clip followed by *other* speech.  Synthesizing the other speech at
run time (``tts:espeak-ng``) needs espeak-ng installed; the demo must run on
a machine without it, so these few neutral sentences (everyday register, far
from a parliament's) are synthesized once by ``asraudit demo build-benchmark``
and committed as a small corpus (``other_speech/``), which the demo battery
uses as ``donor = "corpus:other_speech/manifest.jsonl"``.
"""

from __future__ import annotations

import json
from pathlib import Path

from asraudit.audio.conditions import synthesize
from asraudit.audio.constants import SAMPLE_RATE
from asraudit.audio.encode import write_opus
from asraudit.probes.battery_donors import TTS_DONOR_SENTENCES

OTHER_SPEECH_DIR = Path(__file__).parent / "data" / "other_speech"
ENGINE = "espeak-ng"


def build_other_speech(out_dir: Path = OTHER_SPEECH_DIR) -> Path:
    """Synthesize every neutral sentence with espeak-ng; write Opus clips and manifest.jsonl."""
    audio_dir = out_dir / "audio"
    audio_dir.mkdir(parents=True, exist_ok=True)
    rows = []
    for i, sentence in enumerate(TTS_DONOR_SENTENCES):
        path = audio_dir / f"other{i:02d}.ogg"
        audio = synthesize(sentence, ENGINE)
        write_opus(audio, path)
        rows.append({"audio_filepath": f"audio/{path.name}", "text": sentence,
                     "duration": round(len(audio) / SAMPLE_RATE, 2), "speaker": ENGINE})
    manifest = out_dir / "manifest.jsonl"
    manifest.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return manifest
