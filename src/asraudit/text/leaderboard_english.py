"""The Open ASR Leaderboard's English normalizer, as its scoring documents it.

The leaderboard (huggingface/open_asr_leaderboard, ``normalizer/``) started
from Whisper's ``EnglishTextNormalizer`` and has since diverged from it.
Scores computed with Whisper's normalizer therefore differ from the
leaderboard's by a few tenths of a point, which is the size of the effects
an audit looks for.  This module is written here from the leaderboard's
documented steps, in its order; what differs from Whisper's normalizer:

- Fillers and hesitations are removed as *families* with any elongation
  ("uhhh", "ummm", "hmmm", "erm", "ahem", "mhm", "tsk", ...), not only the
  six literal words Whisper drops.  A hyphenated pair whose second half is
  not a filler ("ah-ha") is removed as a whole.
- Clock times are canonical before numbers are read: "half past four",
  "quarter to five", "ten o'clock", "4:00" become ``4:30``, ``4:45``,
  ``10:00`` and ``4``.
- "'s" becomes "is" only after a pronoun or question word ("it's", "that's",
  "who's", ...); elsewhere it is a possessive and stays ("John's").
- A period not followed by a digit is removed (Whisper keeps a trailing one
  as a token "." at the end of a string).
- A few spaced compounds are joined after punctuation is gone ("wi fi",
  "e mail", "all right", "o k" -> "wifi", "email", "alright", "okay").
- The spelling table is Whisper's with the leaderboard's changes:
  "ok"/"kay" -> "okay", "etcetera" -> "etc", and a few entries corrected
  (Whisper maps "archaeology" to "archeology</span>" and "cancelation" to the
  British "cancellation"; the leaderboard maps "archaeology" to "archeology"
  and "cancellation" to "cancelation").
- Name spelling variants fold to one spelling ("Stephen" -> "steven",
  "Jon" -> "john", "MacDonald" -> "mcdonald"), token by token after the
  spelling table.
- Runs of single letters or digits are joined into one token (acronyms:
  "b b c" -> "bbc", "u.s.a." -> "usa", "5 g" -> "5g"); a run that holds the
  words "a" or "i" needs three tokens, so "a big cat" is untouched.

- "oh" is a zero only inside a run of digits ("four oh one" -> ``401``,
  "oh seven nine eight" -> ``0798``); elsewhere it is the interjection and
  stays a word ("oh my", "room oh five" -> ``room oh 5``).  Whisper reads
  every "oh" as ``0``.

The leaderboard's tables (names, spelling changes) are data, transcribed in
``text/data/leaderboard_english.toml`` with their source and licence.
"""

from __future__ import annotations

import re
import sys
import tomllib
from functools import lru_cache
from importlib import resources
from typing import Iterator, Sequence

from whisper_normalizer.english import EnglishNumberNormalizer

from asraudit.text.spelling import english_spelling_mapping
from asraudit.text.symbols import SPACE_BEFORE_APOSTROPHE, remove_bracketed, remove_symbols_and_diacritics

# Hesitation families, each with any elongation.  "\b" on both sides (added below) keeps a
# short family from eating the start of a real word; "ah-ha" comes first, since "ha" alone
# is a word and would otherwise survive the removal of "ah".
_FILLERS = (
    "ah-ha", "a+h+m*", "a+h+a+", "e+h+m*", "e+m+", "e+r+m*", "h+a+h+", "h+e+h+", "h+m+", "h+u+h+",
    "m{2,}", "m+h+m*", "t+s+k+", "u+g+h+", "u+h+m*", "u+h+u+[hm]*", "u+m+h*",
    "ahem", "eheh", "ehehe", "ehr", "hmmph", "hum", "hunh", "mhum", "mmkay",
)
FILLERS = re.compile(r"\b(?:" + "|".join(_FILLERS) + r")\b")

# Whole-word rewrites shared with Whisper's normalizer, in the order they are applied.
_CONTRACTIONS = (
    ("won't", "will not"), ("can't", "can not"), ("let's", "let us"), ("ain't", "aint"),
    ("y'all", "you all"), ("wanna", "want to"), ("gotta", "got to"), ("gonna", "going to"),
    ("i'ma", "i am going to"), ("imma", "i am going to"), ("woulda", "would have"),
    ("coulda", "could have"), ("shoulda", "should have"), ("ma'am", "madam"),
)
_TITLES = (
    ("mr", "mister"), ("mrs", "missus"), ("st", "saint"), ("dr", "doctor"), ("prof", "professor"),
    ("capt", "captain"), ("gov", "governor"), ("ald", "alderman"), ("gen", "general"), ("sen", "senator"),
    ("rep", "representative"), ("pres", "president"), ("rev", "reverend"), ("hon", "honorable"),
    ("asst", "assistant"), ("assoc", "associate"), ("lt", "lieutenant"), ("col", "colonel"),
    ("jr", "junior"), ("sr", "senior"), ("esq", "esquire"),
)
_PERFECT = (("'d been", "had been"), ("'s been", "has been"), ("'d gone", "had gone"),
            ("'s gone", "has gone"), ("'d done", "had done"), ("'s got", "has got"))
# "'s" is "is" only after these words; after a name or noun it is a possessive.
_IS_AFTER = ("it", "he", "she", "what", "that", "who", "here", "there", "how", "when", "where", "why", "this")
_BEFORE_IS = (("n't", "not"), ("'re", "are"))
_AFTER_IS = (("'d", "would"), ("'ll", "will"), ("'t", "not"), ("'ve", "have"), ("'m", "am"))


def _rewrites() -> list[tuple[re.Pattern, str]]:
    suffix = lambda pairs: [(re.compile(rf"{re.escape(a)}\b"), " " + b) for a, b in pairs]  # noqa: E731
    return ([(re.compile(rf"\b{re.escape(a)}\b"), b) for a, b in _CONTRACTIONS]
            + [(re.compile(rf"\b{a}\b"), b + " ") for a, b in _TITLES]
            + suffix(_PERFECT)
            + suffix(_BEFORE_IS)
            + [(re.compile(r"\b(" + "|".join(_IS_AFTER) + r")'s\b"), r"\1 is")]
            + suffix(_AFTER_IS))


REWRITES = _rewrites()

# Spaced compounds joined once punctuation (hyphens included) is gone; the key is the words.
_COMPOUNDS = (
    (("et", "cetera"), "etc"), (("al", "right"), "alright"), (("all", "right"), "alright"),
    (("how", "ever"), "however"), (("wi", "fi"), "wifi"), (("hi", "fi"), "hifi"), (("lo", "fi"), "lofi"),
    (("sci", "fi"), "scifi"), (("e", "mail"), "email"), (("e", "book"), "ebook"),
    (("e", "commerce"), "ecommerce"), (("x", "ray"), "xray"), (("t", "shirt"), "tshirt"),
    (("a", "m"), "am"), (("p", "m"), "pm"), (("o", "k"), "okay"),
)
COMPOUNDS = [(re.compile(r"\b" + r"\s+".join(words) + r"\b"), joined) for words, joined in _COMPOUNDS]
# Elongated "oh" ("ohh", "oooh") is one word.
OH = re.compile(r"\b(?:o+h+|ooo+)\b")

DIGIT_COMMA = re.compile(r"(\d),(\d)")
LONE_PERIOD = re.compile(r"\.(?![0-9])")
LONE_CURRENCY = re.compile(r"[.$¢€£](?![0-9])")
LONE_PERCENT = re.compile(r"(?<![0-9])%")
NUMERIC = re.compile(r"^\d+(\.\d+)?$")  # an arabic number as Whisper's reader recognises one
DIGITS = re.compile(r"^\d+$")  # a digit string that carries an "oh" on as a zero


def _unreadable(word: str) -> bool:
    """A word with a run of more digits than ``int`` reads (``sys.get_int_max_str_digits``, 4,300 by default)."""
    limit = sys.get_int_max_str_digits()
    return bool(limit) and len(word) > limit and any(len(run) > limit for run in re.findall(r"\d+", word))


class LeaderboardNumbers(EnglishNumberNormalizer):
    """Whisper's number reader, except that "oh" is a zero only inside a run of digits.

    The leaderboard reads "oh" as a digit only when the digits go on after it
    and either a number is already being read ("four oh one", "nineteen oh
    five") or two more digits follow ("oh seven nine eight"); otherwise it is
    the interjection and stays a word ("oh my", "oh oh", "room oh five").
    Whisper reads every "oh" as 0.  "o" and "zero" are unchanged.

    Whisper's reader is a state machine whose pending number is internal, so
    the words are split at each "oh" that stays a word: the words before it
    are read by Whisper's reader with a "0" in the oh's place (a following
    digit string looks the same as "oh" to every rule that peeks ahead, and it
    flushes the pending number as the leaderboard does), that final "0" is
    replaced by the word, and the reading starts afresh after it, as the
    leaderboard's does."""

    def process_words(self, words: list[str]) -> Iterator[str]:
        """Whisper's reading with the leaderboard's "oh"; a word holding more digits than Python reads as a
        number (a model caught in a loop of digits) is written as it is and the reading starts afresh after it:
        the reader asserts on it, and one hypothesis stopped a whole score."""
        start = 0
        for i, word in enumerate(words):
            if _unreadable(word):
                yield from self._with_spoken_ohs(words[start:i])
                yield word
                start = i + 1
        yield from self._with_spoken_ohs(words[start:])

    def _with_spoken_ohs(self, words: list[str]) -> Iterator[str]:
        start = 0
        for i in self.spoken_ohs(words):
            out = list(super().process_words(words[start:i] + ["0"]))
            last = out.pop()[:-1]  # the "0" put in the oh's place, after a sign or a pending decimal
            if last and last not in self.prefixes:  # "point oh": the pending "1." is written before the word
                out += [last, "oh"]
            else:
                out.append(last + "oh")  # a sign the oh took ("plus oh" -> "+oh"), as the leaderboard's
            yield from out
            start = i + 1
        yield from super().process_words(words[start:])

    def _digit(self, token: str | None) -> bool:
        return token is not None and (DIGITS.match(token) is not None or token in self.zeros
                                      or token in self.ones or token in self.tens)

    def spoken_ohs(self, words: Sequence[str]) -> list[int]:
        """Positions of the "oh"s that stay words: Whisper's reader walked token by token, tracking only
        whether a number is pending (what each branch does to it), to decide each "oh"."""
        ohs, pending, skip = [], False, False
        for i, cur in enumerate(words):
            if skip:
                skip = False
                continue
            nxt = words[i + 1] if i + 1 < len(words) else None
            numeric_next = nxt is not None and NUMERIC.match(nxt) is not None
            bare = cur[1:] if cur[0] in self.prefixes else cur
            if NUMERIC.match(bare):
                pending = True
            elif cur not in self.words:
                pending = False
            elif cur in self.zeros:
                after = words[i + 2] if i + 2 < len(words) else None
                in_number = self._digit(nxt) and (pending or self._digit(after))
                if cur == "oh" and not in_number:
                    ohs.append(i)
                    pending = False
                else:
                    pending = True
            elif cur in self.ones or cur in self.tens or cur in self.multipliers:
                pending = True
            elif cur in self.specials:
                if nxt not in self.words and not numeric_next:
                    pending = False
                elif cur == "and":
                    pending = pending if i and words[i - 1] in self.multipliers else False
                elif cur in ("double", "triple"):
                    skip = nxt in self.ones or nxt in self.zeros
                    pending = skip
                elif nxt in self.decimals or numeric_next:  # "point" before a digit
                    pending = True
            else:  # suffixed numbers, signs, currencies, "per cent" and "percent": each writes its number out
                skip = cur in self.suffixers and isinstance(self.suffixers[cur], dict) and pending \
                    and nxt in self.suffixers[cur]
                pending = False
        return ohs


class ClockTimes:
    """Clock expressions to ``H:MM`` (or ``H`` on the hour), before numbers are read.

    Spoken and written times otherwise normalize to different tokens ("half
    past four" vs "4:30"), which the leaderboard counts as equal."""

    def __init__(self, numbers):
        self.numbers = numbers
        units = "|".join(w for w, v in numbers.ones.items() if v < 10)
        teens = "|".join(numbers.ones)
        number = rf"(?:[0-9]{{1,2}}|(?:twenty|thirty|forty|fifty)(?:[\s-]+(?:{units}))?|{teens}|zero)"
        clock = r"o\s*['\u2019]?\s*clock"
        self.relative = re.compile(
            rf"(?<![\w.:])(?P<amount>half|(?:a\s+)?quarter|{number}\s+minutes?)"
            rf"\s+(?P<relation>past|after|to|before)\s+(?P<hour>{number})(?:\s+{clock})?\b")
        self.on_the_hour = re.compile(rf"(?<![\w.:])(?P<hour>{number})\s+{clock}\b")
        self.digits = re.compile(r"(?<![\w:./])(?P<hour>[01]?[0-9]|2[0-3]):(?P<minute>[0-5][0-9])(?![\w:]|\.[0-9])")

    def _value(self, words: str) -> int:
        read = self.numbers(words.replace("-", " ")).strip()
        return 1 if read == "one" else int(read)

    def _relative(self, m: re.Match) -> str:
        hour = self._value(m["hour"])
        amount = m["amount"]
        if amount == "half":
            minute = 30
        elif amount.endswith("quarter"):
            minute = 15
        else:
            minute = self._value(re.sub(r"\s+minutes?$", "", amount))
        if not (0 <= hour <= 23 and 0 <= minute < 60):
            return m.group()
        if minute and m["relation"] in ("to", "before"):  # "quarter to five" is 4:45, "to one" wraps to 12
            hour = (hour - 2) % 12 + 1 if 1 <= hour <= 12 else (hour - 1) % 24
            minute = 60 - minute
        return f"{hour}:{minute:02d}"

    def _hour(self, m: re.Match) -> str:
        hour = self._value(m["hour"])
        return f"{hour}:00" if 0 <= hour <= 23 else m.group()

    def _digits(self, m: re.Match) -> str:
        hour, minute = int(m["hour"]), int(m["minute"])
        return f"{hour}:{minute:02d}" if minute else str(hour)

    def __call__(self, s: str) -> str:
        s = self.relative.sub(self._relative, s)
        s = self.on_the_hour.sub(self._hour, s)
        return self.digits.sub(self._digits, s)


def join_single_characters(words: list[str]) -> list[str]:
    """Runs of one-character letters or digits as one token ("b b c" -> "bbc").

    A run holding "a" or "i" (real words) is joined only from three tokens up,
    so "a b" and "i x" stay apart while "a b c" becomes "abc"."""
    out: list[str] = []
    i = 0
    while i < len(words):
        j = i
        while j < len(words) and len(words[j]) == 1 and words[j].isalnum():
            j += 1
        if j == i:
            out.append(words[i])
            i += 1
            continue
        run = words[i:j]
        needed = 3 if ("a" in run or "i" in run) else 2
        out.extend(["".join(run)] if len(run) >= needed else run)
        i = j
    return out


class LeaderboardEnglishNormalizer:
    """Raw text to the leaderboard's normalized tokens (space-separated, collapsed).

    ``spelling`` and ``names`` are applied one after the other, each once per
    token: a name that the spelling table produced is still folded, a value
    is never looked up in its own table again."""

    asraudit_normalizer = True  # one of asraudit's own: ``normalize.normalizer_argument`` takes it as it is

    def __init__(self, spelling: dict[str, str], names: dict[str, str]):
        self.numbers = LeaderboardNumbers()
        self.clock = ClockTimes(self.numbers)
        self.spelling = spelling
        self.names = names

    def __call__(self, text: str) -> str:
        s = remove_bracketed(text.lower())
        s = FILLERS.sub("", s)
        s = SPACE_BEFORE_APOSTROPHE.sub("'", s)
        s = self.clock(s)
        for pattern, replacement in REWRITES:
            s = pattern.sub(replacement, s)
        s = DIGIT_COMMA.sub(r"\1\2", s)
        s = LONE_PERIOD.sub(" ", s)
        s = remove_symbols_and_diacritics(s)
        for pattern, joined in COMPOUNDS:
            s = pattern.sub(joined, s)
        s = OH.sub("oh", s)
        s = self.numbers(s)
        words = [self.spelling.get(w, w) for w in s.split()]
        words = [self.names.get(w, w) for w in words]
        s = " ".join(join_single_characters(words))
        s = LONE_CURRENCY.sub(" ", s)
        s = LONE_PERCENT.sub(" ", s)
        return " ".join(s.split())


@lru_cache(maxsize=1)
def leaderboard_tables() -> dict:
    """The leaderboard's word tables as transcribed (``text/data/leaderboard_english.toml``)."""
    with resources.files("asraudit.text").joinpath("data/leaderboard_english.toml").open("rb") as fh:
        return tomllib.load(fh)


def leaderboard_spelling() -> dict[str, str]:
    """Whisper's spelling table with the leaderboard's changes (removed entries, then added ones)."""
    changes = leaderboard_tables()["spelling"]
    spelling = english_spelling_mapping()
    for key in changes["remove"]:
        del spelling[key]
    return {**spelling, **changes["add"]}


@lru_cache(maxsize=1)
def leaderboard_english() -> LeaderboardEnglishNormalizer:
    """The one shared instance (its tables are built once per process)."""
    return LeaderboardEnglishNormalizer(leaderboard_spelling(), dict(leaderboard_tables()["names"]))
