"""The languages with their own basic normalizer, as plain names.

Kept apart from ``basic_languages`` (which compiles Unicode-class patterns with
the ``regex`` package at import) so that ``text.normalize`` can list the
normalizer names without paying for that import in every command: most runs
are English and never build a language's normalizer.
"""

BASIC_LANGUAGES = ("es", "fr", "de", "it", "nl", "pl", "pt")
LANGUAGE_NORMALIZERS = tuple(f"basic-{code}" for code in BASIC_LANGUAGES)


def language_code(value: object) -> object:
    """A language code as asraudit keeps it: ISO 639-1 codes are case-insensitive, so "FR" and "Fr" are "fr".

    The one rule for every place that takes a language (``get_normalizer(language=)``, an audit spec's
    ``[corpus] language`` and ``[conventions] language``, ``conventions --language`` and ``--families``,
    ``load_catalogue``, the translation probe's target and a lexicon's).  Anything but a str is returned as it is,
    for the caller's own check to name."""
    return value.lower() if isinstance(value, str) else value
