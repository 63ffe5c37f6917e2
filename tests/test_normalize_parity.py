"""The fast normalizers against transformers' on 20,000 generated strings and the shared VoxPopuli text.

Parity is the contract of ``asraudit.text.whisper_english`` (see its
docstring for why per-token work is exact); these tests are the proof on
strings built to hit every rule, alone and run into each other.
"""

from __future__ import annotations

import json

import pytest

import asraudit.text.basic_normalizer as basic_normalizer
import asraudit.text.whisper_english as whisper_english
from asraudit.text.spelling import english_spelling_mapping
from asraudit.text.normalize import (
    get_normalizer,
    normalize_many,
    reference_normalizer,
    strip_format_characters,
)
from normalizer_strings import HANDMADE, generated, perturbed

english = pytest.importorskip("transformers.models.whisper.english_normalizer")

CORPUS = list(dict.fromkeys(HANDMADE + generated(20_000, seed=15)))


def _transformers(name: str):
    inner = english.EnglishTextNormalizer(english_spelling_mapping()) if name == "whisper" else english.BasicTextNormalizer()
    # asraudit removes format characters first (the one documented departure), then collapses spaces.
    return lambda s: " ".join(inner(strip_format_characters(s)).split())


def _mismatches(name: str, texts: list[str], ours=None) -> list[tuple[str, str, str]]:
    ours = ours or get_normalizer(name)
    theirs = _transformers(name)
    return [(s, ours(s), theirs(s)) for s in texts if ours(s) != theirs(s)]


def test_generated_corpus_is_large_and_distinct():
    assert len(CORPUS) >= 19_000


@pytest.mark.parametrize("name", ["whisper", "basic"])
def test_fast_normalizer_matches_transformers_on_generated_strings(name):
    bad = _mismatches(name, CORPUS)
    assert not bad, bad[:5]


def test_whisper_normalizer_matches_transformers_with_tiny_caches(monkeypatch):
    """The per-token tables are cleared when full; results must not depend on what they hold."""
    monkeypatch.setattr(whisper_english, "_CACHE_LIMIT", 7)
    fresh = whisper_english.EnglishNormalizer(english_spelling_mapping())
    bad = _mismatches("whisper", CORPUS[:3000], ours=lambda s: fresh(strip_format_characters(s)))
    assert not bad, bad[:5]


def test_basic_normalizer_matches_transformers_with_a_tiny_token_table(monkeypatch):
    """The token table is replaced when full; results must not depend on what it holds."""
    monkeypatch.setattr(basic_normalizer, "_CACHE_LIMIT", 7)
    fresh = basic_normalizer.BasicNormalizer()
    bad = _mismatches("basic", CORPUS[:3000], ours=lambda s: fresh(strip_format_characters(s)))
    assert not bad, bad[:5]


def test_reference_path_matches_transformers():
    bad = _mismatches("whisper", CORPUS[:2000], ours=reference_normalizer("whisper"))
    assert not bad, bad[:5]


def _shared_texts(folder) -> list[str]:
    texts = []
    for path in sorted(folder.glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            texts += [row["text"], row["pred_text"]]
    return list(dict.fromkeys(texts))


@pytest.mark.parametrize("name", ["whisper", "basic"])
def test_fast_normalizer_matches_transformers_on_voxpopuli(shared_predictions, name):
    real = _shared_texts(shared_predictions)
    texts = real + perturbed(real, 3000, seed=15)
    bad = _mismatches(name, texts)
    assert not bad, bad[:5]


@pytest.mark.parametrize("name", ["whisper", "basic", "none"])
def test_normalize_many_equals_one_at_a_time(name):
    texts = CORPUS[:2500]
    one = get_normalizer(name)
    expected = [one(s) for s in texts]
    assert normalize_many(texts, name, workers=1) == expected
    assert normalize_many(texts, name, workers=2, threshold=100) == expected  # through the process pool


def test_normalize_many_of_nothing():
    assert normalize_many([], "whisper", workers=2, threshold=0) == []


def test_one_normalizer_shared_by_threads_with_tiny_caches(monkeypatch):
    """Tables are replaced, never cleared in place, so a call in another thread never loses a token."""
    from concurrent.futures import ThreadPoolExecutor

    monkeypatch.setattr(whisper_english, "_CACHE_LIMIT", 5)
    shared = whisper_english.EnglishNormalizer(english_spelling_mapping())
    texts = CORPUS[:1500]
    expected = [get_normalizer("whisper")(s) for s in texts]
    with ThreadPoolExecutor(4) as pool:
        got = list(pool.map(lambda s: shared(strip_format_characters(s)), texts * 2))
    assert got == expected * 2


def test_the_cross_token_test_fires_where_its_plain_spelling_fires():
    """``CROSS_TOKEN`` is written apostrophe-first for speed; it must fire on exactly the strings the plain
    alternation (whitespace, "mm"/"mhm"/"uh"/"um", or a perfect tense around an apostrophe) fires on."""
    import random
    import re

    plain = re.compile(r"\s'|(?:mm|mhm|uh|um)'|'[sd] (?:been|gone|done|got)")
    rng = random.Random(3)
    pieces = ["'", "'", " ", "\t", "\u3000", "mm", "hmm", "mhm", "uh", "um", "m", "h", "s", "d", "'s been", "'d gone",
              "'s got", "'d done", "been", "x", "a'", "’"]
    texts = CORPUS + ["".join(rng.choices(pieces, k=rng.randint(1, 8))) for _ in range(20_000)]
    assert sum(bool(plain.search(s.lower())) for s in texts) > 2_000  # both outcomes are well represented
    assert [s for s in texts if bool(whisper_english.CROSS_TOKEN.search(s.lower())) != bool(plain.search(s.lower()))] == []
