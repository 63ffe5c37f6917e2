"""A model cache filled by two processes at once keeps one finished copy and never deletes it under a reader."""

from pathlib import Path

from asraudit.data.paths import publish_dir


def _staged(parent: Path, name: str, content: str) -> Path:
    folder = parent / name
    folder.mkdir()
    (folder / "model.bin").write_text(content)
    return folder


def finished(folder: Path) -> bool:
    return (folder / "model.bin").is_file()


def test_the_first_finished_copy_stays_and_the_later_one_is_dropped(tmp_path):
    target = tmp_path / "cache" / "model"
    target.parent.mkdir()
    first, second = _staged(tmp_path, ".a", "first"), _staged(tmp_path, ".b", "second")
    assert publish_dir(first, target, finished) == target
    assert publish_dir(second, target, finished) == target
    assert (target / "model.bin").read_text() == "first"
    assert not first.exists() and not second.exists()


def test_a_stale_unfinished_target_is_replaced(tmp_path):
    target = tmp_path / "model"
    target.mkdir()
    (target / "partial").write_text("x")
    publish_dir(_staged(tmp_path, ".a", "new"), target, finished)
    assert (target / "model.bin").read_text() == "new" and not (target / "partial").exists()


def test_a_finished_target_is_never_removed_even_when_a_build_raced_it(tmp_path):
    target = tmp_path / "model"
    _staged(tmp_path, "theirs", "theirs").rename(target)  # another worker finished while we built
    seen = []

    def watching(folder: Path) -> bool:
        seen.append((folder / "model.bin").read_text())
        return finished(folder)

    ours = _staged(tmp_path, ".ours", "ours")
    publish_dir(ours, target, watching)
    assert (target / "model.bin").read_text() == "theirs" and seen == ["theirs"] and not ours.exists()
