"""The languages with their own basic normalizer, as plain names.

Kept apart from ``basic_languages`` (which compiles Unicode-class patterns with
the ``regex`` package at import) so that ``text.normalize`` can list the
normalizer names without paying for that import in every command: most runs
are English and never build a language's normalizer.
"""

BASIC_LANGUAGES = ("es", "fr", "de", "it", "nl", "pl", "pt")
LANGUAGE_NORMALIZERS = tuple(f"basic-{code}" for code in BASIC_LANGUAGES)
