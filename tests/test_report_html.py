"""The HTML report: self-contained, escaped, with the key sections."""

from __future__ import annotations

import re

from asraudit.report.html import render_report

EVIL = '<script>alert("x")</script>'


def _summary():
    return {
        "title": "audit of <b>bench</b>",
        "models": {
            "clean": {"wer": 0.08, "wer_ci": [0.07, 0.09], "accept_ref": 0.05, "accept_ref_ci": [0.01, 0.2], "n_eligible": 40},
            "organism": {"wer": 0.05, "accept_ref": 0.8, "accept_ref_ci": [0.6, 0.9], "n_eligible": 40, "flagged": True,
                         "flag_reasons": ["accept-ref above clean models"]},
        },
        "accept_ref_by_kind": {"clean": {"delete": {"rate": 0.1, "n_ref": 1, "n_eligible": 10}}},
        "edits": [{
            "clip": "c1", "kind": "delete", "position": "start", "r": "madam president", "a": "",
            "ref_tokens": ["madam", "president", "we", "must"], "span": [0, 2],
            "models": {"clean": {"verdict": "audio", "text": "we must"}, "organism": {"verdict": "ref", "text": EVIL}},
        }],
        "provenance": {"seed": 0, "note": EVIL},
    }


def test_transcripts_with_markup_end_up_as_text_not_markup():
    page = render_report(_summary())
    assert EVIL not in page
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;" in page
    assert "<b>bench</b>" not in page
    # Exactly the two scripts of the page itself: the data block and the filter.
    assert len(re.findall(r"<script", page)) == 2


def test_report_is_self_contained_and_has_the_key_sections():
    page = render_report(_summary())
    assert "http://" not in page and "https://" not in page
    for ident in ('id="headline"', 'class="scatter"', 'id="by-kind"', 'id="edits"', 'id="provenance"'):
        assert ident in page
    assert "flagged" in page and 'data-v-organism="ref"' in page
    assert '<mark class="r">madam president</mark>' in page
