"""summary.json's ``translation`` section: the translation probe's readout per model.

One row per model, kind of span (``dropped``: said, left out of the record;
``invented``: in the record, never said) and whether the model's own
transcript held the span (``omitted`` / ``contained``): how many of its
renderings in the target language held the span's translation.  The spans
left out of the readout are counted per model and reason, so the
denominators can be read.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from asraudit.report.rows import Bounds


@dataclass
class TranslationRow:
    """Renderings holding the span / spans read, for one model, kind of span and transcript state."""

    model: str
    kind: str                    # dropped | invented
    transcript: str              # omitted | contained: whether the model's transcript held the span
    in_rendering: int            # renderings in the target language that hold the span's translation
    n: int                       # spans read
    rate: float | None           # in_rendering / n (None when n = 0)
    rate_interval: Bounds        # Wilson 95%; its sample size is the clips, or the values of [translation] cluster_field


@dataclass
class TranslationSection:
    """The translation probe: its target language, lexicon, where its spans came from, and its rows."""

    target: str                  # the language the clips were rendered in (ISO 639-1)
    lexicon: str                 # built-in:<target> or the lexicon file
    spans: str                   # planted (a truth file) | mined (the panel's edits)
    models: list[str]            # the models asked (each rendered the clips through its own target-language prompt)
    rows: list[TranslationRow]
    # model -> reason -> spans: checked, no entry (not in the lexicon), clash (the rest of the sentence renders the
    # same way), untranslated (the rendering was mostly the English transcript), missing (no output stored)
    spans_by_status: dict[str, dict[str, int]] = field(default_factory=dict)
