"""The basic normalizer for one language: lower case, no punctuation, the language's letters kept whole.

The language-independent basic normalizer (Whisper's ``BasicTextNormalizer``)
turns every mark, symbol and punctuation character into a space.  For the
languages asraudit has convention catalogues for, that splits words a
speaker says as one: an apostrophe inside "aujourd'hui", "quelqu'un",
"geht's" or "zo'n" becomes a word boundary, and a combining accent left by a
decomposed "é" becomes a space inside the word.  This normalizer keeps
what belongs to a word and drops the rest:

- NFKC first, so a decomposed "e" + U+0301 is the one letter "é"; letters
  and their diacritics (é, ß, ł, ã, ø, ï...) are kept as written, and marks
  NFKC cannot compose stay inside their word; case is lowered with
  ``str.lower``, which keeps "ß" (``casefold`` would turn it into "ss",
  erasing the German/Swiss spelling difference).
- Every apostrophe-like character (’ ‘ ʼ ´ ` ′) is the ASCII apostrophe, so
  typography never makes a word error.
- French and Italian elision: the elided article or pronoun is its own word,
  apostrophe kept ("l'homme" -> "l' homme", "dell'anno" -> "dell' anno"),
  which is how the words are counted and keeps "l'" apart from "le"/"la".
  Words that are written with an apostrophe but are one word
  ("aujourd'hui", "quelqu'un", "prud'homme") keep it inside.
- Italian apocope keeps its final apostrophe ("po'", "mo'", "di'"), and
  the typewriter capital "E'" is the word "è" it stands for.
- Dutch clitics keep their leading apostrophe ("'s avonds", "'t", "'n").
- Any other apostrophe (a quotation mark) and every other punctuation or
  symbol character, hyphens included, separates words; bracketed spans
  (``[noise]``, ``(laughs)``) are removed, as the basic normalizer does.

Number words and digits are not converted into each other: "21" and
"veintiuno" stay different words (the convention probe measures that
choice; see docs/languages.md for what this means for WER).
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from functools import lru_cache

import regex

# The languages with a basic normalizer of their own (ISO 639-1); "en" uses the general basic normalizer.
from asraudit.text.basic_language_codes import BASIC_LANGUAGES
from asraudit.text.symbols import remove_bracketed

_APOSTROPHES = regex.compile("[\u2019\u2018\u02bc\u00b4`\u2032]")
# A word: letters, marks, digits and apostrophes (which are sorted out per token below).
_TOKEN = regex.compile(r"[\p{L}\p{M}\p{N}']+")

# Elided words that stand before a vowel with an apostrophe and are words of their own.
_ELIDED = {
    "fr": ("l", "d", "j", "m", "n", "s", "t", "c", "ç", "qu", "jusqu", "lorsqu", "puisqu", "quoiqu"),
    "it": ("l", "d", "c", "m", "n", "s", "t", "v", "un", "all", "dall", "dell", "nell", "sull", "coll",
           "quest", "quell", "bell", "sant", "tutt", "buon", "nessun", "ch", "cos"),
}
# Italian words cut short with a final apostrophe ("un po'"), and the typewriter "E'" for "È".
_APOCOPE = {"it": {**{w: w for w in ("po'", "mo'", "di'", "da'", "fa'", "sta'", "va'", "be'", "ca'", "to'")},
                   "e'": "è"}}
# Dutch clitics written with a leading apostrophe.
_LEADING = {"nl": ("'s", "'t", "'n", "'k", "'m", "'r", "'ns")}


@dataclass(frozen=True)
class LanguageBasicNormalizer:
    """``basic-<language>``: a plain object, so it can be sent to worker processes."""

    language: str
    asraudit_normalizer = True  # one of asraudit's own: ``normalize.normalizer_argument`` takes it as it is

    def __call__(self, text: str) -> str:
        text = remove_bracketed(unicodedata.normalize("NFKC", text)).lower()
        if "'" in text or _APOSTROPHES.search(text):
            text = _APOSTROPHES.sub("'", text)
        out: list[str] = []
        for token in _TOKEN.findall(text):
            out.extend(self._split(token) if "'" in token else (token,))
        return " ".join(out)

    def _split(self, token: str) -> list[str]:
        """A token holding apostrophes as the words it stands for (see the module docstring)."""
        if token in _LEADING.get(self.language, ()):
            return [token]
        rest = token.lstrip("'")  # an opening quotation mark
        words: list[str] = []
        elided = _ELIDED.get(self.language, ())
        while True:  # "qu'l'..." never occurs, but "c'" + "est" and "dell'" + "anno" do
            head, sep, tail = rest.partition("'")
            if not (sep and head in elided and tail[:1].isalpha()):
                break
            words.append(head + "'")
            rest = tail
        last = self._trim(rest)
        return words + [last] if last else words

    def _trim(self, word: str) -> str:
        """Inner apostrophes stay ("aujourd'hui"); a final one only in an Italian apocope ("po'", "e'" -> "è")."""
        trimmed = word.strip("'")
        if word.endswith("'"):
            return _APOCOPE.get(self.language, {}).get(trimmed + "'", trimmed)
        return trimmed


@lru_cache(maxsize=None)
def language_basic_normalizer(language: str) -> LanguageBasicNormalizer:
    """The basic normalizer of ``language`` (one of ``BASIC_LANGUAGES``); ValueError naming the choices otherwise."""
    if language not in BASIC_LANGUAGES:
        raise ValueError(f"no basic normalizer for language {language!r}; "
                         f"choose one of en, {', '.join(BASIC_LANGUAGES)}")
    return LanguageBasicNormalizer(language)
