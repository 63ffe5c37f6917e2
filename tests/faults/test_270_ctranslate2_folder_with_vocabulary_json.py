"""Case 270: a CTranslate2 Whisper folder whose vocabulary is ``vocabulary.json`` (a JSON list of the tokens).

CTranslate2's own converters write ``vocabulary.json`` since its 3.x releases, and that is what the faster-whisper
conversions on the hub hold; CTranslate2 reads either file, and ``--model ct2:DIR`` transcribed such a folder.
``asraudit whitebox convert DIR`` (and ``--model whitebox:DIR`` in ``steer``, ``patch`` and an audit's mechanism
entries) refused it: ``not a CTranslate2 Whisper model directory (missing vocabulary.txt)``, a reason that is not
so.  The converter reads only the weights, config and tokenizer, and the vocabulary file names the conversion's
identity, so either file now does; a folder with neither is still refused, naming both.
"""

from __future__ import annotations

import json

import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")


def _json_vocabulary_folder(folder):
    """A copy of the embedded tiny.en whose vocabulary.txt is written as CTranslate2 3.x writes vocabulary.json."""
    from asraudit.models import embedded

    source = embedded.locate("whisper-tiny.en")
    folder.mkdir()
    for name in ("config.json", "model.bin", "tokenizer.json"):
        (folder / name).symlink_to(source / name)
    tokens = (source / "vocabulary.txt").read_text(encoding="utf-8").split("\n")
    tokens = tokens[:-1] if tokens[-1] == "" else tokens
    (folder / "vocabulary.json").write_text(json.dumps(tokens, ensure_ascii=False), encoding="utf-8")
    return folder


def test_a_folder_with_vocabulary_json_converts_and_transcribes_as_the_ct2_backend_does(tmp_path, cli):
    import numpy as np
    import soundfile as sf

    from asraudit.demo.organism import BENCHMARK_DIR
    from asraudit.models.registry import load_model
    from asraudit.models.whitebox.sources import folder_slot

    folder = _json_vocabulary_folder(tmp_path / "tiny-json")
    ran = cli("whitebox", "convert", folder, "--cache", tmp_path / "cache")
    assert ran.code == 0, ran.err
    converted = tmp_path / "cache" / "whitebox" / folder_slot("tiny-json", folder)
    assert ran.out.splitlines()[0] == f"converted tiny-json -> {converted}"
    row = json.loads((BENCHMARK_DIR / "test.jsonl").read_text(encoding="utf-8").splitlines()[0])
    audio, rate = sf.read(BENCHMARK_DIR / row["audio_filepath"], dtype="float32")
    assert rate == 16_000
    whitebox = load_model(f"whitebox:{converted}")
    ct2 = load_model(f"ct2:{folder}")
    said_whitebox, said_ct2 = whitebox.transcribe([np.asarray(audio)])[0], ct2.transcribe([np.asarray(audio)])[0]
    assert said_whitebox.split() == said_ct2.split() and len(said_ct2.split()) > 3


def test_a_folder_with_neither_vocabulary_is_refused_naming_both(tmp_path, cli):
    folder = _json_vocabulary_folder(tmp_path / "tiny-none")
    (folder / "vocabulary.json").unlink()
    ran = cli("whitebox", "convert", folder, "--cache", tmp_path / "cache")
    assert (ran.code, ran.error_lines) == (2, [
        f"asraudit: error: {folder}: not a CTranslate2 Whisper model directory (missing vocabulary.txt or "
        "vocabulary.json)"])
