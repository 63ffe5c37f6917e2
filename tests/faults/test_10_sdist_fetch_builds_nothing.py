"""Case 10: the suite's test data come from one archive fetched as it is, nothing built.

``pip download --no-binary :all:`` compiled pocketsphinx's build
dependencies from source on a fresh machine just to get a tarball.  Now the
archive is looked up on pip's configured index, downloaded with urllib and
checked against the index's sha256; the unpack stays atomic.  Served here by
a local index so the test needs no network.
"""

from __future__ import annotations

import hashlib
import http.server
import io
import subprocess
import tarfile
import threading
from functools import partial

import pytest

from sdist_fetch import POCKETSPHINX_SDIST_FILE, fetch_archive, fetch_pocketsphinx_test_data


def _sdist() -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        for name, data in (("pocketsphinx-5.1.1/test/data/librivox/fileids", b"clip1\n"),
                           ("pocketsphinx-5.1.1/test/data/goforward.raw", b"\0\0" * 8),
                           ("pocketsphinx-5.1.1/src/big.c", b"int main;")):
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return buf.getvalue()


@pytest.fixture()
def index(tmp_path):
    """A PEP 503 index on localhost holding the sdist; yields (index URL, folder it serves)."""
    root = tmp_path / "served"
    (root / "simple" / "pocketsphinx").mkdir(parents=True)
    (root / "files").mkdir()
    data = _sdist()
    (root / "files" / POCKETSPHINX_SDIST_FILE).write_bytes(data)
    sha = hashlib.sha256(data).hexdigest()
    (root / "simple" / "pocketsphinx" / "index.html").write_text(
        f'<html><body><a href="../../files/{POCKETSPHINX_SDIST_FILE}#sha256={sha}">'
        f"{POCKETSPHINX_SDIST_FILE}</a></body></html>", encoding="utf-8")
    handler = partial(http.server.SimpleHTTPRequestHandler, directory=str(root))
    handler.log_message = lambda *a, **k: None
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_port}/simple", root
    server.shutdown()


def test_test_data_archive_is_fetched_from_the_index_with_its_hash_checked_and_nothing_built(index, tmp_path,
                                                                                            monkeypatch):
    url, root = index

    def no_subprocess(*args, **kwargs):
        raise AssertionError(f"a subprocess was started: {args[0] if args else kwargs}")

    monkeypatch.setattr(subprocess, "run", no_subprocess)
    monkeypatch.setattr(subprocess, "Popen", no_subprocess)
    target = tmp_path / "cache" / "pocketsphinx-5.1.1-test-data"
    fetch_pocketsphinx_test_data(target, indexes=[url])
    assert (target / "librivox" / "fileids").read_text() == "clip1\n"
    assert sorted(p.name for p in target.iterdir()) == ["goforward.raw", "librivox"]

    (root / "files" / POCKETSPHINX_SDIST_FILE).write_bytes(b"tampered")
    with pytest.raises(ValueError, match="sha256 .* does not match the index's"):
        fetch_archive("pocketsphinx", POCKETSPHINX_SDIST_FILE, tmp_path, indexes=[url])
    assert not (tmp_path / POCKETSPHINX_SDIST_FILE).exists()
    with pytest.raises(OSError, match="no index has pocketsphinx-5.1.1.tar.gz"):
        fetch_archive("pocketsphinx", POCKETSPHINX_SDIST_FILE, tmp_path, indexes=[url + "/nowhere"])
