"""Case 238: a battery ``truncate`` condition whose window reaches past the clip by more than a float holds.

``before`` and ``after`` are seconds around the masked target, checked finite and at least 0; a value meant as
"everything before" (``before = 1e308``) passed, and the window's first sample, ``(t0 - before) * 16000``, is
``-inf`` in float64: ``OverflowError: cannot convert float infinity to integer``, a traceback once the battery
reached the condition, after the models had run every condition before it.  The window is now clamped to the
clip before it is rounded, so any finite value keeps the clip's start (or end), as 1e6 already did.
"""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest

from asraudit.audio.conditions import Truncate


@pytest.mark.parametrize("before, after, kept", [(1e308, 0.5, (0, 30_400)), (0.5, 1e308, (8_000, 48_000)),
                                                 (1e308, 1e308, (0, 48_000)), (1e6, 1e6, (0, 48_000))])
def test_a_window_past_the_clip_keeps_its_ends(before, after, kept):
    audio = np.arange(48_000, dtype=np.float32)
    cut = Truncate(1.0, 1.4, before, after)
    assert cut.sample_range(len(audio)) == kept
    assert np.array_equal(cut(audio), audio[kept[0]:kept[1]])
    assert cut.time_map(1.0) == 1.0 - kept[0] / 16_000


def test_the_battery_runs_the_condition(tmp_path, cli):
    pytest.importorskip("ctranslate2")
    from asraudit.demo.organism import BENCHMARK_DIR

    rows = []
    for line in (BENCHMARK_DIR / "test.jsonl").read_text(encoding="utf-8").splitlines():
        r = json.loads(line)
        if r["sentence"] in ("s001", "s013") and r["speaker"] == "flite-slt":
            shutil.copy(BENCHMARK_DIR / r["audio_filepath"], tmp_path / f"{r['sentence']}.wav")
            rows.append({**r, "audio_filepath": f"{r['sentence']}.wav"})
    (tmp_path / "m.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    spec = tmp_path / "b.toml"
    spec.write_text('probes = ["recovery"]\n[[condition]]\nname = "original"\n[[condition]]\nname = "tr"\n'
                    'type = "truncate"\nbefore = 1e308\n', encoding="utf-8")
    ran = cli("battery", "--spec", spec, "--model", "whisper-tiny.en", "--corpus", tmp_path / "m.jsonl",
              "--targets", "listed", "--words", "report,money", "--align", "whisper-tiny.en",
              "--out", tmp_path / "out", "--json", tmp_path / "b.json", "--no-progress", "--bootstrap", "10")
    assert ran.code == 0, ran.err
    n = {r["condition"]: r["value"]["n"] for r in json.loads((tmp_path / "b.json").read_text(encoding="utf-8"))["rows"]}
    assert n == {"original": 2, "tr": 2}
