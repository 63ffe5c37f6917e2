"""A JSONL prediction file scored by worker processes gives what one process gives, errors included."""

from __future__ import annotations

import json

import numpy as np
import pytest

from asraudit.errors import InputError
from asraudit.metrics.model_wer import BoundedCache, stream_file
from asraudit.metrics.stream_rows import plan_ranges
from asraudit.text.normalize import get_normalizer

# Tiny ranges, so a small file spans many workers' tasks and every range edge is exercised.
PARALLEL = dict(workers=2, min_parallel_bytes=0, chunk_bytes=700)
SERIAL = dict(workers=1)


def _rows(n: int) -> list[str]:
    out = []
    for i in range(n):
        row = {"audio_filepath": f"clip-{i}", "text": f"Mr. Smith paid ${i}.50 on the {i}th, colour {i % 7}",
               "pred_text": f"mister smith paid {i} dollars on the {i}th color"}
        if i % 11 == 3:
            row["pred_text"] = None  # the model did not run this clip
        if i % 13 == 5:
            row["text"] = "(laughs)"  # empty once normalized
        out.append(json.dumps(row, ensure_ascii=i % 2 == 0))
    return out


def _write(tmp_path, lines: list[str], end: str = "\n", bom: bool = False):
    path = tmp_path / "model.jsonl"
    path.write_bytes(("\ufeff" if bom else "").encode() + (("\n".join(lines)) + end).encode("utf-8"))
    return path


def _same(a, b):
    for name in ("clip_hash", "ref_hash", "rows", "counts"):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name))
    assert a.skipped_missing_hypothesis == b.skipped_missing_hypothesis
    assert a.empty_reference_clips == b.empty_reference_clips


@pytest.mark.parametrize("end", ["\n", ""])
def test_parallel_scoring_equals_one_process(tmp_path, end):
    lines = _rows(300)
    lines[40:40] = ["", "   "]  # blank lines still count as lines
    path = _write(tmp_path, lines, end=end, bom=True)
    normalize = BoundedCache(get_normalizer("whisper"))
    assert len(plan_ranges(path, 700)) > 10
    _same(stream_file(path, normalize, **PARALLEL), stream_file(path, normalize, **SERIAL))


def _error(path, **kw) -> str:
    with pytest.raises(InputError) as exc:
        stream_file(path, BoundedCache(get_normalizer("whisper")), **kw)
    return str(exc.value)


def test_the_first_bad_row_is_reported_the_same(tmp_path):
    lines = _rows(200)
    lines[150] = '{"audio_filepath": "x", "text": "a"'  # broken JSON, late in the file
    lines[170] = "[1, 2]"
    path = _write(tmp_path, lines)
    serial = _error(path, **SERIAL)
    assert "row 151" in serial
    assert _error(path, **PARALLEL) == serial


def test_bad_utf8_offset_is_the_same(tmp_path):
    path = _write(tmp_path, _rows(120))
    data = path.read_bytes()
    cut = data.index(b"clip-90")
    path.write_bytes(data[:cut] + b"\xff" + data[cut:])
    serial = _error(path, **SERIAL)
    assert "offset" in serial
    assert _error(path, **PARALLEL) == serial


def test_duplicate_clip_across_ranges_is_found(tmp_path):
    lines = _rows(200)
    lines[190] = lines[2]
    path = _write(tmp_path, lines)
    serial = _error(path, **SERIAL)
    assert "duplicate clip id" in serial
    assert _error(path, **PARALLEL) == serial


def test_a_closure_normalizer_is_scored_in_process(tmp_path):
    path = _write(tmp_path, _rows(50))
    plain = get_normalizer("basic")
    _same(stream_file(path, lambda s: plain(s), **PARALLEL), stream_file(path, plain, **SERIAL))


def _odd_rows() -> list[str]:
    """Rows the workers' plain-row reader must hand to the checked path, mixed with plain ones."""
    lines = _rows(120)
    lines[3] = json.dumps({"audio_filepath": "d-float", "text": "a b", "pred_text": "a", "duration": 2.5})
    lines[9] = json.dumps({"audio_filepath": "d-int", "text": "a b", "pred_text": "a", "duration": 3})
    lines[17] = json.dumps({"audio_filepath": "d-text", "text": "a b", "pred_text": "b", "duration": "4.5"})
    lines[25] = json.dumps({"audio_filepath": "d-empty", "text": "a b", "pred_text": "b", "duration": ""})
    lines[33] = json.dumps({"audio_filepath": "d-none", "text": "a b", "pred_text": "b", "duration": None})
    lines[41] = json.dumps({"id": 41, "reference": "one two", "hypothesis": "one"})  # a number as id
    lines[49] = json.dumps({"id": "nan-hyp", "reference": "one two", "hypothesis": float("nan")})
    lines[57] = '  {"id": "spaced", "text": "x y", "pred_text": "x"}  \r'  # whitespace around, a CR
    lines[65] = '{"id": "nested", "meta": {"a": {"b": 1}}, "text": "x: y", "pred_text": "y"}'  # parsed again: no key twice
    lines[73] = json.dumps({"id": "no-hyp", "text": "x y"})[:-1] + ', "hyp": null}'
    lines[81] = json.dumps({"clip_id": "uni", "text": "Café ½ — ok", "pred_text": "cafe half ok"}, ensure_ascii=False)
    return lines


def test_odd_but_valid_rows_are_scored_as_one_process_scores_them(tmp_path):
    path = _write(tmp_path, _odd_rows(), bom=True)
    normalize = BoundedCache(get_normalizer("whisper"))
    _same(stream_file(path, normalize, **PARALLEL), stream_file(path, normalize, **SERIAL))


@pytest.mark.parametrize("bad", [
    '{"audio_filepath": "x", "text": "a", "pred_text":',  # broken at the end of the line
    '{"audio_filepath": "x", "text": "a", "pred_text": "b"} {}',  # two values
    '"just a string"',
    '\ufeff{"audio_filepath": "x", "text": "a", "pred_text": "b"}',  # a BOM after line 1
    '{"audio_filepath": "x", "text": "a", "pred_text": "b", "duration": -1.0}',
    '{"audio_filepath": "x", "text": "a", "pred_text": "b", "duration": NaN}',
    '{"audio_filepath": "x", "text": "a", "pred_text": "b", "duration": true}',  # not one second
    '{"audio_filepath": "x", "text": "a", "pred_text": "b", "text": "c"}',  # a key twice
    '{"audio_filepath": " ", "text": "a", "pred_text": "b"}',
    '{"audio_filepath": "x", "text": 5, "pred_text": "b"}',
    '{"audio_filepath": "x", "pred_text": "b"}',
])
def test_a_bad_row_among_odd_ones_is_reported_the_same(tmp_path, bad):
    lines = _odd_rows()
    lines[100] = bad
    serial = _error(_write(tmp_path, lines), **SERIAL)
    assert "row 101" in serial
    assert _error(_write(tmp_path, lines), **PARALLEL) == serial
