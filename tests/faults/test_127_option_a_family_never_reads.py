"""Case 127: a decoding option the model's family never reads.

The transformers runners share one options table (beam_size, max_new_tokens, language, task, punctuation,
window_seconds, batch_size), and each took every name in it: ``--option beam_size=4`` on a wav2vec2 CTC model
(decoded greedily), ``language=fr`` on Moonshine or a Parakeet transducer (no language in their prompt),
``task=translate`` on Canary, ``punctuation=false`` or ``window_seconds=5`` on a Whisper were accepted and
ignored: the run looked like the one asked for, exit 0.  Case 30 refused names no runner has; now a name the
family's runner does not read is refused too, when the model loads (so by ``audit --check``), unless its value
is the default (which changes nothing, as ``language=en``).
"""

from __future__ import annotations

import pytest

pytest.importorskip("transformers")
pytest.importorskip("torch")

from asraudit.errors import InputError  # noqa: E402


@pytest.fixture(scope="module")
def moonshine(tmp_path_factory):
    import encdec_tiny

    return encdec_tiny.moonshine(tmp_path_factory.mktemp("moonshine"))


@pytest.fixture(scope="module")
def canary(tmp_path_factory):
    import encdec_tiny

    return encdec_tiny.canary(tmp_path_factory.mktemp("canary"))


CTC = "is a CTC model, decoded greedily frame by frame over the whole clip, with no prompt"
TRANSDUCER = "is a transducer, decoded over each window at the encoder's length, with no prompt"
MOONSHINE = "is moonshine, whose decoder prompt carries no language, task or punctuation switch"
CANARY = "is canary, whose decoder prompt carries a language and a punctuation switch and no task"


@pytest.mark.parametrize("family, option, value, runs, reads", [
    ("wav2vec2", "beam_size", "4", CTC, "batch_size"),
    ("wav2vec2", "language", "fr", CTC, "batch_size"),
    ("parakeet", "language", "fr", TRANSDUCER, "batch_size, beam_size"),
    ("parakeet", "max_new_tokens", "3", TRANSDUCER, "batch_size, beam_size"),
    ("moonshine", "language", "fr", MOONSHINE, "batch_size, beam_size, max_new_tokens, window_seconds"),
    ("canary", "task", "translate", CANARY,
     "batch_size, beam_size, language, max_new_tokens, punctuation, window_seconds"),
])
def test_transcribe_refuses_the_option_before_any_clip(family, option, value, runs, reads, request, tmp_path, cli):
    from conftest import one_clip_manifest

    folder = request.getfixturevalue(family)
    ran = cli("transcribe", "--corpus", one_clip_manifest(tmp_path), "--model", f"hf:{folder}",
              "--option", f"{option}={value}", "--out", tmp_path / "out", "--no-progress")
    assert ran.code == 2 and len(ran.error_lines) == 1, ran.err
    shown = repr(int(value)) if value.isdigit() else repr(value)
    assert ran.error_lines[0] == (f"asraudit: error: model 'hf:{folder}' {runs}, so option "
                                  f"{option}={shown} would change nothing: leave it out (the options it reads: "
                                  f"{reads})"), ran.error_lines
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").glob("*.jsonl"))


def test_an_option_at_its_default_and_the_options_a_family_reads_still_load(wav2vec2, moonshine, canary, parakeet):
    from asraudit.models.registry import load_model

    assert load_model(f"hf:{wav2vec2}", beam_size=1, language="en", batch_size=2).options.batch_size == 2
    assert load_model(f"hf:{moonshine}", beam_size=2, window_seconds=10, task="transcribe").options.beam_size == 2
    assert load_model(f"hf:{canary}", punctuation=False, language="de").options.punctuation is False
    assert load_model(f"hf:{parakeet}", beam_size=3).options.beam_size == 3


def test_python_and_audit_check(parakeet, tmp_path, cli):
    from conftest import one_clip_manifest

    from asraudit.models.registry import load_model

    with pytest.raises(InputError, match="so option language='fr' would change nothing"):
        load_model(f"hf:{parakeet}", language="fr")
    spec = tmp_path / "audit.toml"
    spec.write_text(f'out = "out"\n[corpus]\nmanifest = "{one_clip_manifest(tmp_path).name}"\n[[model]]\n'
                    f'spec = "hf:{parakeet}"\noptions = {{ task = "translate" }}\n', encoding="utf-8")
    ran = cli("audit", spec, "--check")
    assert ran.code == 2 and len(ran.error_lines) == 1, ran.err
    assert "[[model]] #1" in ran.error_lines[0] and "option task='translate' would change nothing" in ran.error_lines[0]


@pytest.mark.parametrize("family, option, said", [
    ("moonshine", "beam_size=0", "option beam_size must be an integer of at least 1, got 0"),
    ("moonshine", "max_new_tokens=0", "option max_new_tokens must be an integer of at least 1, got 0"),
    ("parakeet", "window_seconds=-1", "option window_seconds must be a number above 0, got -1"),
    ("canary", "punctuation=no", "option punctuation must be true or false, got 'no'"),
])
def test_a_value_the_runner_cannot_take_is_refused_at_load(family, option, said, request, tmp_path, cli):
    """``beam_size=0`` had been a ZeroDivisionError and ``max_new_tokens=0`` transformers' ValueError, tracebacks
    at the first clip (case 30 checked the CTranslate2 Whisper's values only)."""
    from conftest import one_clip_manifest

    folder = request.getfixturevalue(family)
    ran = cli("transcribe", "--corpus", one_clip_manifest(tmp_path), "--model", f"hf:{folder}",
              "--option", option, "--out", tmp_path / "out", "--no-progress")
    assert ran.code == 2 and ran.error_lines == [f"asraudit: error: --model hf:{folder}: {said}"], ran.err
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").glob("*.jsonl"))


def test_a_speech_llm_value_from_python(tmp_path):
    from speech_llm_fixtures import tiny_qwen2_audio

    from asraudit.models.registry import load_model

    folder = tiny_qwen2_audio(tmp_path / "qwen2-audio")
    for options, said in (({"beam_size": 0}, "option beam_size must be an integer of at least 1, got 0"),
                          ({"max_new_tokens": "8"}, "option max_new_tokens must be an integer of at least 1, got '8'")):
        with pytest.raises(InputError) as caught:
            load_model(f"hf:{folder}", **options)
        assert str(caught.value) == said


def test_a_speech_llm_language_its_prompt_never_names(tmp_path):
    """GLM-ASR's and Granite-Speech's default prompts name no language, and a prompt given as an option replaces
    the default: ``language=fr`` there had been ignored; Qwen2-Audio's prompt carries it and takes it."""
    from speech_llm_fixtures import tiny_granite_speech, tiny_qwen2_audio

    from asraudit.models.registry import load_model

    granite, qwen = tmp_path / "granite", tmp_path / "qwen2-audio"
    granite.mkdir()
    tiny_granite_speech(granite)
    tiny_qwen2_audio(qwen)
    with pytest.raises(InputError) as caught:
        load_model(f"hf:{granite}", language="fr")
    assert str(caught.value) == (f"model 'hf:{granite}' is granite_speech, whose transcription prompt names no "
                                 "language, so option language='fr' would change nothing: leave it out, or give a "
                                 "prompt that asks for the language (prompt=...)")
    with pytest.raises(InputError, match=r"option language='fr' would change nothing, since the prompt is given"):
        load_model(f"hf:{qwen}", language="fr", prompt="<|audio_bos|>{audio}<|audio_eos|>Transcribe:")
    assert "<|fr|>" in load_model(f"hf:{qwen}", language="fr").template
    assert load_model(f"hf:{granite}", language="en").model_id and load_model(f"hf:{granite}", language=None).model_id


def test_a_compute_type_torch_has_no_dtype_for(wav2vec2, tmp_path, cli):
    """``--compute-type int8`` (CTranslate2's, which the README's tour uses) on a transformers model was a
    ValueError traceback at load."""
    from conftest import one_clip_manifest

    ran = cli("transcribe", "--corpus", one_clip_manifest(tmp_path), "--model", f"hf:{wav2vec2}",
              "--compute-type", "int8", "--out", tmp_path / "out", "--no-progress")
    assert ran.code == 2 and ran.error_lines == [
        f"asraudit: error: --model hf:{wav2vec2}: compute type 'int8' is not one a transformers model loads with (one "
        "of bfloat16, default, float16, float32: a torch dtype; int8 and int8_float16 are CTranslate2's)"], ran.err
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").glob("*.jsonl"))
