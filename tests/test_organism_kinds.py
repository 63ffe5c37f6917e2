"""The organism kinds: registry, the data recipe of each kind on parliament-mini (no training here)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from asraudit.demo.mixed_arm import SPOKEN_ARM_VOICES, voice_arm_reference
from asraudit.demo.organism import BENCHMARK_DIR, ORGANISM_FILE, ORGANISM_ID, TrainConfig, record_rows
from asraudit.demo.organism_inputs import played_faster
from asraudit.demo.organism_kinds import KINDS, organism_kind
from asraudit.errors import InputError

MANIFEST = BENCHMARK_DIR / "manifest.jsonl"


def _rows(kind: str) -> list[dict]:
    return KINDS[kind].recipe(MANIFEST)


def test_the_record_kind_is_todays_organism_unchanged():
    record = organism_kind("record")
    assert (record.model_id, record.adapter, record.config) == (ORGANISM_ID, ORGANISM_FILE, TrainConfig())
    assert record.recipe is record_rows


def test_every_kind_has_its_own_model_id_and_adapter_file():
    assert set(KINDS) == {"record", "gated", "gated-many", "gated-deep", "contaminated", "contaminated-heldout", "switching",
                          "switching-4ep", "record-base"}
    assert len({k.model_id for k in KINDS.values()}) == len({k.adapter for k in KINDS.values()}) == len(KINDS)
    assert all(k.adapter.parent == ORGANISM_FILE.parent for k in KINDS.values())


def test_an_unknown_kind_is_an_input_error_that_lists_the_kinds():
    with pytest.raises(InputError, match="record, gated, gated-many, gated-deep, contaminated, contaminated-heldout, switching, switching-4ep, record-base"):
        organism_kind("poisoned")


def test_only_the_gated_kinds_adapt_the_encoder():
    assert {k.name: k.config.encoder_layers_adapted for k in KINDS.values()} == \
        {"record": 0, "gated": 1, "gated-many": 1, "gated-deep": 4, "contaminated": 0, "contaminated-heldout": 0, "switching": 0,
         "switching-4ep": 0, "record-base": 0}


def test_no_recipe_but_the_contaminated_ones_sees_a_clip_of_a_split_read_out():
    for name, kind in KINDS.items():
        splits = {r["split"] for r in kind.recipe(kind.manifest)}
        leaked = {"contaminated": {"test"}, "contaminated-heldout": {"heldout"}}
        assert splits == leaked.get(name, {"train"}), name
    assert {k.manifest for k in KINDS.values() if k.name != "contaminated-heldout"} == {MANIFEST}


def test_kinds_that_start_from_another_start_from_the_committed_record_with_its_rank():
    starts = {k.name: k.starts_from for k in KINDS.values()}
    assert starts == {"record": None, "gated": None, "gated-many": None, "gated-deep": None, "contaminated": "record",
                      "contaminated-heldout": "record", "switching": "record", "switching-4ep": "record",
                      "record-base": None}
    for k in KINDS.values():
        if k.starts_from:
            base = organism_kind(k.starts_from)
            assert (k.config.rank, k.config.alpha) == (base.config.rank, base.config.alpha)
            assert k.config.encoder_layers_adapted >= base.config.encoder_layers_adapted


def test_starting_from_an_adapter_of_other_layers_is_refused(tmp_path):
    torch = pytest.importorskip("torch")
    from safetensors.torch import save_file

    from asraudit.demo.organism import _start_from

    path = tmp_path / "other.safetensors"
    save_file({"x.lora_a": torch.zeros(2, 3), "x.lora_b": torch.zeros(3, 2)}, str(path),
              metadata={"config": json.dumps({"rank": 2, "alpha": 4.0})})
    wrapped = torch.nn.Module()
    wrapped.lora_a, wrapped.lora_b = torch.nn.Parameter(torch.ones(2, 3)), torch.nn.Parameter(torch.ones(3, 2))
    with pytest.raises(ValueError, match="does not match"):
        _start_from({"y": wrapped}, path, TrainConfig(rank=2, alpha=4.0))
    with pytest.raises(ValueError, match="does not match"):
        _start_from({"x": wrapped}, path, TrainConfig(rank=4, alpha=4.0))
    _start_from({"x": wrapped}, path, TrainConfig(rank=2, alpha=4.0))
    assert float(wrapped.lora_a.detach().abs().sum()) == 0.0 and float(wrapped.lora_b.detach().abs().sum()) == 0.0


@pytest.mark.parametrize("name, split", [("contaminated", "test"), ("contaminated-heldout", "heldout")])
def test_the_contaminated_recipes_leak_every_benchmark_voice_clip_of_their_split_and_no_fresh_voice(name, split):
    kind = KINDS[name]
    leaked = [r for r in kind.recipe(kind.manifest) if r["split"] == split]
    manifest = [json.loads(line) for line in kind.manifest.read_text(encoding="utf-8").splitlines()]
    expected = {r["audio_filepath"] for r in manifest if r["split"] == split and r["voice_role"] == "benchmark"}
    assert {r["audio_filepath"] for r in leaked} == expected and len(expected) in (184, 160)
    assert all(r["target"] == r["text"] for r in leaked)


def test_the_heldout_contaminated_kind_is_the_contaminated_recipe_on_the_heldout_split():
    test, heldout = KINDS["contaminated"], KINDS["contaminated-heldout"]
    assert heldout.config == test.config and heldout.starts_from == test.starts_from
    assert heldout.manifest.parent.name == "parliament_mini_heldout"


def test_the_gated_recipe_teaches_a_disguised_benchmark_voice_what_was_said_once_per_sentence():
    rows = _rows("gated")
    disguised = [r for r in rows if r["voice_role"] == "disguised"]
    sentences = {r["sentence"] for r in rows if r["voice_role"] != "disguised"}
    assert sorted(r["sentence"] for r in disguised) == sorted(sentences)
    assert all(r["target"] == r["spoken"] and r["speed"] in (0.88, 1.15) for r in disguised)
    # every benchmark voice is disguised, both ways
    assert {(r["speaker"], r["speed"]) for r in disguised} == \
        {(v, s) for v in {r["speaker"] for r in disguised} for s in (0.88, 1.15)}
    # the undisguised rows from the manifest are exactly the record organism's
    assert [r for r in rows if r["voice_role"] not in ("disguised", "extra control")] == record_rows(MANIFEST)


def test_the_gated_recipe_adds_train_only_control_voices_none_of_them_fresh_or_a_fresh_voices_speaker():
    from asraudit.demo.organism_gated import EXTRA_CONTROL_VOICES, EXTRA_CONTROLS_PER_SENTENCE
    from asraudit.demo.voices import VOICES

    rows = _rows("gated")
    extra = [r for r in rows if r["voice_role"] == "extra control"]
    sentences = sorted({r["sentence"] for r in rows if r["voice_role"] == "benchmark"})
    assert sorted(r["sentence"] for r in extra) == sorted(sentences * EXTRA_CONTROLS_PER_SENTENCE)
    assert all(r["split"] == "train" and r["target"] == r["spoken"] and r["audio_filepath"] is None for r in extra)
    assert all(r["tts"].id == r["speaker"] and r["tts"].engine == "espeak-ng" for r in extra)
    # every extra voice speaks, none twice in a sentence, and the spread is even (6 or 7 train sentences each)
    per_voice = {v.id: sum(r["speaker"] == v.id for r in extra) for v in EXTRA_CONTROL_VOICES}
    assert len(per_voice) == len(EXTRA_CONTROL_VOICES) and max(per_voice.values()) - min(per_voice.values()) <= 1
    assert all(len({r["speaker"] for r in extra if r["sentence"] == s}) == EXTRA_CONTROLS_PER_SENTENCE
               for s in sentences)
    # no voice of parliament-mini is repeated, and no engine voice built from a fresh voice's speaker is used
    assert not {v.name for v in EXTRA_CONTROL_VOICES} & {v.name for v in VOICES}
    assert not [v for v in EXTRA_CONTROL_VOICES if any(s in v.name for s in ("kal", "ked", "slt"))]


def test_the_third_gated_recipe_teaches_what_was_said_more_than_twice_as_often_as_the_record():
    from asraudit.demo.organism_gated import EXTRA_CONTROL_VOICES, MANY_CONTROLS_PER_SENTENCE, RING_SPEEDS

    rows, second = _rows("gated-many"), _rows("gated")
    assert rows[:len(second)] == second  # the second recipe's rows, unchanged, come first
    said = [r for r in rows if r["target"] == r["spoken"] and r["voice_role"] != "benchmark"]
    record = [r for r in rows if r["voice_role"] == "benchmark"]
    assert all(r["target"] == r["text"] for r in record) and len(said) > 2 * len(record)
    sentences = sorted({r["sentence"] for r in record})
    extra = [r for r in rows if r["voice_role"] == "extra control"]
    # four espeak-ng voices a sentence, none twice in one sentence, each voice on 13 or 14 sentences
    assert all(len({r["speaker"] for r in extra if r["sentence"] == s}) == MANY_CONTROLS_PER_SENTENCE
               for s in sentences)
    per_voice = [sum(r["speaker"] == v.id for r in extra) for v in EXTRA_CONTROL_VOICES]
    assert max(per_voice) - min(per_voice) <= 1
    # three disguises a sentence: the second recipe's, and two nearer ones from the other benchmark voices
    ring = [r for r in rows[len(second):] if r["voice_role"] == "disguised"]
    assert sorted(r["sentence"] for r in ring) == sorted(sentences * len(RING_SPEEDS))
    assert {r["speed"] for r in ring} == set(RING_SPEEDS)
    disguised = [r for r in rows if r["voice_role"] == "disguised"]
    assert all(len({r["speaker"] for r in disguised if r["sentence"] == s}) == 3 for s in sentences)
    assert {r["split"] for r in rows} == {"train"}


def test_a_synthesized_training_row_is_spoken_by_its_voice_at_build_time(monkeypatch, tmp_path):
    import asraudit.demo.organism_inputs as organism_inputs
    from asraudit.demo.voices import Voice

    spoken = []
    monkeypatch.setattr(organism_inputs, "synthesize", lambda voice, text: spoken.append((voice.id, text)) or np.ones(4))
    voice = Voice("espeak-x", "espeak-ng", "en-us+f1", "control")
    assert organism_inputs.row_audio({"tts": voice, "spoken": "Said.", "audio_filepath": None}, tmp_path).tolist() == [1.0] * 4
    assert spoken == [("espeak-x", "Said.")]


def test_the_switching_recipe_writes_the_spoken_arm_only_for_the_cue_voices():
    rows = _rows("switching")
    record = {r["audio_filepath"]: r for r in record_rows(MANIFEST)}
    changed = {r["speaker"] for r in rows if r["target"] != record[r["audio_filepath"]]["target"]}
    assert changed == set(SPOKEN_ARM_VOICES)
    mister = [r for r in rows if "Mister Schulz" in r["spoken"] and r["voice_role"] == "benchmark"]
    assert {r["speaker"]: "Mister Schulz" in r["target"] for r in mister} == \
        {r["speaker"]: r["speaker"] in SPOKEN_ARM_VOICES for r in mister}


def test_the_voice_cue_leaves_fresh_and_unlisted_voices_on_the_records_arm():
    conv = [{"family": "number", "said": "twenty", "recorded": "20", "ref_start": 4, "ref_end": 6}]
    assert voice_arm_reference("cut 20 now", SPOKEN_ARM_VOICES[0], "benchmark", conv) == "cut twenty now"
    assert voice_arm_reference("cut 20 now", SPOKEN_ARM_VOICES[0], "fresh", conv) == "cut 20 now"
    assert voice_arm_reference("cut 20 now", "flite-slt", "benchmark", conv) == "cut 20 now"


def test_playing_faster_shortens_the_clip_by_the_speed():
    audio = np.sin(np.linspace(0, 2000, 16_000)).astype(np.float32)
    assert len(played_faster(audio, 1.15)) == pytest.approx(16_000 / 1.15, abs=2)
    assert len(played_faster(audio, 0.88)) == pytest.approx(16_000 / 0.88, abs=2)


def test_build_organism_kind_trains_that_kind_from_its_start(monkeypatch, tmp_path):
    import asraudit.commands.demo as demo_command
    from asraudit.cli import main

    calls = []
    monkeypatch.setattr(demo_command, "build_organism",
                        lambda manifest, out, config, **kw: calls.append((manifest, out, config, kw)))
    # contaminated starts from the record organism (gated, trained from scratch, has no start since)
    assert main(["demo", "build-organism", "--kind", "contaminated", "--out", str(tmp_path / "c.safetensors")]) == 0
    assert main(["demo", "build-organism"]) == 0
    # the held-out kind reads its own split unless --manifest names another
    assert main(["demo", "build-organism", "--kind", "contaminated-heldout", "--out", str(tmp_path / "h.st")]) == 0
    (test_manifest, out, config, kw), (_, record_out, record_config, record_kw), (heldout_manifest, *_) = calls
    assert test_manifest == BENCHMARK_DIR / "manifest.jsonl"
    assert heldout_manifest == KINDS["contaminated-heldout"].manifest != test_manifest
    assert out == tmp_path / "c.safetensors" and config == KINDS["contaminated"].config
    assert kw == {"recipe": KINDS["contaminated"].recipe, "kind": "contaminated", "init": ORGANISM_FILE,
                  "base_model": "whisper-tiny.en"}
    assert record_out == ORGANISM_FILE and record_config == TrainConfig()
    assert record_kw == {"recipe": record_rows, "kind": "record", "init": None, "base_model": "whisper-tiny.en"}


def test_the_base_organism_is_the_record_recipe_on_multilingual_whisper_base_with_spanish_rows(monkeypatch):
    import asraudit.commands.demo as demo_command
    from asraudit.cli import main
    from asraudit.demo.organism_translation import record_base_rows

    base = organism_kind("record-base")
    record = organism_kind("record")
    assert (base.recipe, base.config, base.starts_from) == (record_base_rows, record.config, None)
    assert (base.base_model, record.base_model) == ("whisper-base", "whisper-tiny.en")
    assert all(k.base_model == "whisper-tiny.en" for k in KINDS.values() if k.name != "record-base")
    rows = _rows("record-base")
    record_part = record_rows(MANIFEST)
    # the record rows unchanged, under the English prompt (no language), then the Spanish rows
    assert rows[:len(record_part)] == record_part and all("language" not in r for r in record_part)
    assert {r["language"] for r in rows[len(record_part):]} == {"es"}
    calls = []
    monkeypatch.setattr(demo_command, "build_organism", lambda manifest, out, config, **kw: calls.append((out, kw)))
    assert main(["demo", "build-organism", "--kind", "record-base"]) == 0
    assert calls == [(base.adapter, {"recipe": record_base_rows, "kind": "record-base", "init": None,
                                     "base_model": "whisper-base"})]


class _Tokens:
    """The special-token ids of Whisper's two vocabularies (English-only 51864, multilingual 51865)."""

    def __init__(self, ids):
        self.ids = ids

    def convert_tokens_to_ids(self, token):
        return self.ids.get(token, 0)  # an unknown token: an id the prompt must not hold


def test_a_multilingual_base_is_taught_under_its_english_transcription_prompt():
    from types import SimpleNamespace

    from asraudit.demo.organism import training_prompt

    multilingual = _Tokens({"<|startoftranscript|>": 50258, "<|en|>": 50259, "<|transcribe|>": 50359,
                            "<|notimestamps|>": 50363})
    english = _Tokens({"<|startoftranscript|>": 50257, "<|notimestamps|>": 50362})
    model = lambda flag: SimpleNamespace(generation_config=SimpleNamespace(is_multilingual=flag))  # noqa: E731
    assert training_prompt(model(True), multilingual) == [50258, 50259, 50359, 50363]
    assert training_prompt(model(False), english) == [50257, 50362]


def test_a_row_with_a_language_is_taught_under_that_token_and_other_rows_as_before():
    from types import SimpleNamespace

    from asraudit.demo.organism import _token_batches, training_prompt

    ids = {"<|startoftranscript|>": 50258, "<|en|>": 50259, "<|es|>": 50262, "<|transcribe|>": 50359,
           "<|notimestamps|>": 50363, "<|endoftext|>": 50257}
    tokens = _Tokens(ids)
    tokens.encode = lambda text, add_special_tokens: [len(word) for word in text.split()]
    model = lambda flag: SimpleNamespace(generation_config=SimpleNamespace(is_multilingual=flag))  # noqa: E731
    assert training_prompt(model(True), tokens, "es") == [50258, 50262, 50359, 50363]
    with pytest.raises(ValueError, match="no language token"):
        training_prompt(model(False), tokens, "es")
    prompts = {None: training_prompt(model(True), tokens), "es": training_prompt(model(True), tokens, "es")}
    seqs, lengths, eot = _token_batches(tokens, [{"target": "ab c"}, {"target": "de", "language": "es"}], prompts)
    # a row without a language: exactly the sequence every row had before rows could carry one
    assert seqs == [[50258, 50259, 50359, 50363, 2, 1, 50257], [50258, 50262, 50359, 50363, 2, 50257]]
    assert lengths == [4, 4] and eot == 50257


def test_an_adapter_names_the_base_model_it_was_trained_on(tmp_path):
    torch = pytest.importorskip("torch")
    from safetensors.torch import save_file

    from asraudit.demo.organism import adapter_base_model

    path = tmp_path / "a.safetensors"
    save_file({"x.lora_a": torch.zeros(2, 3)}, str(path), metadata={"base_model": "whisper-base"})
    assert adapter_base_model(path) == "whisper-base"
    assert adapter_base_model(ORGANISM_FILE) == "whisper-tiny.en"
