"""Case 86: the mechanism experiments given inputs of another model or corpus, or damaged: a direction file given
to ``steer induce`` / ``steer ablate``, a ``[[mechanism]]`` patch's two models, a panel's prediction files.

A direction learned on whisper-base (width 512, layer 5) given to whisper-tiny.en (width 384, 4 layers) with
``--layer 1`` ran the baseline and then stopped with torch's ``RuntimeError: The size of tensor a (384) must
match the size of tensor b (512)``, a traceback; without ``--layer`` its layer 5 was refused only after the
baseline had run. A file whose metadata was damaged (a layer that is not a number, no layer, provenance that is
not JSON) or whose basis and vector disagree raised ``ValueError``, ``KeyError`` and ``JSONDecodeError``
tracebacks, and a direction of NaN values (its id left out) steered every frame into NaN, silently. Now the
file is checked when it is read, before the model loads, and its layer and width against the model's before
any variant runs: one line naming the file, nothing stored.

An audit's ``[[mechanism]]`` patch entry between models of two depths (``model = "whisper-tiny.en"``, ``contrast =
"whisper-base"``) passed ``audit --check`` and was refused by the mechanism stage, the last, after transcription
and mining; ``--check`` now compares the encoder depths the models' files give.

A panel's prediction files of another corpus (``--preds``, for the accept-ref readout of ``steer induce|ablate``
and ``patch``) were refused only by the readout, after every variant had run (9 results stored for 3 clips), in
words that named the variants as the models with transcripts; now each member must have a clip of the corpus
before any variant runs.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from safetensors.numpy import save_file

from asraudit.errors import InputError
from asraudit.mechanism.steering import FORMAT, Direction


def _direction(width: int, layer: int, model: str) -> Direction:
    rng = np.random.default_rng(0)
    vector = rng.standard_normal(width).astype(np.float32)
    return Direction(vector, (vector / np.linalg.norm(vector))[None, :], np.ones(1), layer, {"model": model})


def _raw(path, tensors: dict, metadata: dict):
    save_file({k: np.ascontiguousarray(v, dtype=np.float32) for k, v in tensors.items()}, str(path),
              metadata=metadata)
    return path


def _good_parts():
    d = _direction(8, 1, "m")
    return {"vector": d.vector, "basis": d.basis, "singular_values": d.singular_values}, \
        {"format": FORMAT, "layer": "1", "provenance": json.dumps({"model": "m"})}


@pytest.mark.parametrize("change, message", [
    (lambda t, m: m.update(layer="two"),
     "an asraudit direction: its metadata's layer is 'two', not a layer number: the file is damaged or was written "
     "by something else; learn it again"),
    (lambda t, m: m.pop("layer"),
     "an asraudit direction: its metadata's layer is None, not a layer number: the file is damaged or was written "
     "by something else; learn it again"),
    (lambda t, m: m.update(provenance="[1, 2]"),
     "an asraudit direction: its metadata's provenance is not a JSON object: the file is damaged or was written by "
     "something else; learn it again"),
    (lambda t, m: t.update(vector=t["vector"][:5]),
     "an asraudit direction: basis must be [k, 5], got (1, 8): the file is damaged; learn it again"),
    (lambda t, m: t.update(vector=np.full(8, np.nan)),
     "an asraudit direction's tensor 'vector' holds values that are not finite numbers: the file is damaged; "
     "learn it again"),
])
def test_a_damaged_direction_file_is_one_line_naming_it(tmp_path, change, message):
    tensors, metadata = _good_parts()
    change(tensors, metadata)
    path = _raw(tmp_path / "d.safetensors", tensors, metadata)
    with pytest.raises(InputError) as err:
        Direction.load(path)
    assert str(err.value) == f"{path}: {message}"


def test_a_damaged_file_is_refused_before_the_model_loads(tmp_path, cli):
    tensors, metadata = _good_parts()
    metadata["provenance"] = "{broken"
    path = _raw(tmp_path / "d.safetensors", tensors, metadata)
    (tmp_path / "c.jsonl").write_text("", encoding="utf-8")
    ran = cli("steer", "induce", "--direction", path, "--model", tmp_path / "no-such-model", "--corpus",
              tmp_path / "c.jsonl", "--store", tmp_path / "s.sqlite")
    assert ran.code == 2 and len(ran.error_lines) == 1
    assert ran.error_lines[0].startswith(f"asraudit: error: {path}: an asraudit direction: its metadata's "
                                         "provenance is not JSON (")


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    from asraudit.models import embedded

    if not embedded.is_present("whisper-tiny.en"):
        pytest.skip("needs the embedded whisper-tiny.en (the models extra)")
    import soundfile

    root = tmp_path_factory.mktemp("direction")
    rng = np.random.default_rng(0)
    soundfile.write(root / "n0.wav", (rng.standard_normal(8000) * 0.1).astype(np.float32), 16000)
    (root / "c.jsonl").write_text(json.dumps({"audio_filepath": str(root / "n0.wav"), "text": "x"}) + "\n",
                                  encoding="utf-8")
    return root  # the white-box conversion: the shared model cache's, as the other white-box tests use it


@pytest.mark.parametrize("action", ["induce", "ablate"])
def test_a_direction_of_another_width_is_refused_before_any_variant_runs(tiny, cli, action):
    path = _direction(512, 5, "whitebox:whisper-base").save(tiny / "base.safetensors")
    store = tiny / f"{action}.sqlite"
    argv = ("steer", action, "--direction", path, "--model", "whisper-tiny.en", "--corpus", tiny / "c.jsonl",
            "--store", store, "--no-progress")
    ran = cli(*argv, "--layer", "1")
    assert (ran.code, ran.error_lines) == (2, [
        f"asraudit: error: {path}: the direction has width 512 (learned on whitebox:whisper-base), but "
        "whisper-tiny.en's encoder layers have width 384: a direction applies only to a model of its width"])
    ran = cli(*argv)
    assert (ran.code, ran.error_lines) == (2, [
        f"asraudit: error: {path}: the direction was learned on whitebox:whisper-base at encoder layer 5, which "
        "whisper-tiny.en does not have (its encoder has 4 layers: 0..3): give --layer, or a direction learned on "
        "this model"])
    assert not store.exists()  # not even the baseline ran


def test_an_audit_patch_between_models_of_two_depths_is_refused_by_check(tmp_path):
    from asraudit import parse_spec
    from asraudit.audit.mechanism import check_spec_layers
    from asraudit.models import embedded

    if not (embedded.is_present("whisper-tiny.en") and embedded.is_present("whisper-base")):
        pytest.skip("needs the embedded whisper-tiny.en and whisper-base (the models extra)")
    (tmp_path / "c.jsonl").write_text(json.dumps({"audio_filepath": "a.wav", "text": "x"}) + "\n", encoding="utf-8")
    (tmp_path / "a.wav").write_bytes(b"")  # the spec's reader checks the manifest is there, not its audio
    spec = parse_spec({"corpus": {"manifest": "c.jsonl"}, "model": [{"spec": "whisper-tiny.en"}],
                       "mechanism": [{"type": "patch", "model": "whisper-tiny.en", "contrast": "whisper-base",
                                      "clips": "all"}]}, "a.toml", tmp_path)
    with pytest.raises(InputError) as err:
        check_spec_layers(spec.mechanism[0])
    assert str(err.value) == ("[[mechanism]] #1 ('patch #1'): whisper-tiny.en has 4 encoder layers and whisper-base "
                              "6: an encoder exchange needs the model a fine-tune started from (the same front end "
                              "and depth)")


def test_panel_files_of_another_corpus_are_refused_before_any_variant_runs(tiny, cli):
    from conftest import write_preds

    panel = tiny / "panel"
    panel.mkdir(exist_ok=True)
    for name in ("m1", "m2", "m3"):
        write_preds(panel / f"{name}.jsonl", [("other.wav", "a b", "a b")])
    path = _direction(384, 1, "whitebox:whisper-tiny.en").save(tiny / "tiny.safetensors")
    store = tiny / "panel.sqlite"
    ran = cli("steer", "ablate", "--direction", path, "--model", "whisper-tiny.en", "--corpus", tiny / "c.jsonl",
              "--store", store, "--no-progress", "--preds", panel)
    assert (ran.code, ran.error_lines) == (2, [
        f"asraudit: error: {panel / 'm1.jsonl'}: --preds: panel model m1's prediction file has no clip of the corpus "
        f"(its first: 'other.wav'; the corpus's first: '{tiny / 'n0.wav'}'): prediction files of another corpus, or "
        "clip ids written differently?"])
    assert not store.exists()
