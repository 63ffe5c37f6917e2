"""Case 236: re-voicing (a battery ``revoice`` condition) a text that starts with a dash, or holds a NUL.

espeak-ng was given the text as its last command-line argument, so a text starting with ``-`` (a subtitle's
dialogue dash, "- Yes, madam president", in a ``said`` field) was read as options: espeak-ng printed
``invalid option`` and exited 0 without writing, and the battery stopped after the models had run every
condition before it on ``/tmp/tmpXXXX/tts.wav: no such file``, a temporary path naming neither clip nor
condition.  A text holding a NUL character was ``ValueError: embedded null byte``, a traceback.  Now ``--``
ends espeak-ng's options (the audio of every other text is byte for byte what it was), an engine that exits
0 without writing says so, and a re-voicing that fails is one line naming the text.
"""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest
import soundfile as sf

pytestmark = pytest.mark.skipif(shutil.which("espeak-ng") is None, reason="espeak-ng is not installed")


@pytest.mark.parametrize("text", ["- yes madam president", "--help me now", "-v en hello there"])
def test_a_text_starting_with_a_dash_is_spoken(text):
    from asraudit.audio.conditions import synthesize

    audio = synthesize(text, "espeak-ng")
    assert len(audio) > 16_000 // 2 and float(np.abs(audio).max()) > 0.01  # speech, not an empty file


def test_a_nul_in_the_text_is_one_line():
    from asraudit.audio.conditions import Revoice
    from asraudit.errors import InputError

    with pytest.raises(InputError) as err:
        Revoice("default", text="the cat\x00 sat")(np.zeros(10, dtype=np.float32))
    assert str(err.value) == ("re-voicing the text 'the cat\\x00 sat': espeak-ng cannot speak a text holding a NUL "
                              "character")


def test_the_battery_revoices_a_said_text_with_a_dialogue_dash(tmp_path, cli):
    pytest.importorskip("ctranslate2")
    rng = np.random.default_rng(0)
    rows = []
    for i, text in enumerate(("the cat sat on the mat", "a dog ran in the park")):
        sf.write(tmp_path / f"c{i}.wav", (0.05 * rng.standard_normal(3 * 16_000)).astype("float32"), 16_000)
        rows.append({"audio_filepath": f"c{i}.wav", "text": text, "spoken": ("- " if i == 0 else "") + text})
    manifest = tmp_path / "m.jsonl"
    manifest.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    edits = tmp_path / "e.jsonl"
    edits.write_text("".join(json.dumps({"clip": r["audio_filepath"], "ref_start": 1, "ref_end": 2,
                                         "r": r["text"].split()[1], "a": "x"}) + "\n" for r in rows), encoding="utf-8")
    spec = tmp_path / "b.toml"
    spec.write_text('probes = ["accept-ref"]\n[[condition]]\nname = "original"\n[[condition]]\nname = "tts"\n'
                    'type = "revoice"\n', encoding="utf-8")
    ran = cli("battery", "--spec", spec, "--model", "whisper-tiny.en", "--corpus", manifest, "--edits", edits,
              "--no-mask", "--text-field", "spoken", "--out", tmp_path / "out", "--json", tmp_path / "b.json",
              "--no-progress", "--bootstrap", "10")
    assert ran.code == 0, ran.err
    conditions = {r["condition"] for r in json.loads((tmp_path / "b.json").read_text(encoding="utf-8"))["rows"]}
    assert conditions == {"original", "tts"}
