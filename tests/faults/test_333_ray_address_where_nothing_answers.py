"""Case 333: ``--executor ray:HOST:PORT`` (an audit spec's ``[executor] kind``) naming an address where nothing
listens: a cluster that is down, a port mistyped (``ray:127.0.0.1:6739`` for ``6379``).

``ray.init`` waited for a cluster there without end, printing Ray's ``Failed to get cluster ID from GCS server:
TimedOut`` warnings every few seconds (killed after more than 3 minutes, nothing run), while ``ray:auto`` with no
cluster running is refused at once (case 189).  Now one TCP connection says whether anything listens, and an
address where nothing does is one line, exit 1 as a cluster that cannot be reached is, before Ray is started.
"""

from __future__ import annotations

import socket

import pytest

from conftest import one_clip_manifest

pytest.importorskip("ray")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_an_address_where_nothing_listens_is_one_line_before_ray_starts(cli, tmp_path, monkeypatch):
    import ray

    def init(*args, **kwargs):  # the old code's wait: without end
        raise AssertionError("ray.init ran against an address where nothing listens")

    monkeypatch.setattr(ray, "init", init)
    monkeypatch.setattr(ray, "is_initialized", lambda: False)
    port = _free_port()
    ran = cli("transcribe", "--model", "pocketsphinx", "--corpus", one_clip_manifest(tmp_path), "--out",
              tmp_path / "out", "--executor", f"ray:127.0.0.1:{port}", "--no-progress")
    assert (ran.code, ran.error_lines) == (1, [
        f"asraudit: error: executor ray:127.0.0.1:{port}: cannot reach the Ray cluster (nothing answers at "
        f"127.0.0.1:{port}: Connection refused): start the cluster (ray start --head), or name its address"])
    assert not (tmp_path / "out" / "pocketsphinx.jsonl").exists()


def test_control_an_address_where_something_listens_goes_to_ray(cli, tmp_path, monkeypatch):
    import ray

    asked = []

    def init(*args, **kwargs):
        asked.append(kwargs["address"])
        raise ConnectionError("not a Ray cluster")

    monkeypatch.setattr(ray, "init", init)
    monkeypatch.setattr(ray, "is_initialized", lambda: False)
    with socket.socket() as listening:
        listening.bind(("127.0.0.1", 0))
        listening.listen()
        port = listening.getsockname()[1]
        ran = cli("transcribe", "--model", "pocketsphinx", "--corpus", one_clip_manifest(tmp_path), "--out",
                  tmp_path / "out", "--executor", f"ray:127.0.0.1:{port}", "--no-progress")
    assert asked == [f"127.0.0.1:{port}"]
    assert (ran.code, ran.error_lines) == (1, [
        f"asraudit: error: executor ray:127.0.0.1:{port}: cannot reach the Ray cluster (ConnectionError: not a Ray "
        "cluster)"])
