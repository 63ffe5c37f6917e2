"""Case 126: a speech-LLM folder without the chat template that renders its transcription prompt.

Qwen3-ASR, GLM-ASR and Granite-Speech render their default prompt with the checkpoint's chat template
(``chat_template.jinja``, or ``chat_template`` in ``tokenizer_config.json``); a folder copied without it (only the
weights and the tokenizer files fetched) stopped the load with transformers' ValueError traceback, "Cannot use
apply_chat_template because this processor does not have a chat template".  Now one line naming the folder
and the two ways out; a prompt given as an option still runs the folder.
"""

from __future__ import annotations

import json

import pytest

pytest.importorskip("transformers")
pytest.importorskip("torch")


def _without_chat_template(folder):
    for path in folder.glob("*.jinja"):
        path.unlink()
    for path in folder.glob("*config.json"):
        config = json.loads(path.read_text(encoding="utf-8"))
        if isinstance(config, dict) and config.pop("chat_template", None) is not None:
            path.write_text(json.dumps(config), encoding="utf-8")
    return folder


@pytest.mark.parametrize("builder, family", [("tiny_qwen3_asr", "Qwen3ASR"), ("tiny_granite_speech", "GraniteSpeech"),
                                             ("tiny_granite_speech_plus", "GraniteSpeechPlus")])
def test_transcribe_names_the_folder_and_what_it_lacks(builder, family, tmp_path, cli):
    import speech_llm_fixtures

    from conftest import one_clip_manifest

    folder = tmp_path / "model"
    folder.mkdir()
    _without_chat_template(getattr(speech_llm_fixtures, builder)(folder))
    ran = cli("transcribe", "--corpus", one_clip_manifest(tmp_path), "--model", f"hf:{folder}",
              "--out", tmp_path / "out", "--no-progress")
    assert ran.code == 2 and len(ran.error_lines) == 1, ran.err
    assert ran.error_lines[0] == (
        f"asraudit: error: {folder}: its processor has no chat template (chat_template.jinja, or chat_template in "
        f"tokenizer_config.json), which renders {family}'s transcription prompt: copy the checkpoint's "
        "chat_template.jinja into the folder, or give the prompt (option prompt=..., with {audio} where the clip goes)")
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").glob("*.jsonl"))


def test_a_prompt_given_as_an_option_runs_the_folder(tmp_path):
    from speech_llm_fixtures import audio, tiny_qwen3_asr

    from asraudit.models.registry import load_model

    folder = tmp_path / "model"
    folder.mkdir()
    _without_chat_template(tiny_qwen3_asr(folder))
    model = load_model(f"hf:{folder}", prompt="<|im_start|>user\n{audio}<|im_end|>\n<|im_start|>assistant\n",
                       max_new_tokens=4)
    assert len(model.transcribe([audio(1.0, 0)])) == 1
