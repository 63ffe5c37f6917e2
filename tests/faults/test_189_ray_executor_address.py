"""Case 189: ``--executor ray:ADDRESS`` (``[executor] kind``) naming no address, one Ray cannot read, one that
needs a package not installed, or a cluster that is not there.

Each ended the command with Ray's traceback (``ValueError: Invalid address format``, ``ConnectionError: Could
not find any running Ray instance``), after the models had loaded; ``ray:`` alone started a local instance, as
``ray`` does.  Now one line each; nothing had run, so nothing is lost."""

from __future__ import annotations

import pytest

from tests.faults.conftest import one_clip_manifest

pytest.importorskip("ray")


def _transcribe(cli, tmp_path, executor):
    manifest = one_clip_manifest(tmp_path)
    return cli("transcribe", "--model", "whisper-tiny.en", "--corpus", manifest, "--out", tmp_path / "out",
               "--executor", executor, "--no-progress")


def test_an_empty_address_is_refused(cli, tmp_path):
    ran = _transcribe(cli, tmp_path, "ray:")
    assert ran.code == 2 and ran.error_lines == [
        "asraudit: error: executor 'ray:' names no Ray address: write ray (a local instance) or ray:ADDRESS "
        "(ray:auto, ray:HOST:PORT, ray:ray://HOST:10001)"]
    ran = _transcribe(cli, tmp_path, "ray: auto")
    assert ran.code == 2 and ran.error_lines == [
        "asraudit: error: executor 'ray: auto': the Ray address has spaces around it: write ray:auto"]
    assert not (tmp_path / "out" / "whisper-tiny.en.jsonl").exists()


def test_the_audit_spec_refuses_it_when_read(cli, tmp_path):
    one_clip_manifest(tmp_path)
    spec = tmp_path / "audit.toml"
    spec.write_text('name = "x"\nout = "out"\n[corpus]\nmanifest = "m.jsonl"\n[[model]]\nspec = "whisper-tiny.en"\n'
                    '[executor]\nkind = "ray:"\n', encoding="utf-8")
    ran = cli("audit", spec, "--check")
    assert ran.code == 2 and ran.error_lines == [
        f"asraudit: error: {spec}: [executor]: kind: executor 'ray:' names no Ray address: write ray (a local "
        "instance) or ray:ADDRESS (ray:auto, ray:HOST:PORT, ray:ray://HOST:10001)"]


def test_an_address_ray_cannot_read_is_one_line(cli, tmp_path):
    ran = _transcribe(cli, tmp_path, "ray:nonsense")
    assert ran.code == 2 and ran.error_lines == [
        "asraudit: error: executor ray:nonsense: Invalid address format: nonsense"]


def test_no_cluster_there_is_one_line(cli, tmp_path, monkeypatch):
    """Ray's own search for a cluster depends on what runs on the machine (another test's local instance), so
    its answer is given here as Ray gives it when none runs."""
    import ray

    def no_cluster(*args, **kwargs):
        raise ConnectionError("Could not find any running Ray instance. Please specify the one to connect to.")

    monkeypatch.setattr(ray, "init", no_cluster)
    monkeypatch.setattr(ray, "is_initialized", lambda: False)
    ran = _transcribe(cli, tmp_path, "ray:auto")
    assert ran.code == 1 and ran.error_lines == [
        "asraudit: error: executor ray:auto: cannot reach the Ray cluster (ConnectionError: Could not find any "
        "running Ray instance. Please specify the one to connect to.)"]
