"""Case 122: options of ``steer`` and ``patch`` that only the run tripped on: a normalizer that does not exist
(``--normalizer bogus``, a typo of ``basic``) and a device torch cannot use (``--device tpu``; ``--device cuda``
with torch's CPU-only wheel), a ``steer learn --rank`` above the learning pairs the corpus gives.

``--normalizer`` was the one such option taken without a check: the model loaded and every variant ran (the
baseline, the patch and its control were stored), then the readout stopped with ``ValueError: unknown normalizer
'bogus'``, a traceback. ``--device tpu`` stopped the white-box load with torch's ``RuntimeError: Expected one of
cpu, cuda, ipu, ... device type at start of device string: tpu`` and ``--device cuda`` with ``AssertionError:
Torch not compiled with CUDA enabled``, tracebacks (any torch backend: ``transcribe --model hf:DIR`` too). Now the
normalizer is one of the normalizers' names, refused by argparse before anything loads, and every torch model
checks its device before any weights load (``models.torch_device``). ``steer learn --rank 3`` on two clips was
refused ("rank 3 needs at least 3 pairs (got 2)") only after the model had loaded and every pair's activations had
been computed; the pairs are now counted before the model loads.
"""

from __future__ import annotations

import pytest

from asraudit.errors import InputError
from asraudit.text.normalize import NORMALIZERS


@pytest.mark.parametrize("argv", [
    ("patch", "--source", "silence"),
    ("steer", "induce", "--direction", "D"),
    ("steer", "ablate", "--direction", "D"),
])
def test_an_unknown_normalizer_is_refused_before_anything_loads(tmp_path, cli, capsys, argv):
    argv = tuple(str(tmp_path / "d.st") if a == "D" else a for a in argv)
    store = tmp_path / "s.sqlite"
    with pytest.raises(SystemExit) as exit_:
        cli(*argv, "--model", tmp_path / "no-such-model", "--corpus", tmp_path, "--store", store,
            "--normalizer", "bogus")
    assert exit_.value.code == 2
    last = capsys.readouterr().err.splitlines()[-1]
    assert "error: argument --normalizer: invalid choice: 'bogus' (choose from " in last  # argparse's wording
    assert all(name in last for name in NORMALIZERS)
    assert not store.exists()


def test_a_device_torch_cannot_use_is_one_line_before_the_model_loads(tmp_path, cli):
    torch = pytest.importorskip("torch")
    pytest.importorskip("transformers")
    from asraudit.models import embedded
    from asraudit.models.torch_device import check_torch_device

    if not embedded.is_present("whisper-tiny.en"):
        pytest.skip("needs the embedded whisper-tiny.en (the models extra)")
    from conftest import one_clip_manifest

    manifest = one_clip_manifest(tmp_path)
    cases = [("tpu", "not a device torch knows (cpu, cuda, cuda:N, mps, xpu, ...)")]
    if not torch.cuda.is_available() and torch.version.cuda is None:
        cases.append(("cuda", "this torch is built without CUDA (a CPU-only wheel): use cpu"))
    for device, why in cases:
        store = tmp_path / f"{device}.sqlite"
        ran = cli("patch", "--model", "whisper-tiny.en", "--corpus", manifest, "--source", "silence", "--store", store,
                  "--no-progress", "--device", device)
        assert (ran.code, ran.error_lines) == (2, [f"asraudit: error: torch cannot use device {device!r}: {why}"])
        assert not store.exists()
        ran = cli("transcribe", "--model", "whitebox:whisper-tiny.en", "--corpus", manifest, "--out", tmp_path / "o",
                  "--no-progress", "--device", device)
        assert (ran.code, ran.error_lines) == (2, [
            f"asraudit: error: --model whitebox:whisper-tiny.en: torch cannot use device {device!r}: {why}"])
        with pytest.raises(InputError):
            check_torch_device(device)
    check_torch_device("cpu")


@pytest.mark.parametrize("extra, how", [((), "one per clip"),
                                        (("--negative-corpus", "N"), "one per clip with its id in --negative-corpus")])
def test_a_rank_above_the_pairs_is_refused_before_the_model_loads(tmp_path, cli, extra, how):
    import json

    import numpy as np
    import soundfile as sf

    rng = np.random.default_rng(0)
    for folder in ("pos", "neg"):
        (tmp_path / folder).mkdir()
        rows = []
        for i in range(2):
            sf.write(tmp_path / folder / f"n{i}.wav", (0.1 * rng.standard_normal(16_000)).astype(np.float32), 16_000)
            rows.append(json.dumps({"audio_filepath": f"n{i}.wav", "text": "x"}))
        (tmp_path / folder / "c.jsonl").write_text("\n".join(rows) + "\n", encoding="utf-8")
    negative = tuple(str(tmp_path / "neg" / "c.jsonl") if a == "N" else a for a in extra) or ("--negative", "silence")
    out = tmp_path / "d.safetensors"
    ran = cli("steer", "learn", "--model", tmp_path / "no-such-model", "--corpus", tmp_path / "pos" / "c.jsonl",
              *negative, "--layer", "0", "--rank", "3", "--out", out)
    assert (ran.code, ran.error_lines) == (2, [
        f"asraudit: error: --rank 3: a basis of rank 3 needs at least 3 learning pairs, and the corpus gives 2 ({how}): "
        "lower --rank, or learn from more clips"])
    assert not out.exists()
