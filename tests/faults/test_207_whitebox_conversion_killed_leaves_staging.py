"""Case 207: a white-box conversion killed while it writes (`kill -9`, the machine losing power) leaves its staging
folder in the cache (`$ASRAUDIT_CACHE/whitebox/.whisper-tiny.en...`, hidden, the size of the model) for ever: the next
conversion made a new one and never looked at the old.

Now each staging folder is named for its owner (host and process id), and the next conversion of the same model
removes those whose process is gone; one whose owner still runs (a conversion of the same model at this moment in
another process) is left alone.  The killed run is a child process whose conversion stops dead (``os._exit``, no
``finally``, as under SIGKILL) once the weights are being written.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")

# A conversion of the CTranslate2 folder argv[3] into the cache named by argv[1] that stops dead once it starts
# writing the weights; with argv[2] "wait", it says so on stdout and waits (a live conversion) until its stdin
# closes, then stops dead.
CHILD = """
import os, sys
from pathlib import Path
from transformers import WhisperForConditionalGeneration
from asraudit.models.whitebox.convert import convert
from asraudit.models.whitebox.sources import source_from_dir

def save_pretrained(self, folder, *a, **k):
    (Path(folder) / "model.safetensors").write_bytes(b"half a model")
    if sys.argv[2] == "wait":
        print("writing", flush=True)
        sys.stdin.read()
    os._exit(9)

WhisperForConditionalGeneration.save_pretrained = save_pretrained
convert(source_from_dir(sys.argv[3]), Path(sys.argv[1]))
"""


def _child(cache, how, model, **kw):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    return subprocess.Popen([sys.executable, "-c", CHILD, str(cache), how, str(model)], env=env, text=True, **kw)


def _hidden(cache):
    return sorted(p.name for p in (cache / "whitebox").iterdir() if p.name.startswith("."))


def test_a_killed_conversions_staging_folder_is_removed_by_the_next(tmp_path, tiny_ct2_whisper):
    """On a random-weight Whisper of tiny.en's files (tests/encdec_tiny.py): what is tested is the folders."""
    from asraudit.models.whitebox.convert import convert, is_converted
    from asraudit.models.whitebox.sources import source_from_dir

    cache = tmp_path / "cache"
    killed = _child(cache, "die", tiny_ct2_whisper)
    assert killed.wait() == 9
    (left,) = _hidden(cache)  # what the killed run left: a staging folder holding part of a model
    assert (cache / "whitebox" / left / "model.safetensors").read_bytes() == b"half a model"

    live = _child(cache, "wait", tiny_ct2_whisper, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    try:
        assert live.stdout.readline() == "writing\n"
        (running,) = set(_hidden(cache)) - {left}
        source = source_from_dir(tiny_ct2_whisper)
        target = convert(source, cache)
        assert is_converted(source, cache)
        # the dead run's folder is gone; the live run's is still there, with what it has written
        assert _hidden(cache) == [running]
        assert (cache / "whitebox" / running / "model.safetensors").read_bytes() == b"half a model"
        assert target == cache / "whitebox" / source.cache_name
    finally:
        live.stdin.close()
        live.wait()
    convert(source, cache, force=True)  # the live run is gone now: the next conversion removes its folder too
    assert _hidden(cache) == []


def test_only_this_hosts_owners_and_this_scheme_are_judged(tmp_path):
    from asraudit.data.paths import _staging_prefix, sweep_stale_staging

    target = tmp_path / "m"
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    prefix = _staging_prefix(target)
    host_part = prefix[: prefix.rindex("-", 0, -1) + 1]
    names = {"dead": f"{host_part}{dead.pid}-abcd_123",
             "mine": f"{prefix}abcdefgh",  # this process's own: never swept from under it
             "other host": f".m.staging-elsewhere-{dead.pid}-abcdefgh",  # no process table to ask
             "other name": f".m.staging-x-{host_part[len('.m.staging-'):]}{dead.pid}-abcdefgh",
             "another model": f".m2.staging-{host_part[len('.m.staging-'):]}{dead.pid}-abcdefgh",
             "not ours": ".m-abcdefgh"}  # a folder of another scheme (an older asraudit's): no owner to ask
    for name in names.values():
        (tmp_path / name).mkdir()
    assert sweep_stale_staging(target) == [tmp_path / names["dead"]]
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(v for k, v in names.items() if k != "dead")
