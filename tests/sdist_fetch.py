"""Fetch one source archive from the package index pip is configured to use, building nothing.

``pip download --no-binary :all:`` resolves the archive's build requirements
and, on a machine without wheels for them, compiles them from source, only to
get a tarball whose test data the suite reads.  This module instead reads
pip's configured indexes (``PIP_INDEX_URL``/``PIP_EXTRA_INDEX_URL``, else
``pip config list``, else PyPI), looks the file up on each index's simple
page (PEP 503 HTML; ``file://`` indexes too), downloads it with urllib and
checks the sha256 the index gives.
"""

from __future__ import annotations

import hashlib
import html
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import urllib.parse
import urllib.request
from pathlib import Path

DEFAULT_INDEX = "https://pypi.org/simple"
POCKETSPHINX_SDIST_FILE = "pocketsphinx-5.1.1.tar.gz"
_ANCHOR = re.compile(r"""<a\s[^>]*href=["']([^"']+)["'][^>]*>([^<]+)</a>""", re.IGNORECASE)


def index_urls() -> list[str]:
    """pip's index URL then its extra index URLs, as pip itself would read them."""
    index = os.environ.get("PIP_INDEX_URL")
    extra = os.environ.get("PIP_EXTRA_INDEX_URL")
    if index is None or extra is None:
        try:
            listed = subprocess.run([sys.executable, "-m", "pip", "config", "list"], capture_output=True,
                                    text=True, timeout=60).stdout
        except (OSError, subprocess.SubprocessError):
            listed = ""
        config = dict(re.findall(r"^[\w:.-]*?\.?(index-url|extra-index-url)='([^']*)'", listed, re.MULTILINE))
        index = index if index is not None else config.get("index-url")
        extra = extra if extra is not None else config.get("extra-index-url", "")
    return [index or DEFAULT_INDEX, *extra.split()]


def _read(url: str, timeout: float) -> bytes:
    if url.startswith("file://"):
        path = Path(urllib.request.url2pathname(urllib.parse.urlparse(url).path))
        return (path / "index.html" if path.is_dir() else path).read_bytes()
    request = urllib.request.Request(url, headers={"Accept": "text/html", "User-Agent": "asraudit-tests"})
    with urllib.request.urlopen(request, timeout=timeout) as response:
        return response.read()


def find_archive(index: str, project: str, filename: str, timeout: float = 60) -> tuple[str, str | None]:
    """(URL, sha256 or None) of ``filename`` on ``index``'s simple page of ``project``; KeyError if absent."""
    page_url = index.rstrip("/") + f"/{project}/"
    page = _read(page_url, timeout).decode("utf-8", "replace")
    for href, text in _ANCHOR.findall(page):
        if html.unescape(text).strip() == filename:
            url, _, fragment = html.unescape(href).partition("#")
            sha = fragment.removeprefix("sha256=") if fragment.startswith("sha256=") else None
            return urllib.parse.urljoin(page_url, url), sha
    raise KeyError(f"{filename} is not on {page_url}")


def fetch_archive(project: str, filename: str, dest: Path, indexes: list[str] | None = None,
                  timeout: float = 120) -> Path:
    """Download ``filename`` into ``dest`` from the first index that has it; the sha256 must match.

    Raises OSError when no index has it (or none is reachable), ValueError on a wrong hash."""
    failures = []
    for index in indexes if indexes is not None else index_urls():
        try:
            url, sha = find_archive(index, project, filename, timeout)
        except (OSError, KeyError, ValueError) as exc:
            failures.append(f"{index}: {exc}")
            continue
        target = dest / filename
        digest = hashlib.sha256()
        if url.startswith("file://"):
            source = urllib.request.url2pathname(urllib.parse.urlparse(url).path)
            shutil.copyfile(source, target)
            digest.update(target.read_bytes())
        else:
            with urllib.request.urlopen(url, timeout=timeout) as response, target.open("wb") as fh:
                while block := response.read(1 << 20):
                    digest.update(block)
                    fh.write(block)
        if sha is not None and digest.hexdigest() != sha:
            target.unlink()
            raise ValueError(f"{url}: sha256 {digest.hexdigest()} does not match the index's {sha}")
        return target
    raise OSError(f"no index has {filename}: " + "; ".join(failures))


def fetch_pocketsphinx_test_data(target: Path, indexes: list[str] | None = None) -> None:
    """Fetch the sdist from pip's configured index (no build: see sdist_fetch) and unpack its
    test/data/{librivox,goforward.raw} into ``target`` atomically."""
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=target.parent) as tmp:
        sdist = fetch_archive("pocketsphinx", POCKETSPHINX_SDIST_FILE, Path(tmp), indexes)
        with tarfile.open(sdist) as archive:
            wanted = [m for m in archive.getmembers()
                      if re.match(r"[^/]+/test/data/(librivox/|goforward\.raw$)", m.name) and (m.isfile() or m.isdir())]
            if hasattr(tarfile, "data_filter"):
                archive.extractall(tmp, members=wanted, filter="data")
            else:
                archive.extractall(tmp, members=wanted)
        (data,) = Path(tmp).glob("*/test/data")
        try:
            os.replace(data, target)
        except OSError:
            if not (target / "librivox" / "fileids").is_file():  # not a concurrent run's finished copy
                raise
