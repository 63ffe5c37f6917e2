"""Case 184: ``asraudit score --texts FILE`` with a candidate the model cannot be forced through, on a later row.

A candidate longer than the decoder (2,001 words) or holding a Whisper special token (``<|endoftext|>``, a raw
output pasted in) was refused only when its clip was scored: after the model loaded and every model before it had
run, and without the file or row (``text 'word word ...' has 2001 tokens, and Whisper's decoder holds 448 ...``).
A transformers Whisper was worse: the long text stopped with ``IndexError: index 64 is out of bounds`` (a
traceback from the position embeddings), and the special token was scored as if it were text, end-of-text forced
mid-sentence, exit 0.  Now every candidate is checked against each Whisper's tokenizer files before any model
loads (``models.candidate_check``), in one line naming the file, row and candidate; the transformers Whisper
refuses both when it scores, too.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
import soundfile as sf

from asraudit.errors import InputError


def _two_clips(tmp_path, second):
    for name, hz in (("a.wav", 220), ("b.wav", 330)):
        t = np.arange(16_000) / 16_000
        sf.write(tmp_path / name, (0.3 * np.sin(2 * np.pi * hz * t)).astype(np.float32), 16_000)
    manifest = tmp_path / "m.jsonl"
    manifest.write_text("".join(json.dumps({"audio_filepath": n, "text": "a tone"}) + "\n" for n in ("a.wav", "b.wav")),
                        encoding="utf-8")
    texts = tmp_path / "texts.jsonl"
    texts.write_text(json.dumps({"audio_filepath": "a.wav", "candidates": ["a tone"]}) + "\n"
                     + json.dumps({"audio_filepath": "b.wav", "candidates": ["a tone", second]}) + "\n", encoding="utf-8")
    return manifest, texts


@pytest.mark.parametrize("second, said", [
    (" ".join(["word"] * 2001), "it has 2001 tokens, and the decoder of whisper-tiny.en holds 448 with its prompt (2) "
                                "and end-of-text: score a shorter text"),
    ("hello <|endoftext|> there", "text 'hello <|endoftext|> there' holds Whisper's special token <|endoftext|>, "
                                  "which no transcript can: remove it from the text"),
])
def test_the_row_is_named_before_any_model_loads(tmp_path, cli, monkeypatch, second, said):
    from asraudit.models import registry

    manifest, texts = _two_clips(tmp_path, second)
    loaded = []
    real = registry.load_model
    monkeypatch.setattr(registry, "load_model", lambda *a, **k: loaded.append(a) or real(*a, **k))
    ran = cli("score", "--model", "whisper-tiny.en", "--corpus", manifest, "--texts", texts,
              "--out", tmp_path / "o" / "s.jsonl", "--no-progress")
    assert (ran.code, ran.error_lines) == (2, [
        f"asraudit: error: {texts}, row 2: candidate 2 of clip 'b.wav' cannot be scored by whisper-tiny.en: {said}"])
    assert loaded == [] and not (tmp_path / "o").exists()


def test_a_transformers_whisper_is_checked_before_and_when_it_scores(tmp_path, cli):
    pytest.importorskip("transformers")
    import encdec_tiny
    from asraudit.models.registry import load_model

    folder = encdec_tiny.whisper_multilingual(tmp_path / "wml")  # a decoder of 64 positions
    for second, said in (("x" * 80, "it has 80 tokens, and the decoder of hf:{folder} holds 64 with its prompt (4) "
                                     "and end-of-text: score a shorter text"),
                         ("x <|endoftext|> y", "text 'x <|endoftext|> y' holds Whisper's special token <|endoftext|>, "
                                               "which no transcript can: remove it from the text")):
        manifest, texts = _two_clips(tmp_path, second)
        ran = cli("score", "--model", f"hf:{folder}", "--option", "max_new_tokens=40", "--corpus", manifest,
                  "--texts", texts, "--out", tmp_path / "o" / "s.jsonl", "--no-progress")
        assert (ran.code, ran.error_lines) == (2, [
            f"asraudit: error: {texts}, row 2: candidate 2 of clip 'b.wav' cannot be scored by hf:{folder}: "
            + said.format(folder=folder)])
        assert not (tmp_path / "o").exists()
    model = load_model(str(folder), max_new_tokens=4)
    audio = np.zeros(16_000, dtype=np.float32)
    with pytest.raises(InputError, match=r"^it has 80 tokens, and the decoder of .* holds 64"):
        model.score(audio, ["x" * 80])
    with pytest.raises(InputError, match=r"holds Whisper's special token <\|endoftext\|>"):
        model.score(audio, ["x <|endoftext|> y"])
    assert len(model.score(audio, ["x" * 20])[0].logprobs) == 21


@pytest.mark.parametrize("spec, fits", [("whisper-tiny.en", 445), ("whisper-base", 443)])
def test_the_check_draws_the_line_where_the_model_does(spec, fits):
    """An English-only Whisper's prompt is 2 tokens, a multilingual one's 4 (read from vocabulary.txt, which holds
    the timestamp tokens tokenizer.json lacks): the check refuses exactly what the model refuses."""
    from asraudit.models import embedded
    from asraudit.models.candidate_check import candidate_checker
    from asraudit.models.registry import load_model

    if not embedded.is_present(spec):
        pytest.skip(f"needs the embedded {spec}")
    check = candidate_checker(spec)
    assert check(" ".join(["word"] * fits)) is None
    assert check(" ".join(["word"] * (fits + 1))).startswith(f"it has {fits + 1} tokens")
    model = load_model(spec)
    audio = np.zeros(16_000, dtype=np.float32)
    assert len(model.score(audio, [" ".join(["word"] * fits)])[0].logprobs) == fits + 1
    with pytest.raises(InputError, match=f"has {fits + 1} tokens"):
        model.score(audio, [" ".join(["word"] * (fits + 1))])


def test_a_reference_scored_with_with_reference_is_named_by_its_manifest_row(tmp_path, cli):
    manifest, _ = _two_clips(tmp_path, "a tone")
    lines = manifest.read_text(encoding="utf-8").splitlines()
    lines[1] = json.dumps({"audio_filepath": "b.wav", "text": " ".join(["word"] * 600)})
    manifest.write_text("\n".join(lines) + "\n", encoding="utf-8")
    ran = cli("score", "--model", "whisper-tiny.en", "--corpus", manifest, "--with-reference",
              "--out", tmp_path / "o" / "s.jsonl", "--no-progress")
    assert (ran.code, ran.error_lines) == (2, [
        f"asraudit: error: {manifest}, row 2: the reference of clip 'b.wav' cannot be scored by whisper-tiny.en: it "
        "has 600 tokens, and the decoder of whisper-tiny.en holds 448 with its prompt (2) and end-of-text: score a "
        "shorter text"])
    assert not (tmp_path / "o").exists()


def test_a_clip_longer_than_whispers_window_is_named_by_its_row(tmp_path, cli):
    """A 40-s clip with candidates: the score stopped with ``ValueError: cannot score 40.0 s of audio: Whisper attends
    to one 30-s window``, a traceback, when its turn came."""
    from asraudit.models.registry import load_model

    manifest, texts = _two_clips(tmp_path, "b tone")
    sf.write(tmp_path / "b.wav", np.zeros(40 * 16_000, dtype=np.float32), 16_000)
    ran = cli("score", "--model", "whisper-tiny.en", "--corpus", manifest, "--texts", texts,
              "--out", tmp_path / "o" / "s.jsonl", "--no-progress")
    assert (ran.code, ran.error_lines) == (2, [
        f"asraudit: error: {manifest}, row 2: clip 'b.wav' is 40.0 s long, and whisper-tiny.en scores at most 30 s "
        "(one window): cut the clip, or leave it out of the clips to score"])
    assert not (tmp_path / "o").exists()
    with pytest.raises(InputError, match="cannot score 40.0 s of audio: Whisper attends to one 30-s window"):
        load_model("whisper-tiny.en").score(np.zeros(40 * 16_000, dtype=np.float32), ["nothing"])
