"""The JSONL loader a block at a time changes nothing but the time: rows, order, skipped count and every
error (message, file, row, the byte named) are those of the generic path, ``_kept_rows(_checked_rows(...))``,
at any block size; and the bulk shortcut is really taken, so the comparison is not with itself."""

from __future__ import annotations

import json
import random

import pytest

from asraudit.data import prediction_blocks, predictions
from asraudit.data.jsonl_blocks import jsonl_blocks
from asraudit.errors import InputError

_PLAIN = [json.dumps({"audio_filepath": f"c{i}", "text": f"ref {i}", "pred_text": f"hyp {i}"}) for i in range(12)]
# The leaderboard's layout: a duration, which a block takes in bulk when every one is a finite number >= 0.
_TIMED = [json.dumps({"audio_filepath": f"t{i}", "text": f"ref {i}", "pred_text": f"hyp {i}", "duration": d})
          for i, d in enumerate([1.5, 2, 0, 0.25, 3.75, 10, 7.125, 1e-3])]
_BAD_TIMES = [
    '{"audio_filepath": "u1", "text": "x", "pred_text": "y", "duration": -1}',
    '{"audio_filepath": "u2", "text": "x", "pred_text": "y", "duration": -0.0}',
    '{"audio_filepath": "u3", "text": "x", "pred_text": "y", "duration": NaN}',
    '{"audio_filepath": "u4", "text": "x", "pred_text": "y", "duration": 1e400}',
    '{"audio_filepath": "u5", "text": "x", "pred_text": "y", "duration": "2.5"}',
    '{"audio_filepath": "u6", "text": "x", "pred_text": "y", "duration": ""}',
    '{"audio_filepath": "u7", "text": "x", "pred_text": "y", "duration": null}',
    '{"audio_filepath": "u8", "text": "x", "pred_text": "y", "duration": true}',
    '{"audio_filepath": "u9", "text": "x", "pred_text": "y", "duration": ' + "9" * 400 + '}',
    '{"audio_filepath": "u10", "text": "x", "pred_text": null, "duration": 1}',
    '{"audio_filepath": "u11", "text": "x", "pred_text": "y", "wer": 1}',
    '{"duration": 4, "pred_text": "y", "text": "x", "audio_filepath": "u12"}',
]
_ODD = [
    '{"audio_filepath": "c0", "text": "again", "pred_text": "dup"}',  # a duplicate of a plain row
    '{"id": "i", "reference": "x", "hypothesis": "y"}',  # another plain layout
    '{"text": "x", "pred_text": "y", "audio_filepath": "k"}',  # the same columns in another order
    '{"id": "j", "ref": "x", "hyp": "y", "extra": 1}',  # four columns
    '{"audio_filepath": "d", "text": "x", "pred_text": "y", "duration": 1.5}',
    '{"audio_filepath": "e", "text": "x", "pred_text": "y", "duration": -1}',
    '{"audio_filepath": 7, "text": "x", "pred_text": "y"}',
    '{"audio_filepath": 7.0, "text": "x", "pred_text": "y"}',  # the id "7" too
    '{"audio_filepath": "cr", "text": "x",\r"pred_text": "y"}',  # a CR between tokens: whitespace
    '{"audio_filepath": "v", "text": "x", "pred_text": "y"}\r{"audio_filepath": "w", "text": "x", "pred_text": "y"}',
    '{"audio_filepath": "  ", "text": "x", "pred_text": "y"}',
    '{"audio_filepath": "f", "text": null, "pred_text": "y"}',
    '{"audio_filepath": "g", "text": "x", "pred_text": null}',  # no hypothesis: counted, not kept
    '{"audio_filepath": "h", "text": "x", "pred_text": NaN}',
    '{"audio_filepath": "l", "pred_text": "y", "other": "z"}',
    '{"audio_filepath": "m", "text": "caf\u00e9 \u2028 x", "pred_text": "y\u0085"}',
    '  {"audio_filepath": "n", "text": "x", "pred_text": "y"}  \r',
    '{"audio_filepath": "o", "text": "x", "pred_text": "y"} trailing',
    '{"audio_filepath": "p", "text": "x", "pred_text": ',
    '{"audio_filepath": "q",',  # an object over two lines: broken on each
    ' "text": "x", "pred_text": "y"}',
    "[1, 2]",
    '"a string"',
    "",
    "   ",
    "\r",
]


def _outcome(load, path):
    try:
        rows, skipped = load(path)
    except InputError as exc:
        return "error", str(exc), exc.row
    except Exception as exc:  # what the generic path lets through (a duration too large for a float)
        return "error", repr(exc), None
    return [(k, type(p), p) for k, p in rows.items()], skipped


def _generic(path):
    return predictions._kept_rows(predictions._checked_rows(path, predictions._prediction), path)


def _random_file(rng: random.Random) -> bytes:
    pool = rng.choice([_PLAIN, _PLAIN, _TIMED, _TIMED + _BAD_TIMES, _PLAIN + _ODD])  # most in bulk
    lines = [rng.choice(pool) for _ in range(rng.randint(0, 14))]
    if pool is _PLAIN or pool is _TIMED:
        lines = list(dict.fromkeys(lines))  # no duplicate ids
        for _ in range(rng.choice([0, 0, 1, 3])):
            lines.insert(rng.randint(0, len(lines)), "")  # empty lines, skipped
    raw = "\n".join(lines).encode("utf-8")
    if rng.random() < 0.3:
        raw = raw.replace(b"\n", b"\r\n")
    raw += rng.choice([b"\n", b"", b"\r\n", b"\n\n"])
    if rng.random() < 0.1:
        raw = b"\xef\xbb\xbf" + raw  # a BOM, dropped on line 1 only
    if rng.random() < 0.05 and raw:
        at = rng.randrange(len(raw))
        raw = raw[:at] + b"\xef\xbb\xbf" + raw[at:]  # a BOM elsewhere
    if rng.random() < 0.08 and raw:
        at = rng.randrange(len(raw))
        raw = raw[:at] + rng.choice([b"\xff", b"\xc3", b"\xe2\x80"]) + raw[at:]  # not UTF-8
    return raw


def test_blocks_of_any_size_load_what_the_generic_path_loads(tmp_path, monkeypatch):
    taken = []
    add_plain = prediction_blocks._add_plain

    def counted(*args):
        taken.append(add_plain(*args))
        return taken[-1]

    monkeypatch.setattr(prediction_blocks, "_add_plain", counted)
    rng = random.Random(15)
    kinds = set()
    for n in range(1500):
        raw = _random_file(rng)
        path = tmp_path / f"m{n}.jsonl"
        path.write_bytes(raw)
        want = _outcome(_generic, path)
        for block_bytes in (1, 7, 60, 200, 1 << 20):
            assert _outcome(lambda p: prediction_blocks.jsonl_predictions(p, block_bytes), path) == want, (raw, block_bytes)
        kinds.add(want[0] if want[0] == "error" else "rows")
    assert kinds == {"error", "rows"}
    assert taken.count(True) > 1000 and taken.count(False) > 100  # the shortcut taken, and refused


@pytest.mark.parametrize("raw, message", [
    (b'{"id": "1", "text": "a", "pred_text": "a"}\n{"id": "2", "text": "caf\xe9", "pred_text": "a"}\n',
     "row 2: not valid UTF-8 (byte 0xe9 at offset 67)"),
    (b'\xef\xbb\xbf{"id": "1", "text": "a", "pred_text": "a"}\r\n\r\n{"id": "1", "text": "b", "pred_text": "c"}\r\n',
     "row 3: duplicate clip id '1' (first seen at row 1)"),
    (b'{"id": "1", "text": "a", "pred_text": "a"}\n\xef\xbb\xbf{"id": "2", "text": "a", "pred_text": "a"}\n',
     "row 2: a byte-order mark (bytes EF BB BF) starts this row"),  # case 320
    (b'{"id": "1", "text": "a", "pred_text": "a"}\n{"id": "1", "text": "a", "pred_text": "b"}\n{"id": "2",\n',
     "row 2: duplicate clip id '1' (first seen at row 1)"),  # the row's error before the broken line after it
    ('{"id": "1", "text": "a", "pred_text": "a"}\n'.encode("utf-16"), "UTF-16 text"),
])
def test_errors_name_the_same_row_and_byte_at_any_block_size(tmp_path, raw, message):
    path = tmp_path / "m.jsonl"
    path.write_bytes(raw)
    want = _outcome(_generic, path)
    assert want[0] == "error" and message in want[1]
    for block_bytes in (1, 30, 50, 1 << 20):
        assert _outcome(lambda p: prediction_blocks.jsonl_predictions(p, block_bytes), path) == want


def test_rows_without_a_hypothesis_are_counted_in_blocks(tmp_path):
    lines = _PLAIN[:5] + ['{"audio_filepath": "g", "text": "x", "pred_text": null}'] + _PLAIN[5:]
    path = tmp_path / "m.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    for block_bytes in (1, 100, 1 << 20):
        rows, skipped = prediction_blocks.jsonl_predictions(path, block_bytes)
        assert (rows, skipped) == _generic(path) and skipped == 1 and list(rows) == [f"c{i}" for i in range(12)]


def test_blocks_hold_the_file_in_whole_lines(tmp_path):
    rng = random.Random(3)
    for n in range(300):
        raw = _random_file(rng) + rng.choice([b"", b"x" * rng.randint(1, 50)])  # a last line without "\n"
        path = tmp_path / f"m{n}.jsonl"
        path.write_bytes(raw)
        block_bytes = rng.choice([1, 5, 40, 1 << 20])
        blocks = list(jsonl_blocks(path, block_bytes))
        assert b"".join(b.data for b in blocks) == raw
        line, offset = 1, 0
        for b in blocks:
            assert (b.first_line, b.offset) == (line, offset) and b.data
            assert b.data.endswith(b"\n") or b is blocks[-1]
            line += b.data.count(b"\n")
            offset += len(b.data)


def test_a_block_taken_whole_gives_the_per_line_objects(tmp_path):
    rng = random.Random(4)
    whole = 0
    for n in range(400):
        raw = _random_file(rng)
        path = tmp_path / f"m{n}.jsonl"
        path.write_bytes(raw)
        for b in jsonl_blocks(path, rng.choice([1, 60, 1 << 20])):
            parsed = b.objects()
            if parsed is None:
                continue
            whole += 1
            numbers, objects = parsed
            per_line = list(b.rows())
            assert [lineno for lineno, _ in per_line] == list(numbers)
            assert [rec for _, rec in per_line] == objects
            assert [list(rec) for _, rec in per_line] == [list(rec) for rec in objects]  # key order too
    assert whole > 200


def test_a_bom_crlf_line_ends_and_empty_lines_keep_a_file_in_bulk(tmp_path):
    path = tmp_path / "m.jsonl"
    path.write_bytes(b"\xef\xbb\xbf" + "\r\n".join(_PLAIN[:6] + [""] + _PLAIN[6:]).encode("utf-8") + b"\r\n\r\n")
    (block,) = jsonl_blocks(path)
    numbers, objects = block.objects()
    assert list(numbers) == [1, 2, 3, 4, 5, 6, 8, 9, 10, 11, 12, 13]
    assert objects == [json.loads(line) for line in _PLAIN]
    rows = {}
    assert prediction_blocks._add_plain(numbers, objects, rows, {})
    assert (rows, 0) == _generic(path) and [p.row for p in rows.values()] == list(numbers)


def test_a_set_keeps_one_copy_of_each_reference_and_loads_what_each_file_loads(tmp_path):
    for m, hyp in (("a", "one too"), ("b", "one two")):
        rows = [{"audio_filepath": f"c{i}", "text": f"ref {i}", "pred_text": f"{hyp} {i}"} for i in range(5)]
        (tmp_path / f"{m}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    for pset in (predictions.load_predictions(tmp_path),
                 predictions.load_named_predictions({m: tmp_path / f"{m}.jsonl" for m in "ab"})):
        a, b = pset.models["a"], pset.models["b"]
        assert all(a[c].reference is b[c].reference for c in a.rows)
        for m in "ab":
            alone = predictions.load_prediction_file(tmp_path / f"{m}.jsonl")
            assert pset.models[m].rows == alone.rows and list(pset.models[m].rows) == list(alone.rows)


def test_the_leaderboard_layout_with_durations_goes_in_bulk(tmp_path):
    path = tmp_path / "m.jsonl"
    path.write_text("\n".join(_TIMED) + "\n", encoding="utf-8")
    (block,) = jsonl_blocks(path)
    rows = {}
    assert prediction_blocks._add_plain(*block.objects(), rows, {})
    assert (rows, 0) == _generic(path)
    assert [p.duration for p in rows.values()] == [1.5, 2.0, 0.0, 0.25, 3.75, 10.0, 7.125, 1e-3]
    assert all(type(p.duration) is float for p in rows.values())


def test_a_bad_duration_is_reported_at_its_row_before_a_later_one_too_large_for_a_float(tmp_path):
    path = tmp_path / "m.jsonl"
    path.write_text("\n".join([_TIMED[0], _BAD_TIMES[0], _BAD_TIMES[8]]) + "\n", encoding="utf-8")
    want = _outcome(_generic, path)
    assert want[0] == "error" and "row 2: duration must be a non-negative" in want[1]
    assert _outcome(prediction_blocks.jsonl_predictions, path) == want
