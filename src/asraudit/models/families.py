"""The transformers model families asraudit can load, and how a folder is recognised.

A local folder saved with ``save_pretrained`` or a hub id (``hf:ORG/NAME``)
carries a ``config.json`` whose ``model_type`` names its architecture.  This
table maps model types to the asraudit class that transcribes and scores
that architecture, and says, for ``asraudit models``, what each family can
do.  Families are imported lazily (``loader`` is ``module:Class``): most
need torch and transformers, which are the optional ``hf`` extra.

Why a table rather than transformers' auto-model mappings alone: the
mappings say which *head* a model has, not how to build its prompt, force
its target text or reach its layers; a speech LLM and a transducer both
need their own scoring recipe.  The mappings remain the fallback for any
speech seq2seq or CTC model not listed here.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass

from asraudit.errors import InputError

KINDS = ("encoder-decoder", "speech-llm", "transducer", "ctc")


@dataclass(frozen=True)
class Family:
    """One architecture family: what loads it and what it can do."""

    name: str  # shown in `asraudit models`, e.g. "whisper", "parakeet-tdt"
    kind: str  # one of KINDS
    model_types: tuple[str, ...]  # config.model_type values this family accepts
    loader: str  # "asraudit.models.<module>:<Class>", imported only when used
    transcribe: str  # e.g. "greedy, beam"
    score: str  # how the teacher-forced score is computed
    whitebox_sites: str  # intervention sites, or "-" when none
    example: str  # a spec entry a user would write

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"family {self.name!r}: kind {self.kind!r} is not one of {KINDS}")

    def load_class(self):
        module, _, name = self.loader.partition(":")
        return getattr(importlib.import_module(module), name)


_GENERIC_SEQ2SEQ = Family(
    name="speech-seq2seq", kind="encoder-decoder", model_types=(),
    loader="asraudit.models.hf:HFSeq2Seq", transcribe="greedy, beam", score="teacher-forced",
    whitebox_sites="-", example='spec = "hf:ORG/NAME"  (any AutoModelForSpeechSeq2Seq)',
)
_GENERIC_CTC = Family(
    name="ctc", kind="ctc", model_types=(),
    loader="asraudit.models.hf:HFCTC", transcribe="greedy", score="CTC forward, per-token prefix terms",
    whitebox_sites="-", example='spec = "hf:facebook/wav2vec2-base-960h"  (any AutoModelForCTC)',
)

FAMILIES: tuple[Family, ...] = (
    Family(
        name="whisper", kind="encoder-decoder", model_types=("whisper",),
        loader="asraudit.models.hf:HFSeq2Seq", transcribe="greedy, beam", score="teacher-forced",
        whitebox_sites="encoder layers, decoder layers, cross-attention (whitebox:<dir>)",
        example='spec = "hf:openai/whisper-large-v3"',
    ),
    # encoder-decoder (transformers): one runner, HFSeq2Seq; prompt, features and window per family in hf_encdec
    Family(
        name="moonshine", kind="encoder-decoder", model_types=("moonshine",),
        loader="asraudit.models.hf:HFSeq2Seq", transcribe="greedy, beam; 30-s windows", score="teacher-forced",
        whitebox_sites="encoder layers, decoder layers, cross-attention (whitebox:hf:<dir>)",
        example='spec = "hf:UsefulSensors/moonshine-base"',
    ),
    Family(
        name="moonshine-streaming", kind="encoder-decoder", model_types=("moonshine_streaming",),
        loader="asraudit.models.hf:HFSeq2Seq", transcribe="greedy, beam; 30-s windows", score="teacher-forced",
        whitebox_sites="-", example='spec = "hf:UsefulSensors/moonshine-streaming-tiny"',
    ),
    Family(
        name="canary", kind="encoder-decoder", model_types=("canary",),
        loader="asraudit.models.hf:HFSeq2Seq", transcribe="greedy, beam; 40-s windows",
        score="teacher-forced after the multitask prompt (language, punctuation)",
        whitebox_sites="encoder layers, decoder layers, cross-attention (whitebox:hf:<dir>)", example='spec = "hf:nvidia/canary-1b-v2"',
    ),
    Family(
        name="cohere-asr", kind="encoder-decoder", model_types=("cohere_asr",),
        loader="asraudit.models.hf:HFSeq2Seq", transcribe="greedy, beam; 30-s windows",
        score="teacher-forced after the multitask prompt (language, punctuation)",
        whitebox_sites="encoder layers, decoder layers, cross-attention (whitebox:hf:<dir>)", example='spec = "hf:CohereLabs/cohere-transcribe-03-2026"',
    ),
    Family(
        name="speech2text", kind="encoder-decoder", model_types=("speech_to_text",),
        loader="asraudit.models.hf:HFSeq2Seq", transcribe="greedy, beam; 30-s windows", score="teacher-forced",
        whitebox_sites="encoder layers, decoder layers, cross-attention (whitebox:hf:<dir>)", example='spec = "hf:facebook/s2t-small-librispeech-asr"',
    ),
    Family(
        name="seamless-m4t", kind="encoder-decoder", model_types=("seamless_m4t", "seamless_m4t_v2"),
        loader="asraudit.models.hf:HFSeq2Seq", transcribe="greedy, beam; 30-s windows",
        score="teacher-forced after the target-language token (language=eng by default)",
        whitebox_sites="-", example='spec = "hf:facebook/seamless-m4t-v2-large"',
    ),
    # encoder-decoder, streaming (models/hf_kyutai.py): the score is a certified marginal (models/kyutai_marginal.py)
    Family(
        name="kyutai-stt", kind="encoder-decoder", model_types=("kyutai_speech_to_text",),
        loader="asraudit.models.hf_kyutai:HFKyutaiSTT", transcribe="greedy (one text token per audio frame); windows at the model's positions",
        score="certified marginal over the text's placements among the frames (lower = upper bound within score_tolerance), per-token prefix terms",
        whitebox_sites="-", example='spec = "hf:kyutai/stt-2.6b-en-trfs"',
    ),
    Family(
        name="wav2vec2-ctc", kind="ctc", model_types=("wav2vec2", "hubert", "wavlm", "data2vec-audio", "unispeech", "unispeech-sat", "sew", "sew-d", "wav2vec2-conformer"),
        loader="asraudit.models.hf:HFCTC", transcribe="greedy", score="CTC forward, per-token prefix terms",
        whitebox_sites="-", example='spec = "hf:facebook/wav2vec2-base-960h"',
    ),
    # speech-llm: audio encoder + decoder-only LM answering a transcription prompt (models/hf_speech_llm.py)
    Family(
        name="qwen2-audio", kind="speech-llm", model_types=("qwen2_audio",),
        loader="asraudit.models.hf_speech_llm:HFSpeechLLM", transcribe="greedy, beam",
        score="teacher-forced assistant turn, end-of-turn included; prompt cached",
        whitebox_sites="audio-encoder layers, LM layers (and their audio positions), projector",
        example='spec = "hf:Qwen/Qwen2-Audio-7B"',
    ),
    Family(
        name="qwen3-asr", kind="speech-llm", model_types=("qwen3_asr",),
        loader="asraudit.models.hf_speech_llm:HFSpeechLLM", transcribe="greedy, beam",
        score="teacher-forced assistant turn, end-of-turn included; prompt cached",
        whitebox_sites="-", example='spec = "hf:Qwen/Qwen3-ASR-0.6B"',
    ),
    Family(
        name="glm-asr", kind="speech-llm", model_types=("glmasr",),
        loader="asraudit.models.hf_speech_llm:HFSpeechLLM", transcribe="greedy, beam",
        score="teacher-forced assistant turn, end-of-turn included; prompt cached",
        whitebox_sites="-", example='spec = "hf:zai-org/GLM-ASR-Nano-2512"',
    ),
    Family(
        name="audio-flamingo-3", kind="speech-llm", model_types=("audioflamingo3",),
        loader="asraudit.models.hf_speech_llm:HFSpeechLLM", transcribe="greedy, beam",
        score="teacher-forced assistant turn (its framing's closing and end-of-turn included); prompt cached",
        whitebox_sites="-", example='spec = "hf:nvidia/audio-flamingo-3-hf"',
    ),
    Family(
        name="fun-asr-nano", kind="speech-llm", model_types=("fun_asr_nano",),
        loader="asraudit.models.hf_speech_llm:HFSpeechLLM", transcribe="greedy, beam",
        score="teacher-forced assistant turn, end-of-turn included; prompt cached",
        whitebox_sites="-", example='spec = "hf:FunAudioLLM/Fun-ASR-Nano-2512-hf"  (no torchaudio needed)',
    ),
    Family(
        name="voxtral", kind="speech-llm", model_types=("voxtral",),
        loader="asraudit.models.hf_speech_llm:HFSpeechLLM", transcribe="greedy, beam",
        score="teacher-forced assistant turn, end-of-turn included; prompt cached",
        whitebox_sites="-", example='spec = "hf:mistralai/Voxtral-Mini-3B-2507"  (needs mistral-common)',
    ),
    Family(
        name="phi-4-multimodal", kind="speech-llm", model_types=("phi4_multimodal",),
        loader="asraudit.models.hf_speech_llm:HFSpeechLLM", transcribe="greedy, beam",
        score="teacher-forced assistant turn, end-of-turn included; prompt cached",
        whitebox_sites="-", example='spec = "hf:microsoft/Phi-4-multimodal-instruct"  (its speech-lora/ is merged in; no peft needed)',
    ),
    Family(
        name="granite-speech", kind="speech-llm", model_types=("granite_speech",),
        loader="asraudit.models.hf_speech_llm:HFSpeechLLM", transcribe="greedy, beam",
        score="teacher-forced assistant turn, end-of-turn included; prompt cached",
        whitebox_sites="audio-encoder layers, LM layers (and their audio positions), projector",
        example='spec = "hf:ibm-granite/granite-speech-3.3-2b"  (its LoRA adapter is merged in; no peft needed)',
    ),
    Family(
        name="granite-speech-plus", kind="speech-llm", model_types=("granite_speech_plus",),
        loader="asraudit.models.hf_speech_llm:HFSpeechLLM", transcribe="greedy, beam",
        score="teacher-forced assistant turn, end-of-turn included; prompt cached",
        whitebox_sites="-",
        example='spec = "hf:ibm-granite/granite-speech-4.1-2b-plus"  (a LoRA adapter in its folder is merged in; no peft needed)',
    ),
    # transducers (and the CTC heads of the same encoders)
    Family(
        name="parakeet-tdt", kind="transducer", model_types=("parakeet_tdt",),
        loader="asraudit.models.hf_transducer:HFTransducer", transcribe="greedy, beam (transducer beam search)",
        score="exact sum over alignments (TDT forward, durations included), per-token prefix terms",
        whitebox_sites="encoder layers (conformer blocks), decoder (prediction-network output per label)", example='spec = "hf:nvidia/parakeet-tdt-0.6b-v3"',
    ),
    Family(
        name="parakeet-rnnt", kind="transducer", model_types=("parakeet_rnnt",),
        loader="asraudit.models.hf_transducer:HFTransducer", transcribe="greedy, beam (transducer beam search)",
        score="exact sum over alignments (RNN-T forward), per-token prefix terms",
        whitebox_sites="encoder layers (conformer blocks), decoder (prediction-network output per label)", example='spec = "hf:nvidia/parakeet-rnnt-0.6b"',
    ),
    Family(
        name="parakeet-ctc", kind="ctc", model_types=("parakeet_ctc",),
        loader="asraudit.models.hf_encoder_ctc:HFEncoderCTC", transcribe="greedy", score="CTC forward, per-token prefix terms",
        whitebox_sites="-", example='spec = "hf:nvidia/parakeet-ctc-1.1b"',
    ),
    Family(
        name="lasr-ctc", kind="ctc", model_types=("lasr_ctc",),
        loader="asraudit.models.hf_encoder_ctc:HFEncoderCTC", transcribe="greedy", score="CTC forward, per-token prefix terms",
        whitebox_sites="-", example='spec = "hf:google/medasr"',
    ),
    Family(
        name="wav2vec2-bert-ctc", kind="ctc", model_types=("wav2vec2-bert",),
        loader="asraudit.models.hf_encoder_ctc:HFEncoderCTC", transcribe="greedy", score="CTC forward, per-token prefix terms",
        whitebox_sites="-", example='spec = "hf:ORG/NAME"  (a Wav2Vec2BertForCTC fine-tune of facebook/w2v-bert-2.0)',
    ),
    Family(
        name="omniasr-ctc", kind="ctc", model_types=("omniasr_ctc",),
        loader="asraudit.models.hf_encoder_ctc:HFEncoderCTC", transcribe="greedy", score="CTC forward, per-token prefix terms",
        whitebox_sites="-", example='spec = "hf:hf-audio/omniasr-ctc-300m-v2"',
    ),
)


# Speech model types transformers holds that no asraudit family can run yet, and why: refused by
# name instead of falling through to the generic seq2seq runner, which would fail in their forward pass.
UNSUPPORTED: dict[str, str] = {
    # transformers lists it as a speech seq2seq model, so it fell to the generic runner, whose forward it does not take.
    "vibevoice_asr": (
        "its answer is a JSON list of timed, speaker-labelled segments (Start, End, Speaker, Content), so a "
        "candidate transcript is no one token sequence to score, and its audio encoder adds random noise to its "
        "latents unless told not to (sample=True), so its own generate is not repeatable; no asraudit family "
        "scores such answers yet"
    ),
    # Not speech recognisers: transformers lists them as speech seq2seq models (their heads write audio or music).
    "dia": "a text-to-speech model (Dia): it writes audio codes from a text script, not transcripts",
    "vibevoice": "a text-to-speech model (VibeVoice): it writes audio, not transcripts (its recogniser is vibevoice_asr)",
    "pop2piano": "a music model (Pop2Piano): it writes piano MIDI tokens for a song's audio, not transcripts",
    "speecht5": (
        "one model type for SpeechT5's text-to-speech, speech-to-speech and speech-to-text checkpoints, and its "
        "speech-to-text head (microsoft/speecht5_asr) has not been tested through asraudit's runner"
    ),
    # Recognisers asraudit cannot run honestly yet.
    "omniasr": (
        "OmniASR's LLM variant (a wav2vec2 encoder feeding a Llama decoder) is a speech LLM whose prompt "
        "(language tag, end token) asraudit has no tested prompt format for; its CTC variant (omniasr_ctc) runs"
    ),
    "voxtral_realtime": (
        "streaming Voxtral writes its text a fixed number of audio frames behind the audio it hears, its request built "
        "by mistral-common's streaming format; asraudit has no tested runner for that delayed, frame-paced decoding "
        "(the offline voxtral family runs)"
    ),
    "granite_speech5_ctc": (
        "its feature extractor needs torchaudio, which does not load against the installed torch, and asraudit has "
        "no torch-only copy of its features (log-mels with deltas) yet"
    ),
    # Audio-capable chat models: no transcription prompt, end token or scoring of theirs is tested in asraudit.
    "gemma3n": "an audio-capable multimodal chat model with no tested transcription prompt format in asraudit",
    "qwen2_5_omni": "an audio-capable multimodal chat model with no tested transcription prompt format in asraudit",
    "qwen3_omni_moe": "an audio-capable multimodal chat model with no tested transcription prompt format in asraudit",
}


def families() -> tuple[Family, ...]:
    """Every listed family, then the generic fallbacks."""
    return FAMILIES + (_GENERIC_SEQ2SEQ, _GENERIC_CTC)


def family_for(config, source: str) -> Family:
    """The family of a loaded transformers ``config``; an InputError naming ``source`` when none fits."""
    model_type = getattr(config, "model_type", None)
    if model_type in UNSUPPORTED:
        raise InputError(f"model {source!r} is a {model_type} model, which asraudit cannot run: {UNSUPPORTED[model_type]}")
    for family in FAMILIES:
        if model_type in family.model_types:
            return family
    from transformers import MODEL_FOR_CTC_MAPPING, MODEL_FOR_SPEECH_SEQ_2_SEQ_MAPPING

    if type(config) in MODEL_FOR_SPEECH_SEQ_2_SEQ_MAPPING:
        return _GENERIC_SEQ2SEQ
    if type(config) in MODEL_FOR_CTC_MAPPING:
        return _GENERIC_CTC
    supported = sorted({t for f in FAMILIES for t in f.model_types})
    raise InputError(
        f"model {source!r} has model_type {model_type!r}, which asraudit cannot load as a speech model "
        f"(supported: {', '.join(supported)}, or any speech seq2seq or CTC model); "
        "check that the folder holds a speech recognition model"
    )
