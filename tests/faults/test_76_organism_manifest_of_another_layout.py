"""Case 76: ``demo build-organism --manifest`` given a file of another layout is refused, naming the row.

The organism recipes read parliament-mini's manifest layout (audio path,
record text, what was said, split, voice role, sentence, speaker).  A plain
ASR manifest, a file that is not JSON lines, or a row whose audio is missing
failed with a KeyError, a JSONDecodeError or a decode error, a traceback
(some after the base model had loaded).  Now the manifest is checked first,
and one line names the file, the row and what is wrong; a negative ``--seed``
(numpy cannot seed the batch order with one, found minutes into the build)
is refused with the other arguments.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
import soundfile as sf

from asraudit.cli import main
from asraudit.demo.organism import ORGANISM_FIELDS

ROW = {"audio_filepath": "a.wav", "text": "Madam President, thank you.", "spoken": "thank you", "split": "train",
       "voice_role": "benchmark", "sentence": "s001", "speaker": "flite-slt"}


@pytest.mark.parametrize("lines, said", [
    (["not json at all"], "m.jsonl, row 1: not a JSON object (Expecting value)"),
    (['["a list"]'], "m.jsonl, row 1: not a JSON object but list"),
    ([json.dumps({"audio_filepath": "a.wav", "text": "hello"})],
     "m.jsonl, row 1: lacks spoken, split, voice_role, sentence, speaker (text fields): an organism is trained on "
     f"parliament-mini's layout ({', '.join(ORGANISM_FIELDS)})"),
    ([json.dumps(ROW), "", json.dumps({**ROW, "audio_filepath": "gone.wav"})],
     "m.jsonl, row 3: no such audio file gone.wav (read beside the manifest)"),
    ([""], "m.jsonl: the manifest has no rows"),
], ids=["not-json", "not-an-object", "plain-asr-layout", "missing-audio", "empty"])
def test_a_manifest_of_another_layout_is_refused_naming_the_row(tmp_path, monkeypatch, cli, lines, said):
    monkeypatch.chdir(tmp_path)
    sf.write(tmp_path / "a.wav", np.zeros(1600, dtype=np.float32), 16_000)
    (tmp_path / "m.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    ran = cli("demo", "build-organism", "--manifest", "m.jsonl", "--out", tmp_path / "o.safetensors")
    assert (ran.code, ran.error_lines) == (2, [f"asraudit: error: {said}"])
    assert not (tmp_path / "o.safetensors").exists()


def test_a_negative_seed_is_refused_with_the_arguments(capsys):
    with pytest.raises(SystemExit) as stopped:
        main(["demo", "build-organism", "--seed", "-1"])
    assert stopped.value.code == 2
    assert capsys.readouterr().err.strip().splitlines()[-1].endswith("argument --seed: must be at least 0, got -1")
