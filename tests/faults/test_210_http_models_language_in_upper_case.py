"""Case 210: an HTTP model's `language` option in upper or mixed case (`--option language=FR`, a spec's
`options = { language = "FR" }`, `load_model("http://...", language="FR")`).

Case 183 read every other family's `language` in lower case (`models.base.model_options`); the HTTP backend sent
it as written: the request's form carried `language=FR` (the OpenAI API takes ISO-639-1 codes, `fr`), and the
config hash differed from `language=fr`'s, so a run with `FR` transcribed again every clip a run with `fr` had
stored.  Now the HTTP backend reads it through the same function.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from http_stub import form_recorder, serving  # noqa: E402
from conftest import silent_clips_manifest  # noqa: E402


_Heard = form_recorder("bonjour")  # keeps the form fields of each request


def test_the_request_carries_the_lower_case_code_and_shares_its_config(tmp_path, cli):
    from asraudit.models.registry import load_model

    corpus, out = silent_clips_manifest(tmp_path, 1), tmp_path / "out"
    _Heard.forms = []
    with serving(_Heard) as url:
        upper, lower = load_model(url, language="FR"), load_model(url, language="fr")
        assert upper.config_hash == lower.config_hash
        args = ["transcribe", "--corpus", corpus, "--model", url, "--no-progress", "--out", out]
        first = cli(*args, "--option", "language=fr")
        assert first.code == 0, first.err
        again = cli(*args, "--option", "language=FR")
        assert again.code == 0 and again.error_lines == [], again.err
        assert "0 job(s) run now, 1 already stored" in again.err
        upper.transcribe([[0.0] * 1600])
    assert [form["language"] for form in _Heard.forms] == ["fr", "fr"]


def test_a_scoring_servers_language_is_read_the_same_way(tmp_path):
    from asraudit.models.registry import load_model

    upper = load_model("http://127.0.0.1:9", scoring="vllm-prompt-logprobs", language="Fr")
    lower = load_model("http://127.0.0.1:9", scoring="vllm-prompt-logprobs", language="fr")
    assert upper.language == "fr" and upper.config_hash == lower.config_hash
