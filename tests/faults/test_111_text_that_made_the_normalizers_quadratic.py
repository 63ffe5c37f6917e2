"""Case 111: a hypothesis that made a normalizer's regular expressions take time growing with its square.

A model caught in a loop can write a long run of one character.  Three of the
rules transformers' normalizers share (and asraudit's follow) were written as
regular expressions that, on such a run, try again from every character and
read to the end each time: ``\\s+'`` (a space before an apostrophe) on a run
of whitespace no apostrophe ends (the leaderboard normalizer: 100,000 spaces
took 8.7 s, 1,000,000 about 15 minutes; the Whisper one where an apostrophe
came first), and ``[<\\[][^>\\]]*[>\\]]`` and ``\\(([^)]+?)\\)`` (bracketed
spans) on a run of ``[``, ``<`` or ``(`` that nothing closes (40,000 took 5 to
9 s under every normalizer but ``none``; the compiled paths had their own
linear scan, the Python ones and the leaderboard's did not).

Now the apostrophe rule can start a match only where a whitespace run starts
(a lookbehind: its leftmost match always started there, so ``sub`` gives the
same output), and the bracket rules are applied only up to the last closing
character (no match can end after it).  The tests check the output against
the original patterns on varied strings and the mechanism that bounds the
work, without timing anything: the speed is in ``benchmarks/normalizer_hostile_runs.py``.
"""

from __future__ import annotations

import json
import random
import re

import pytest

from asraudit.text import leaderboard_english, symbols, whisper_english
from asraudit.text.normalize import NORMALIZERS, get_normalizer

# The rules as transformers writes them (and as asraudit applied them before).
ORIGINAL_APOSTROPHE = re.compile(r"\s+'")
ORIGINAL_BRACKETS = re.compile(r"[<\[][^>\]]*[>\]]")
ORIGINAL_PARENTHESES = re.compile(r"\(([^)]+?)\)")

ALPHABET = [" ", "  ", "\t", "\n", "\u00a0", "\u3000", "'", "[", "]", "<", ">", "(", ")", "a", "it", "s", "x",
            "'s", "'d been", "um", "1", "."]


def varied_strings(n: int = 600, seed: int = 111) -> list[str]:
    rng = random.Random(seed)
    return ["".join(rng.choice(ALPHABET) for _ in range(rng.randint(0, 30))) for _ in range(n)]


def test_the_rules_give_the_original_patterns_output():
    for s in varied_strings() + ["  'x", "a '", "[a[b] c", "(()", "()", "(a (b) c)", "<a] [b>", "[x", "(x"]:
        assert symbols.SPACE_BEFORE_APOSTROPHE.sub("'", s) == ORIGINAL_APOSTROPHE.sub("'", s), repr(s)
        assert symbols.remove_bracketed(s) == ORIGINAL_PARENTHESES.sub("", ORIGINAL_BRACKETS.sub("", s)), repr(s)


@pytest.mark.parametrize("module", [whisper_english, leaderboard_english], ids=["whisper", "leaderboard"])
def test_the_apostrophe_rule_starts_no_match_inside_a_whitespace_run(module):
    """What bounds its work: an attempt from inside a run fails at its first character (the original pattern
    matched from each of them, so each attempt read to the run's end)."""
    pattern = module.SPACE_BEFORE_APOSTROPHE
    s = "a" + " \t\u00a0" * 20 + "'s"
    assert pattern.match(s, 1).group() == s[1:-1]
    assert [p for p in range(2, len(s)) if pattern.match(s, p)] == []


def test_the_bracket_rules_never_see_an_opening_character_that_nothing_closes(monkeypatch):
    """What bounds their work: from such a character the pattern reads to the end of the string and fails, once
    per such character; the strings the patterns are given hold none."""
    seen = []

    class Spy:
        def __init__(self, pattern, closers):
            self.pattern, self.closers = pattern, closers

        def sub(self, repl, s):
            seen.append((s, self.closers))
            return self.pattern.sub(repl, s)

    monkeypatch.setattr(symbols, "BRACKETS", Spy(ORIGINAL_BRACKETS, "]>"))
    monkeypatch.setattr(symbols, "PARENTHESES", Spy(ORIGINAL_PARENTHESES, ")"))
    for s in ["[" * 500, "<" * 500, "(" * 500, "[a] " + "[" * 500, "(a) " + "(" * 500 + ")" + "(" * 500,
              "x [y] (z) " * 5 + "<[(" * 300]:
        seen.clear()
        out = symbols.remove_bracketed(s)
        assert out == ORIGINAL_PARENTHESES.sub("", ORIGINAL_BRACKETS.sub("", s))
        for given, closers in seen:
            last = max(given.rfind(c) for c in closers)
            openers = "[<" if closers == "]>" else "("
            assert not any(c in openers for c in given[last + 1:]), (s[:20], given[-20:])


HOSTILE = {
    "spaces": " " * 1_000_000,
    "tabs": "\t" * 200_000,
    "no-break spaces": "\u00a0" * 200_000,
    "an apostrophe, then spaces": " 'cat" + " " * 200_000 + "dog",
    "open brackets": "the [cat " + "[" * 200_000,
    "open angles": "<" * 200_000 + " the cat",
    "open parentheses": "the cat " + "(" * 200_000,
}


@pytest.mark.parametrize("name", [n for n in NORMALIZERS if n != "none"] + ["basic-fr"])
@pytest.mark.parametrize("case", HOSTILE, ids=list(HOSTILE))
def test_every_normalizer_finishes_a_long_run(name, case):
    out = get_normalizer(name)(HOSTILE[case])
    # The run is symbols or whitespace: it leaves no word behind (the brackets' text stays, unclosed).
    assert "[" not in out and "(" not in out and "<" not in out and "  " not in out
    if case.startswith("open"):
        assert out.split()[-2:] == ["the", "cat"] or out.split()[:2] == ["the", "cat"]
    elif case == "an apostrophe, then spaces":
        assert out.replace("'", "").split() == ["cat", "dog"]
    else:
        assert out == ""


def test_wer_under_the_leaderboard_scorer_scores_such_a_hypothesis(tmp_path, cli):
    pytest.importorskip("kaldialign")
    path = tmp_path / "m.jsonl"
    path.write_text(json.dumps({"audio_filepath": "c0", "text": "the cat sat",
                                "pred_text": "the cat sat" + " " * 500_000 + "[" * 100_000}) + "\n", encoding="utf-8")
    ran = cli("wer", "--preds", path, "--scorer", "leaderboard", "--json", tmp_path / "w.json")
    assert ran.code == 0, ran.err
    assert json.loads((tmp_path / "w.json").read_text(encoding="utf-8"))["models"]["m"]["wer"] == 0.0
