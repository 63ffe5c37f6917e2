"""Seeded strings that exercise every rule of the Whisper normalizers, for parity tests and the benchmark.

Each string is a few pieces drawn from pools (one per rule family: spelled
and written numbers, currencies, ordinals, percentages, British spellings,
contractions and the cross-word perfect tenses, titles, hyphens, brackets,
fillers, symbols, Unicode letters, marks, format characters and odd
whitespace), joined by a random separator, sometimes with no space at all
so that pieces run into each other ("$5th", "mr.um's").  ``perturbed``
makes distinct variants of real sentences the same way.
"""

from __future__ import annotations

import random

NUMBER_WORDS = [
    "one", "two", "three", "eleven", "twenty", "twenty-one", "forty two", "ninety-nine", "a hundred",
    "one hundred and five", "two thousand", "three million", "fifteen hundred", "nineteen eighty-four",
    "zero", "oh", "o", "first", "second", "third", "twenty-first", "hundredth", "a half", "one and a half",
    "and a half", "two and a half million", "double seven", "triple oh", "twos", "sixes", "sixties", "point five",
    "minus three", "plus two", "negative", "positive", "ones", "one oh one", "thousandth", "millions",
    "nineteenth", "twelfth", "ninety ninth", "two point three four", "point", "double", "triple",
]
DIGITS = ["1", "20", "21", "1,000", "1.5", "3.14", "1960s", "2nd", "3rd", "21st", "100th", "10,000,000", "007", "1/2",
          "-3", "0", "1s", "5 th", "7 s", "2.5.3", "192.168.0.1", "0.5", "12:30", "3x", "x3", "4k", "1st.", "٣", "²", "½"]
CURRENCY = ["$20", "$20.50", "£3.5 billion", "€100", "20 dollars", "5 cents", "$1 million", "£10 and 50p", "¥300",
            "20%", "7.5 per cent", "ten percent", "$0.07", "$2 and 7 cents", "two dollars and five cents", "£",
            "$", "%", "€ 5", "5 €", "one euro", "euros", "a pound", "pounds", "per", "cent", "¢5", "$0.5"]
CONTRACTIONS = ["I've", "won't", "can't", "we'd", "they're", "it's", "y'all", "'em", "o'clock", "ain't", "shouldn't've",
                "let's", "he'll", "i'ma", "ma'am", "she'd been", "he's been", "it's gone", "we'd gone", "they'd done",
                "she's got", "it 's", "i 'm", "um's", "rock 'n' roll", "'tis", "don't", "’s", "wanna", "gonna",
                "gotta", "imma", "woulda", "coulda", "shoulda", "kinda", "sorta", "dunno", "cause"]
BRITISH = ["colour", "favourite", "organisation", "realise", "centre", "theatre", "defence", "licence", "travelling",
           "analyse", "programme", "catalogue", "honour", "labour", "neighbourhood", "judgement", "grey", "cheque",
           "apologise", "behaviour", "colours", "Organisations", "recognised", "metres", "aeroplane", "mould"]
ABBREVIATIONS = ["Mr.", "Mrs", "Dr.", "St.", "Ms.", "Prof.", "Jr.", "Sr.", "vs.", "etc.", "e.g.", "i.e.", "U.S.",
                 "T.V.", "a.m.", "p.m.", "OK", "okay", "Gen.", "Rep.", "Sen.", "Capt.", "Gov.", "Ald.", "Pres.",
                 "Rev.", "Hon.", "Asst.", "Assoc.", "Lt.", "Col.", "Esq.", "mr", "st"]
HYPHENS = ["e-mail", "life-supporting", "well-known", "twenty-five", "co-operation", "re-elect", "state-of-the-art",
           "x-ray", "long-term", "--", "—", "–", "-", "one-third", "5-year-old"]
BRACKETS = ["[inaudible]", "<noise>", "(laughs)", "(", ")", "[", "]", "<", ">", "(a (b) c)", "[x> y]", "<unk",
            "(applause) and", "[ ]", "()"]
PUNCT = [".", ",", "!", "?", ";", ":", "...", "\"", "'", "«", "»", "&", "♪", "*", "#", "@", "/", "\\", "+", "=",
         "~", "^", "|", "©", "™", "°", "±", "×", "→", "•", "¿", "¡", "…", "’", "“", "”"]
FILLERS = ["um", "uh", "hmm", "mm", "mmm", "mhm", "ah", "er", "erm", "uh-huh", "Um,", "UH"]
UNICODE = ["Café", "naïve", "Zürich", "São", "Paulo", "Straße", "Øresund", "Łódź", "œuvre", "Æsir", "þing", "ﬁne",
           "Ｆｕｌｌ", "ΣΟΦΟΣ", "σοφός", "e\u0301", "\u0301a", "İstanbul", "Ⅻ", "①", "ℌ", "\u00a8", "ß", "Đorđe",
           "한국어", "日本語", "Привет", "ﷺ", "🙂", "a\u200bb", "\u00ad", "\ufeff", "ǅ"]
WORDS = ["the", "Commission", "Parliament", "President", "Madam", "vote", "budget", "people", "euro", "million",
         "percent", "today", "we", "must", "and", "in", "of", "is", "a", "this", "report", "Member", "States",
         "half", "behalf", "halfway", "second", "one", "point", "an", "oh", "o", "s", "th", "nd", "been", "gone"]
SEPARATORS = [" "] * 12 + ["", "  ", "\t", "\n", "\u00a0", "\u2009", "\u3000", "\x1c", " \u0301"]
POOLS = [NUMBER_WORDS, DIGITS, CURRENCY, CONTRACTIONS, BRITISH, ABBREVIATIONS, HYPHENS, BRACKETS, PUNCT, FILLERS,
         UNICODE, WORDS, WORDS, WORDS]

HANDMADE = [
    "Mr. Smith paid $20.50 on the 3rd of May, 1999.",
    "Twenty-one percent of 1,000 people!",
    "It's 7 o'clock, isn't it?",
    "The 1960s were great; the '70s, not so.",
    "£3.5 billion for the N.H.S.",
    "one hundred and twenty three thousand four hundred and fifty six",
    "He said \"hello\" (quietly) [laughs]",
    "Madam President, colleagues, um, I think—I think we must act.",
    "",
    "   ",
    "ALL CAPS SHOUTING",
    "2 + 2 = 4",
    "email me at john@example.com",
    "The U.K.'s GDP rose 0.5%.",
    "Mister Jones and Missus Jones",
    "twenty twenty",
    "1st, 2nd and 3rd place",
    "$5.99/month",
    "the 21st century",
    "We'll see, won't we?",
    "and a half",
    "and a half and a half",
    "one and a half and a half",
    "she 'd been there",
    "um 's",
    "x um's",
    "it um 's",
    "minus and five",
    "minus point hundred",
    "hundredth and five",
    "$1",
    "$0 5",
    "5 th of may",
    "the 5 s",
    "one oh one",
    "double oh seven",
    "two dollars and seven cents",
    "per cent per",
    "o o o",
    "on behalf of one and a half million",
    "two and a half$ each",
    "two and a halfway point",
    "and a half-time score of 2",
]


def generated(n: int, seed: int = 1234) -> list[str]:
    """``n`` strings of 1 to 12 pieces from the rule pools (seeded; repeats are possible)."""
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        parts = []
        for _ in range(rng.randint(1, 12)):
            piece = rng.choice(rng.choice(POOLS))
            r = rng.random()
            if r < 0.1:
                piece = piece.capitalize()
            elif r < 0.2:
                piece = piece.upper()
            parts.append(piece)
            parts.append(rng.choice(SEPARATORS))
        out.append("".join(parts[:-1]) if rng.random() < 0.9 else "".join(parts))
    return out


def perturbed(sentences: list[str], n: int, seed: int = 0) -> list[str]:
    """``n`` variants of real ``sentences``: words dropped, repeated, swapped for another sentence's
    word or for a piece from the rule pools, recased, or followed by punctuation."""
    rng = random.Random(seed)
    vocab = sorted({w for s in sentences for w in s.split()})
    out = []
    for _ in range(n):
        words = rng.choice(sentences).split()
        new = []
        for w in words:
            r = rng.random()
            if r < 0.03:
                continue
            if r < 0.06:
                w = rng.choice(vocab)
            elif r < 0.08:
                w = rng.choice(rng.choice(POOLS))
            elif r < 0.10:
                w = w.upper() if rng.random() < 0.5 else w.capitalize()
            elif r < 0.12:
                new.append(w)
            elif r < 0.14:
                w = w + rng.choice(PUNCT)
            new.append(w)
        out.append(" ".join(new))
    return out
