"""Helpers of the fault suite: hostile-but-realistic input, one test per case.

Each case asserts the exact message a user sees (one line naming the file,
row, field or path; exit 2 for an error) and that nothing finished is lost.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from asraudit.cli import main

PROJECT_ROOT = Path(__file__).resolve().parents[2]


class Ran:
    """What a CLI run printed, and its exit code."""

    def __init__(self, code: int, out: str, err: str):
        self.code, self.out, self.err = code, out, err

    @property
    def error_lines(self) -> list[str]:
        return [line for line in self.err.splitlines() if line.startswith("asraudit: error:")]


@pytest.fixture()
def cli(capsys):
    """Run ``asraudit ARGS`` in this process; returns Ran(code, stdout, stderr)."""

    def run(*args) -> Ran:
        code = main([str(a) for a in args])
        captured = capsys.readouterr()
        return Ran(code, captured.out, captured.err)

    return run


def write_preds(path: Path, rows, *, duration: bool = False, speakers=None) -> Path:
    """A prediction file in the leaderboard layout from (clip id, reference, hypothesis) rows; ``speakers``: each
    row's ``speaker`` value, written as given (a number stays a number)."""
    with path.open("w", encoding="utf-8") as fh:
        for i, (cid, ref, hyp) in enumerate(rows):
            rec = {"audio_filepath": cid, "text": ref, "pred_text": hyp}
            if duration:
                rec["duration"] = 1.0 + i
            if speakers is not None:
                rec["speaker"] = speakers[i]
            fh.write(json.dumps(rec, ensure_ascii=False) + "\n")
    return path


def one_clip_manifest(folder: Path, *, tone: bool = True, text: str = "a tone") -> Path:
    """``folder/m.jsonl`` naming one second of audio ``a.wav`` (a 220 Hz tone, or silence) with ``text``."""
    import numpy as np
    import soundfile as sf

    t = np.arange(16_000) / 16_000
    samples = 0.3 * np.sin(2 * np.pi * 220 * t) if tone else np.zeros(16_000)
    sf.write(folder / "a.wav", samples.astype(np.float32), 16_000)
    manifest = folder / "m.jsonl"
    manifest.write_text(json.dumps({"audio_filepath": "a.wav", "text": text}) + "\n", encoding="utf-8")
    return manifest


def silent_clips_manifest(folder: Path, n: int = 2) -> Path:
    """``folder/corpus.jsonl`` naming ``n`` short silent clips ``c0.wav``... (0.1, 0.2 s): a corpus for a model
    server stub, which never listens to the audio."""
    import numpy as np
    import soundfile as sf

    rows = []
    for i in range(n):
        sf.write(folder / f"c{i}.wav", np.zeros(1600 * (i + 1), dtype=np.float32), 16000)
        rows.append(json.dumps({"audio_filepath": f"c{i}.wav", "text": f"clip {i}"}))
    (folder / "corpus.jsonl").write_text("\n".join(rows) + "\n", encoding="utf-8")
    return folder / "corpus.jsonl"


PANEL = ("m1", "m2", "m3")


def panel_files(folder: Path, rows) -> Path:
    """``folder`` (made if missing) holding one prediction file per model of ``PANEL``, each with ``rows``."""
    folder.mkdir(parents=True, exist_ok=True)
    for name in PANEL:
        write_preds(folder / f"{name}.jsonl", rows)
    return folder


def files_under(folder: Path) -> set[str]:
    return {str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file()}


def asraudit_subprocess(*args, cwd: Path | None = None, env: dict | None = None, **kw) -> subprocess.Popen:
    """``python -m asraudit ARGS`` in a child process with this checkout's sources first on the path."""
    import os

    full_env = dict(os.environ)
    full_env["PYTHONPATH"] = str(PROJECT_ROOT / "src") + os.pathsep + full_env.get("PYTHONPATH", "")
    full_env.update(env or {})
    return subprocess.Popen([sys.executable, "-m", "asraudit", *map(str, args)], cwd=cwd, env=full_env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw)


def build_wav2vec2(folder: Path) -> Path:
    """A one-layer wav2vec2 CTC model over letters, with its processor, saved into ``folder`` as a user's
    downloaded folder is (the fault tests of model folders start from it and damage a copy)."""
    transformers = pytest.importorskip("transformers")
    torch = pytest.importorskip("torch")
    vocab = {"<pad>": 0, "<unk>": 1, "|": 2, **{ch: i + 3 for i, ch in enumerate("abcdefghijklmnopqrstuvwxyz'")}}
    (folder / "vocab.json").write_text(json.dumps(vocab))
    tokenizer = transformers.Wav2Vec2CTCTokenizer(str(folder / "vocab.json"), unk_token="<unk>", pad_token="<pad>",
                                                  word_delimiter_token="|")
    extractor = transformers.Wav2Vec2FeatureExtractor(feature_size=1, sampling_rate=16000, do_normalize=True)
    config = transformers.Wav2Vec2Config(vocab_size=len(vocab), hidden_size=16, num_hidden_layers=1,
                                         num_attention_heads=2, intermediate_size=32, conv_dim=(16, 16),
                                         conv_kernel=(10, 3), conv_stride=(5, 2), num_conv_pos_embeddings=16,
                                         num_conv_pos_embedding_groups=2, pad_token_id=0)
    torch.manual_seed(0)
    transformers.Wav2Vec2ForCTC(config).save_pretrained(folder)
    transformers.Wav2Vec2Processor(feature_extractor=extractor, tokenizer=tokenizer).save_pretrained(folder)
    return folder


@pytest.fixture(scope="module")
def wav2vec2(tmp_path_factory) -> Path:
    """``build_wav2vec2``'s folder, made once per test module."""
    return build_wav2vec2(tmp_path_factory.mktemp("ctc"))


@pytest.fixture(scope="module")
def parakeet(tmp_path_factory) -> Path:
    """A tiny Parakeet TDT folder (the transducer tests' builder), made once per test module."""
    pytest.importorskip("transformers")
    from test_models_hf_transducer import save_tiny

    return save_tiny(tmp_path_factory.mktemp("tdt"), "tdt")



def assert_refused_as_cut_short(folder: Path, cli, cut: bytes, name: str, container: str, declared: int,
                                present: int) -> None:
    """The cut-short cases (120, 161, 173): ``cut`` (a container's bytes, cut) as row 2 of a manifest after a whole
    WAV is refused before any model runs, and so is it given as bytes and decoded from its file, each with the
    same reason naming the container and its declared and present sample bytes."""
    import numpy as np
    import soundfile as sf

    from asraudit.audio.io import check_audio_bytes, load_audio
    from asraudit.errors import InputError

    message = (f"the file is cut short: its {container} header declares {declared} bytes of samples, the file holds "
               f"{present} ({100 * present / declared:.0f}%); a partial copy or download? Copy it again")
    sf.write(folder / "good.wav", (0.3 * np.sin(np.arange(32_000) / 7.0)).astype(np.float32), 16_000,
             subtype="PCM_16")
    (folder / name).write_bytes(cut)
    manifest = folder / "m.jsonl"
    manifest.write_text(json.dumps({"audio_filepath": "good.wav", "text": "a"}) + "\n"
                        + json.dumps({"audio_filepath": name, "text": "a"}) + "\n", encoding="utf-8")
    ran = cli("transcribe", "--model", "pocketsphinx", "--corpus", manifest, "--out", folder / "out", "--no-progress")
    assert (ran.code, ran.error_lines) == (2, [f"asraudit: error: {manifest}, row 2: audio file {folder / name}: "
                                               f"{message}"])
    assert not (folder / "out" / "pocketsphinx.jsonl").exists()
    with pytest.raises(InputError) as err:
        check_audio_bytes(cut, name=name)
    assert str(err.value) == f"{name}: {message}"
    with pytest.raises(InputError) as err:
        load_audio(folder / name)  # every decode
    assert str(err.value) == f"{folder / name}: {message}"


def install_plugin(site: Path, name: str, module_text: str) -> None:
    """A distribution ``name`` in the folder ``site`` whose entry point in ``asraudit.models`` is
    ``plug_NAME:register``, the module ``plug_NAME`` holding ``module_text`` (the plug-in cases 162-169, 185)."""
    info = site / f"{name}-0.1.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 0.1\n", encoding="utf-8")
    (info / "entry_points.txt").write_text(f"[asraudit.models]\n{name} = plug_{name}:register\n", encoding="utf-8")
    (site / f"plug_{name}.py").write_text(module_text, encoding="utf-8")


@pytest.fixture()
def plugin_site(monkeypatch, tmp_path):
    """The model registry as in a new process, with a site folder for plug-ins first on ``sys.path`` (so its
    packages' entry points come before asraudit's own)."""
    from asraudit.models import registry

    for name, value in (("_registered", {}), ("_discovered", False), ("_broken", []), ("_owners", {}),
                        ("_third_party", set()), ("_built_in", set())):
        monkeypatch.setattr(registry, name, value)
    folder = tmp_path / "site"
    folder.mkdir()
    monkeypatch.syspath_prepend(str(folder))
    return folder


# A release of one set and one switch group, every value consistent (cases 228, 251, 256 change one value each)
TINY_AGGREGATE = {"dataset": "tiny", "language": "en", "split": "test", "whitelist": ["a", "b"],
                  "params": {"majority_pct": 0.75, "min_run_len": 1, "include_middle": True,
                             "min_ref_match_pct": 0.5, "min_consensus_cer": 0.3},
                  "prominence": {"clips_analyzed": 10, "n_runs": 4},
                  "benchmaxx_leaderboard": [{"model": "m", "in_whitelist": False, "benchmaxx_score": 0.25,
                                             "accepted_ref": 1, "followed_consensus": 3, "eligible_runs": 4}]}
TINY_SWITCH_ROW = {"switch": 0.5, "lo": 0.15, "hi": 0.85, "limiting_arm": "Mr",
                   "arms": {"Mr": {"hits": 2, "n": 4}, "mister": {"hits": 3, "n": 4}}}
TINY_SWITCH = {"g": {"scope": "within-tiny", "arms": ["Mr", "mister"], "chance": 0.5, "min_per_arm": 3,
                     "results": {"m": TINY_SWITCH_ROW}}}


def write_release(folder: Path, aggregate: dict, switch: dict, change_aggregate=None, change_switch=None) -> Path:
    """``folder/release``: a copy of the paper's release layout (``tiny_aggregate.json``, ``ortho_switch.json``)
    from deep copies of ``aggregate`` and ``switch``, each first changed by its function (cases 146, 166).
    ``json.dumps`` writes NaN and Infinity as the bare words Python's reader takes back."""
    import copy

    aggregate, switch = copy.deepcopy(aggregate), copy.deepcopy(switch)
    (change_aggregate or (lambda d: None))(aggregate)
    (change_switch or (lambda d: None))(switch)
    release = folder / "release"
    release.mkdir()
    (release / "tiny_aggregate.json").write_text(json.dumps(aggregate), encoding="utf-8")
    (release / "ortho_switch.json").write_text(json.dumps(switch), encoding="utf-8")
    return release


def battery_with_condition(folder: Path, condition: str) -> tuple[Path, list]:
    """A one-clip corpus with one edit, and a battery spec ``folder/b.toml`` of the ``original`` condition and a
    condition ``x`` whose TOML lines are ``condition``: (the spec, the ``asraudit battery`` arguments that run it
    on whisper-tiny.en into ``folder/out``) for the battery spec cases (85, 154, 155, 195)."""
    manifest = one_clip_manifest(folder, text="a tone")
    edits = folder / "edits.jsonl"
    edits.write_text(json.dumps({"edit_id": "e1", "clip": "a.wav", "kind": "delete", "position": "start",
                                 "ref_start": 0, "ref_end": 1, "r": "a", "a": ""}) + "\n", encoding="utf-8")
    spec = folder / "b.toml"
    spec.write_text('probes = ["accept-ref"]\n[[condition]]\nname = "original"\n[[condition]]\nname = "x"\n' + condition,
                    encoding="utf-8")
    argv = ["battery", "--spec", spec, "--model", "whisper-tiny.en", "--corpus", manifest, "--edits", edits,
            "--no-mask", "--out", folder / "out", "--no-progress", "--bootstrap", "10"]
    return spec, argv


def write_lexicon(folder: Path, *spans: tuple[str, str]) -> Path:
    """``folder/lex.toml``: a Spanish translation lexicon of one ``[[span]]`` per ``(en, pattern)``, each pattern
    matching itself and not "la comision" (the lexicon's own checks want both)."""
    span = '[[span]]\nen = "{en}"\npatterns = ["{pattern}"]\nmatch = ["{pattern}"]\nno_match = ["la comision"]\n'
    path = folder / "lex.toml"
    path.write_text('schema = 1\ntarget = "es"\n' + "".join(span.format(en=e, pattern=p) for e, p in spans),
                    encoding="utf-8")
    return path


def release_fifo_reader(fifo: Path) -> None:
    """Let a test's FIFO reader finish when the run under test may never have opened the FIFO: open it for writing
    and close it, without blocking.  A blocking open waited for ever when the reader had read the run's output and
    closed its end in the moment between the test's check and the open (seen on two busy cores)."""
    import os

    try:
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
    except OSError:  # ENXIO: no reader has it open any more, so none waits
        pass


def refusal_message(call) -> str:
    """The message of the ``InputError`` that ``call()`` must raise (the test fails if it raises none)."""
    from asraudit.errors import InputError

    with pytest.raises(InputError) as err:
        call()
    return str(err.value)


def text_only_audit_summary(folder: Path, n_clips: int, bootstrap: int) -> Path:
    """The summary.json of a small text-only audit run in ``folder``: three replayed panel models (m0-m2) that
    write "mister" for the reference's "mr", and one scored model (m3) that also writes "bat" for "cat"."""
    from asraudit.cli import main

    rows = [(f"c{i}.wav", f"mr smith said the cat sat on mat {i}", f"mister smith said the cat sat on the mat {i}")
            for i in range(n_clips)]
    models = ""
    for i in range(4):
        write_preds(folder / f"m{i}.jsonl", [(c, r, h if i < 3 else h.replace("cat", "bat")) for c, r, h in rows])
        models += f'[[model]]\npredictions = "m{i}.jsonl"\npanel = {"true" if i < 3 else "false"}\n\n'
    spec = folder / "audit.toml"
    spec.write_text(f'name = "t"\nout = "out"\nbootstrap = {bootstrap}\n[corpus]\npredictions = "m0.jsonl"\n\n{models}',
                    encoding="utf-8")
    assert main(["audit", str(spec), "--no-progress"]) == 0
    return folder / "out" / "summary.json"


MODEL_LOADED = "the model loaded: the command's checks did not all come first"


def mechanism_folder_without_a_model(folder: Path, monkeypatch, metadata: dict | None = None) -> Path:
    """``folder`` as the working directory of a ``steer`` or ``patch`` run whose white-box model never loads
    (loading it fails the test with ``MODEL_LOADED``): what those commands check before the model loads.  It holds
    a one-clip manifest (``m.jsonl``, clip ``a.wav``) and a random direction of tiny.en's width (``d.safetensors``)."""
    import numpy as np

    import asraudit.commands.patch as patch
    import asraudit.commands.steer as steer
    from asraudit.mechanism.steering import Direction

    def no_model(args):
        raise AssertionError(MODEL_LOADED)

    monkeypatch.setattr(steer, "load_whitebox", no_model)
    monkeypatch.setattr(patch, "load_whitebox", no_model)
    monkeypatch.chdir(folder)
    one_clip_manifest(folder)
    vector = np.random.default_rng(0).standard_normal(384).astype(np.float32)
    Direction(vector, (vector / np.linalg.norm(vector))[None, :], np.ones(1), 1, metadata or {}).save(
        folder / "d.safetensors")
    return folder


def two_pocketsphinx_audit(manifest: str = "m.jsonl", out: str = "o") -> str:
    """An audit spec of the smallest panel that mines: pocketsphinx twice (the second pruned hard, so it hears
    otherwise), both in the panel, ``min_panel = 2`` (cases 248, 279, 280 add to it or run it as it is)."""
    return f'''out = "{out}"
[corpus]
manifest = "{manifest}"
[[model]]
spec = "pocketsphinx"
panel = true
[[model]]
spec = "pocketsphinx"
name = "ps2"
panel = true
options = {{ beam = 1e-40 }}
[refdis]
min_panel = 2
'''



def cat_hat_edits(folder: Path, clips) -> Path:
    """``folder/e.jsonl``: one edit on each clip, "cat" in the reference where "hat" was said (cases 303, 307)."""
    path = folder / "e.jsonl"
    path.write_text("".join(json.dumps({"clip": c, "ref_start": 1, "ref_end": 2, "r": "cat", "a": "hat"}) + "\n"
                            for c in clips), encoding="utf-8")
    return path


# Six clips whose references abbreviate what was said (cases 292, 297: corrections given to measure_refdis).
SMITH_REFS = {f"c{i}": f"mr smith said the cat sat on mat {i}" for i in range(6)}
SMITH_SAID = {f"c{i}": f"mister smith said the cat sat on the mat {i}" for i in range(6)}  # what the audio holds


# A released aggregate of one model and one whitelisted member (cases 147, 311: which files of a release folder
# are read).
ONE_MODEL_AGGREGATE = {"dataset": "tiny", "language": "en", "split": "test", "whitelist": ["a"],
                       "params": {"majority_pct": 0.75, "min_run_len": 1, "include_middle": True,
                                  "min_ref_match_pct": 0.5, "min_consensus_cer": 0.3},
                       "prominence": {"clips_analyzed": 10, "n_runs": 4},
                       "benchmaxx_leaderboard": [{"model": "m", "in_whitelist": False, "benchmaxx_score": 0.25,
                                                  "accepted_ref": 1, "followed_consensus": 3, "eligible_runs": 4}]}


def saved_tone_dataset(folder: Path, ids, id_type: str | None = None, columns: dict | None = None) -> Path:
    """``folder/saved``: a Hugging Face dataset saved to disk, one 1 s tone per id in ``ids`` (its ``id`` column,
    typed ``id_type`` when given, else as ``datasets`` infers it), audio paths undecoded, text "a tone"; ``columns``
    adds columns, name -> one value per id (without ``id_type``: typed as ``datasets`` infers them)."""
    import numpy as np
    import soundfile as sf

    datasets = pytest.importorskip("datasets")
    t = np.arange(16_000) / 16_000
    paths = []
    for i in range(len(ids)):
        paths.append(str(folder / f"c{i}.wav"))
        sf.write(paths[-1], (0.3 * np.sin(2 * np.pi * 220 * t)).astype(np.float32), 16_000)
    features = None if id_type is None else datasets.Features(
        {"id": datasets.Value(id_type), "audio": datasets.Value("string"), "text": datasets.Value("string")})
    ds = datasets.Dataset.from_dict({"id": ids, "audio": paths, "text": ["a tone"] * len(ids), **(columns or {})},
                                    features=features)
    ds.cast_column("audio", datasets.Audio(decode=False)).save_to_disk(str(folder / "saved"))
    return folder / "saved"
