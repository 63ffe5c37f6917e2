"""Case 183: a model's own ``language`` option in upper or mixed case (``--option language=FR``, a spec's
``options = { language = "FR" }``).

Case 165 made every other place that takes a language code read it in any case; the model's option stayed
exact: a multilingual Whisper refused ``FR`` (``unknown Whisper language code 'FR'``, ``option language 'DE' is not
a language of this Whisper``), SeamlessM4T ``FRA`` (``no target-language token``), and Qwen2-Audio's prompt was
built with ``<|FR|>``, which is no token of its vocabulary but text, a prompt of another model, silently.  Now the
option is lower-cased before the model sees it (``models.base.model_options``), so ``FR`` is ``fr`` and the same
configuration: a second run with the other case finds the first run's results stored.
"""

from __future__ import annotations

import pytest

from asraudit.models.base import backend_options
from asraudit.models.ct2_whisper import WhisperDecodeOptions
from asraudit.models.hf import HFDecodeOptions
from asraudit.models.hf_speech_llm import SpeechLLMOptions

from conftest import one_clip_manifest


@pytest.mark.parametrize("cls", [WhisperDecodeOptions, HFDecodeOptions, SpeechLLMOptions])
def test_every_familys_options_read_the_language_in_lower_case(cls):
    for given, read in (("FR", "fr"), ("Es", "es"), ("FRA", "fra"), ("AUTO", "auto"), ("de", "de")):
        assert backend_options(cls, {"language": given}, "m").language == read
    assert backend_options(cls, {"language": "FR"}, "m") == backend_options(cls, {"language": "fr"}, "m")
    assert backend_options(cls, {}, "m").language == "en"


def test_a_multilingual_whisper_takes_de_in_upper_case_as_one_configuration(tmp_path):
    pytest.importorskip("transformers")
    import encdec_tiny
    from asraudit.models.registry import load_model

    folder = encdec_tiny.whisper_multilingual(tmp_path / "whisper-ml")
    upper, lower = load_model(str(folder), language="DE", max_new_tokens=4), load_model(str(folder), language="de",
                                                                                        max_new_tokens=4)
    assert upper.prompt_ids()[1] == upper.tokenizer.convert_tokens_to_ids("<|de|>")
    assert upper.config_hash == lower.config_hash


def test_a_speech_llms_language_tag_is_its_own_token(tmp_path):
    pytest.importorskip("transformers")
    from asraudit.models.registry import load_model
    from speech_llm_fixtures import tiny_qwen2_audio

    folder = tiny_qwen2_audio(tmp_path / "qwen2")
    upper, lower = load_model(str(folder), language="FR", max_new_tokens=4), load_model(str(folder), language="fr",
                                                                                        max_new_tokens=4)
    assert upper.template.endswith("speech: <|fr|>")
    assert upper.config_hash == lower.config_hash


def test_the_command_line_option_in_upper_case_finds_the_lower_case_runs_results(tmp_path, cli):
    from asraudit.models import embedded

    if not embedded.is_present("whisper-base"):
        pytest.skip("needs the embedded multilingual whisper-base (the models extra)")
    corpus = one_clip_manifest(tmp_path)
    first = cli("transcribe", "--model", "whisper-base", "--corpus", corpus, "--option", "language=fr", "--out",
                tmp_path / "o", "--no-progress")
    assert first.code == 0, first.err
    again = cli("transcribe", "--model", "whisper-base", "--corpus", corpus, "--option", "language=FR", "--out",
                tmp_path / "o", "--no-progress")
    assert again.code == 0 and again.error_lines == [], again.err
    assert "0 job(s) run now, 1 already stored" in again.err
