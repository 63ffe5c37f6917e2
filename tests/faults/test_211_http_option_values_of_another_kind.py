"""Case 211: an HTTP model's option whose value is not what a request can carry: `--option prompt=true`,
`model=null`, `language=5`, `end_token=5` (a scoring server), and extra form fields `foo=null`, `foo=[1,2]`,
`foo=1e400`.

Every value went into the request as Python writes it: the prompt `True`, the model `None`, an extra field `None`
or `[1, 2]` or `inf`, each run exit 0 with the transcripts stored under those options; a scoring server's
`end_token=5` loaded and matched no token: the first clip scored stopped with a line blaming the server
(`ServiceError: .../v1/chat/completions: no 5 token closes the assistant turn; set end_token= to the model's
end-of-turn token`).  Now the text options are checked as text when the model loads
(`http.text_option`), and an extra field is sent as JSON writes it (`true`, `0.5`) or not at all (`null`); a list,
a table or an infinite number is refused (`http.form_field`).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from http_stub import form_recorder, serving  # noqa: E402
from conftest import silent_clips_manifest  # noqa: E402


_Heard = form_recorder("hello")  # keeps the form fields of each request


CASES = {
    "prompt=true": "prompt=True is not a text (text the server conditions its transcript on)",
    "model=null": "model=None is not a non-empty text (the model the server is asked for)",
    "language=5": "language=5 is not a text (a language code, such as en)",
    "foo=[1,2]": "foo=[1, 2] cannot be sent as a form field: give a text or a finite number (a list or a table is no "
                 "one field's value)",
    "foo=1e400": "foo=inf cannot be sent as a form field: give a text or a finite number (a list or a table is no one "
                 "field's value)",
}


@pytest.mark.parametrize("option", sorted(CASES))
def test_a_value_no_request_carries_is_refused_when_the_model_loads(tmp_path, cli, option):
    _Heard.forms = []
    with serving(_Heard) as url:
        ran = cli("transcribe", "--corpus", silent_clips_manifest(tmp_path, 1), "--model", url, "--option", option,
                  "--no-progress", "--out", tmp_path / "out")
    assert ran.code == 2 and len(ran.error_lines) == 1, ran.err
    assert ran.error_lines[0].endswith(f"model {url!r}: {CASES[option]}")
    assert _Heard.forms == []


def test_a_scoring_servers_end_token_is_text(tmp_path):
    from asraudit.errors import InputError
    from asraudit.models.registry import load_model

    with pytest.raises(InputError) as caught:
        load_model("http://127.0.0.1:9", scoring="vllm-prompt-logprobs", end_token=5)
    assert str(caught.value) == ("model 'http://127.0.0.1:9': end_token=5 is not a non-empty text (the model's "
                                 "end-of-turn token)")


def test_extra_fields_are_sent_as_json_writes_them_and_null_is_not_sent(tmp_path, cli):
    _Heard.forms = []
    with serving(_Heard) as url:
        ran = cli("transcribe", "--corpus", silent_clips_manifest(tmp_path, 1), "--model", url, "--option",
                  "vad=true", "--option", "temperature=0.5", "--option", "hotwords=null", "--option", "prompt=hello",
                  "--no-progress", "--out", tmp_path / "out")
    assert ran.code == 0, ran.err
    assert _Heard.forms == [{"model": "whisper-1", "response_format": "json", "temperature": "0.5", "prompt": "hello",
                             "vad": "true"}]
