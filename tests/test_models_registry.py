"""Model specs to models; replay of prediction files; the HTTP backend against a local stub server."""

from __future__ import annotations

import importlib.util
import io
import json
import wave
from email.parser import BytesParser
from email.policy import HTTP
from http.server import BaseHTTPRequestHandler

import numpy as np
import pytest
from http_stub import send_json, serving

from asraudit.cli import main
from asraudit.errors import InputError
from asraudit.models import embedded, registry
from asraudit.models.base import ASRModel, ClipKeyedModel
from asraudit.models.http import HTTPTranscriptionModel, endpoint_url
from asraudit.models.registry import available_models, load_model
from asraudit.models.replay import ReplayModel

# -- the registry -------------------------------------------------------------


def test_catalog_lists_every_backend_and_the_embedded_models_present():
    catalog = available_models()
    assert {b.name for b in catalog.backends} == {"ct2-whisper", "hf-seq2seq", "hf-ctc", "whitebox", "pocketsphinx",
                                                  "replay", "http"}
    present = {m.name: m.present for m in catalog.embedded}
    organism = present.pop("whisper-tiny.en-organism")
    # the demo's other organism kinds are present once their adapter is committed (demo.organism_kinds)
    from asraudit.demo.organism_kinds import KINDS

    kinds = {k.model_id: present.pop(k.model_id) for k in KINDS.values() if k.name != "record"}
    assert present == {name: embedded.is_present(name) for name in ("whisper-tiny.en", "whisper-base")}
    assert all(kinds[k.model_id] == (organism and k.adapter.is_file()) for k in KINDS.values() if k.name != "record")
    assert organism == (present["whisper-tiny.en"] and importlib.util.find_spec("torch") is not None)


def test_models_command_prints_backends_and_embedded_models(capsys):
    assert main(["models"]) == 0
    out = capsys.readouterr().out
    for name in ("ct2-whisper", "pocketsphinx", "replay", "http", "whisper-tiny.en", "whisper-base"):
        assert name in out
    assert main(["models", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert {m["name"] for m in data["embedded"]} == {"whisper-tiny.en", "whisper-base", "whisper-tiny.en-organism",
                                                     # the demo's other organism kinds (demo.organism_kinds)
                                                     "whisper-tiny.en-gated", "whisper-tiny.en-gated-many",
                                                     "whisper-tiny.en-gated-deep",
                                                     "whisper-tiny.en-contaminated",
                                                     "whisper-tiny.en-contaminated-heldout", "whisper-tiny.en-switching",
                                                     "whisper-tiny.en-switching-4ep", "whisper-base-organism"}


@pytest.mark.parametrize("spec", ["whisper-large-v9", "./no/such/dir", ""])
def test_unknown_specs_are_input_errors_that_list_the_choices(spec):
    with pytest.raises(InputError, match="whisper-tiny.en|empty"):
        load_model(spec)


def test_a_file_is_not_mistaken_for_a_model(tmp_path):
    f = tmp_path / "preds.jsonl"
    f.write_text("")
    with pytest.raises(InputError, match="replay:"):
        load_model(str(f))


def test_an_option_a_backend_lacks_is_one_input_error_naming_it_and_the_options_it_has():
    from dataclasses import dataclass

    from asraudit.models.base import backend_options

    @dataclass(frozen=True)
    class Options:
        beam_size: int = 5
        language: str = "en"

    assert backend_options(Options, {"beam_size": 1}, "m") == Options(beam_size=1)
    with pytest.raises(InputError, match=r"model 'm' has no option 'beams', 'lang'; its options: beam_size, "
                                         r"cpu_threads, language$"):
        backend_options(Options, {"beams": 1, "lang": "es", "beam_size": 1}, "m", also=("cpu_threads",))


def test_unknown_options_of_the_embedded_backends_are_input_errors_not_tracebacks():
    # pocketsphinx refused them with a bare KeyError from its Config, CTranslate2 Whisper with a TypeError
    pytest.importorskip("pocketsphinx")
    with pytest.raises(InputError, match="model 'pocketsphinx' has no option 'beam_size'"):
        load_model("pocketsphinx", beam_size=1)
    assert load_model("pocketsphinx", beam=1e-40).config["beam"] == 1e-40  # a pocketsphinx setting still passes
    pytest.importorskip("ctranslate2")
    if not embedded.is_present("whisper-tiny.en"):
        pytest.skip("whisper-tiny.en is not installed")
    with pytest.raises(InputError, match="model 'whisper-tiny.en' has no option 'foo'; its options: .*beam_size"):
        load_model("whisper-tiny.en", foo=1)


def test_transcribe_option_meant_for_another_model_is_one_line_exit_2(tmp_path, capsys):
    # --option goes to every --model: beam_size=1 is a Whisper option that pocketsphinx lacks
    pytest.importorskip("pocketsphinx")
    import soundfile

    soundfile.write(tmp_path / "a.wav", np.zeros(16000, dtype=np.float32), 16000)
    (tmp_path / "m.jsonl").write_text(json.dumps({"audio_filepath": "a.wav", "text": "x"}) + "\n")
    code = main(["transcribe", "--model", "pocketsphinx", "--corpus", str(tmp_path / "m.jsonl"),
                 "--out", str(tmp_path / "out"), "--option", "beam_size=1", "--no-progress"])
    err = capsys.readouterr().err
    assert code == 2
    assert err.strip().splitlines() == ["asraudit: error: model 'pocketsphinx' has no option 'beam_size'; its options "
                                        "are pocketsphinx's decoder settings (hmm, lm, dict, beam, ...)"]
    assert not (tmp_path / "out" / "pocketsphinx.jsonl").exists()


@pytest.mark.parametrize(("option", "flag"), [("compute_type=int8", "--compute-type int8"), ("device=cpu", "--device cpu")])
def test_transcribe_option_that_has_its_own_flag_is_one_line_naming_the_flag(tmp_path, capsys, option, flag):
    # load_model takes device and compute_type as its own arguments: given as --option too, they were a TypeError
    import soundfile

    soundfile.write(tmp_path / "a.wav", np.zeros(16000, dtype=np.float32), 16000)
    (tmp_path / "m.jsonl").write_text(json.dumps({"audio_filepath": "a.wav", "text": "x"}) + "\n")
    code = main(["transcribe", "--model", "whisper-tiny.en", "--corpus", str(tmp_path / "m.jsonl"),
                 "--out", str(tmp_path / "out"), "--option", option, "--no-progress"])
    assert code == 2
    assert capsys.readouterr().err.strip().splitlines() == [f"asraudit: error: --option {option.split('=')[0]}=...: "
                                                            f"give it as {flag}"]


def test_a_bare_hub_id_while_offline_fails_fast_with_a_clear_error(monkeypatch):
    hub = pytest.importorskip("huggingface_hub.constants")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setattr(hub, "HF_HUB_OFFLINE", True)
    with pytest.raises(InputError, match="no-such-org/no-such-model"):
        load_model("no-such-org/no-such-model")


def test_a_local_faster_whisper_directory_loads_as_ctranslate2(tmp_path):
    pytest.importorskip("ctranslate2")
    if not embedded.is_present("whisper-tiny.en"):
        pytest.skip("whisper-tiny.en is not installed")
    folder = tmp_path / "my-whisper"
    folder.mkdir()
    for f in embedded.locate("whisper-tiny.en").iterdir():
        (folder / f.name).symlink_to(f)
    model = load_model(str(folder), beam_size=1)
    assert model.model_id == f"ct2:{folder.resolve()}"
    assert model.backend == "ct2-whisper"
    # Same weights as the embedded model: the same fingerprint enters both config hashes.
    assert model.config_hash == load_model("whisper-tiny.en", beam_size=1).config_hash


# -- plug-ins -----------------------------------------------------------------

PLUGIN = """
from asraudit.models.registry import EmbeddedInfo, register_model
from asraudit.models.replay import ReplayModel

PREDS = {preds!r}


def _load(device="cpu", compute_type=None, **options):
    return ReplayModel(PREDS, model_id="my-replayed-model")


def register():
    register_model("my-replayed-model", _load,
                   catalog_entry=lambda: EmbeddedInfo("my-replayed-model", True, "a plug-in's model", "my-plugin 1.0"))
"""


@pytest.fixture
def fresh_registry(monkeypatch):
    """The registry as on a first lookup: no plug-in loaded yet."""
    monkeypatch.setattr(registry, "_registered", {})
    monkeypatch.setattr(registry, "_discovered", False)


def _install_plugin(tmp_path, monkeypatch, entry_points: str) -> None:
    """A distribution with an ``asraudit.models`` entry point, importable from ``tmp_path``."""
    dist = tmp_path / "my_plugin-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: my-plugin\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text("[asraudit.models]\n" + entry_points)
    monkeypatch.syspath_prepend(str(tmp_path))


def test_a_plugin_found_through_the_entry_point_group_adds_a_named_model(tmp_path, monkeypatch, fresh_registry):
    preds = _prediction_file(tmp_path)
    (tmp_path / "my_plugin.py").write_text(PLUGIN.format(preds=str(preds)))
    _install_plugin(tmp_path, monkeypatch, "mine = my_plugin:register\n")
    model = load_model("my-replayed-model")
    assert isinstance(model, ReplayModel) and model.model_id == "my-replayed-model"
    names = [m.name for m in available_models().embedded]
    assert "my-replayed-model" in names
    # The in-tree organism is still registered next to it (the fallback, or its own entry point).
    assert "whisper-tiny.en-organism" in names


def test_the_demo_organism_found_both_ways_is_registered_once(tmp_path, monkeypatch, fresh_registry):
    _install_plugin(tmp_path, monkeypatch, "organism = asraudit.demo.organism_kinds:register\n")
    names = [m.name for m in available_models().embedded]
    assert names.count("whisper-tiny.en-organism") == 1
    assert registry.whitebox_model_names()[-1] == "whisper-tiny.en-organism"


def test_a_registered_name_cannot_be_taken_by_another_model(fresh_registry):
    registry.registered_models()
    with pytest.raises(ValueError, match="already taken"):
        registry.register_model("whisper-tiny.en-organism", lambda **_: None, catalog_entry=lambda: None)
    with pytest.raises(ValueError, match="already taken"):
        registry.register_model("whisper-tiny.en", lambda **_: None, catalog_entry=lambda: None)


# -- replay -------------------------------------------------------------------


def _prediction_file(tmp_path):
    path = tmp_path / "modelA.jsonl"
    rows = [
        {"audio_filepath": "a.wav", "text": "hello world", "pred_text": "Hello, world.", "duration": 1.0},
        {"audio_filepath": "b.wav", "text": "good night", "pred_text": "", "duration": 2.0},
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_replay_answers_by_clip_id_including_empty_hypotheses(tmp_path):
    model = load_model(f"replay:{_prediction_file(tmp_path)}")
    assert isinstance(model, ReplayModel) and isinstance(model, ClipKeyedModel)
    assert model.model_id == "replay:modelA"
    assert model.transcribe_clips(["b.wav", "a.wav"]) == ["", "Hello, world."]


def test_replay_names_the_file_for_clips_it_lacks_and_refuses_audio(tmp_path):
    path = _prediction_file(tmp_path)
    model = load_model(f"replay:{path}")
    with pytest.raises(InputError, match="c.wav") as err:
        model.transcribe_clips(["a.wav", "c.wav"])
    assert str(path) in str(err.value)
    with pytest.raises(TypeError, match="transcribe_clips"):
        model.transcribe([np.zeros(16000, np.float32)])


def test_replay_config_hash_follows_the_file_content(tmp_path):
    path = _prediction_file(tmp_path)
    before = load_model(f"replay:{path}").config_hash
    path.write_text(path.read_text().replace("Hello, world.", "Hello world"))
    assert load_model(f"replay:{path}").config_hash != before


def test_replay_of_a_missing_file_is_an_input_error(tmp_path):
    with pytest.raises(InputError, match="no such prediction file"):
        load_model(f"replay:{tmp_path / 'nope.jsonl'}")


# -- HTTP ---------------------------------------------------------------------


class _StubTranscriptionServer(BaseHTTPRequestHandler):
    """Answers like an OpenAI-compatible server: text = duration and peak of the uploaded WAV."""

    requests: list = []

    def do_POST(self):  # noqa: N802 (http.server naming)
        body = self.rfile.read(int(self.headers["Content-Length"]))
        message = BytesParser(policy=HTTP).parsebytes(
            f"Content-Type: {self.headers['Content-Type']}\r\n\r\n".encode() + body
        )
        fields, audio = {}, None
        for part in message.iter_parts():
            name = part.get_param("name", header="content-disposition")
            if part.get_filename():
                with wave.open(io.BytesIO(part.get_payload(decode=True))) as w:
                    audio = np.frombuffer(w.readframes(w.getnframes()), "<i2") / 32767.0
                    rate = w.getframerate()
            else:
                fields[name] = part.get_content().strip()
        type(self).requests.append({"path": self.path, "fields": fields, "auth": self.headers.get("Authorization")})
        if fields.get("model") == "broken":
            self.send_response(500)
            self.end_headers()
            self.wfile.write(b"model exploded")
            return
        send_json(self, {"text": f" {len(audio) / rate:.2f} seconds peak {np.abs(audio).max():.2f} "})

    def log_message(self, *args):
        pass


@pytest.fixture()
def stub_server():
    _StubTranscriptionServer.requests = []
    with serving(_StubTranscriptionServer) as url:
        yield url


def test_http_model_uploads_wav_and_returns_the_servers_text_in_order(stub_server):
    model = load_model(stub_server, model="tiny-server-model", api_key="k", concurrency=3)
    assert isinstance(model, HTTPTranscriptionModel) and isinstance(model, ASRModel)
    clips = [np.full(int(s * 16000), peak, np.float32) for s, peak in ((0.5, 0.25), (1.25, 0.5), (2.0, 0.75))]
    assert model.transcribe(clips) == ["0.50 seconds peak 0.25", "1.25 seconds peak 0.50", "2.00 seconds peak 0.75"]
    request = _StubTranscriptionServer.requests[0]
    assert request["path"] == "/v1/audio/transcriptions"
    assert request["fields"]["model"] == "tiny-server-model"
    assert request["fields"]["temperature"] == "0"
    assert request["auth"] == "Bearer k"
    assert model.config_hash != load_model(stub_server, model="other").config_hash


def test_http_errors_carry_the_status_and_the_servers_message(stub_server):
    model = load_model(stub_server + "/v1", model="broken")
    with pytest.raises(RuntimeError, match="500.*model exploded"):
        model.transcribe([np.zeros(1600, np.float32)])


def test_http_unreachable_server_is_reported_not_hung():
    model = HTTPTranscriptionModel("http://127.0.0.1:9", timeout=5)  # discard port: nothing listens
    with pytest.raises(RuntimeError, match="cannot reach"):
        model.transcribe([np.zeros(160, np.float32)])


def test_endpoint_url_accepts_base_v1_or_full_urls():
    assert endpoint_url("http://h:8000") == "http://h:8000/v1/audio/transcriptions"
    assert endpoint_url("http://h:8000/v1/") == "http://h:8000/v1/audio/transcriptions"
    assert endpoint_url("http://h/v1/audio/transcriptions") == "http://h/v1/audio/transcriptions"


def test_an_option_a_replayed_file_does_not_take_is_one_input_error(tmp_path):
    """The replay backend has no options dataclass: its constructor's TypeError is reported by the registry as
    the option the caller gave (the Python API and the command line alike)."""
    preds = tmp_path / "m.jsonl"
    preds.write_text('{"audio_filepath": "c0", "text": "a", "pred_text": "a"}\n', encoding="utf-8")
    with pytest.raises(InputError, match=f"^model 'replay:{preds}' has no option 'beam_size'$"):
        load_model(f"replay:{preds}", beam_size=1)
