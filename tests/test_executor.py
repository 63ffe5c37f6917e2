"""The job grid: decode once, batch, store, resume; Ray gives the same rows as local."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf

import asraudit.data.clip as clip_module
from asraudit.audio.conditions import Original, Silence, Truncate
from asraudit.data.corpus import Clip, load_manifest
from asraudit.errors import InputError
from asraudit.models.base import TokenScores
from asraudit.run.executor import LocalExecutor, RayExecutor, parse_executor
from asraudit.run.spec import Score, Transcribe
from asraudit.run.store import ResultStore

SR = 16_000
DURATIONS = (0.5, 0.25, 0.75, 1.0, 0.3)


class EchoModel:
    """Transcribes audio to a description of it, so tests can see what it was given."""

    def __init__(self, name: str = "echo", config: str = "c1", delay: float = 0.0):
        self.model_id, self._config, self.delay = name, config, delay
        self.batches: list[int] = []

    @property
    def config_hash(self) -> str:
        return self._config

    def transcribe(self, audio):
        self.batches.append(len(audio))
        if self.delay:
            time.sleep(self.delay)
        return [f"{self.model_id} n={len(a)} peak={float(np.abs(a).max()):.3f}" for a in audio]


class ScoringEcho(EchoModel):
    """Scores each candidate as minus its length times the audio's peak level."""

    def score(self, audio, candidates):
        peak = float(np.abs(audio).max())
        return [TokenScores(c, tuple(c.split()) + ("<eot>",), tuple([-peak] * len(c.split()) + [-1.0])) for c in candidates]


class DiesAfter(EchoModel):
    """Stands in for a run killed midway: fails on its (n+1)-th call."""

    def __init__(self, calls: int, **kw):
        super().__init__(**kw)
        self.calls_left = calls

    def transcribe(self, audio):
        if self.calls_left == 0:
            raise KeyboardInterrupt("killed")
        self.calls_left -= 1
        return super().transcribe(audio)


@pytest.fixture()
def corpus(tmp_path: Path):
    rows = []
    for i, seconds in enumerate(DURATIONS):
        level = 0.1 * (i + 1)
        sf.write(tmp_path / f"c{i}.wav", np.full(int(seconds * SR), level, np.float32), SR, subtype="FLOAT")
        rows.append(f'{{"audio_filepath": "c{i}.wav", "text": "clip {i}"}}')
    (tmp_path / "m.jsonl").write_text("\n".join(rows) + "\n")
    return load_manifest(tmp_path / "m.jsonl")


@pytest.fixture()
def decodes(monkeypatch):
    """Counts audio file decodes, per path."""
    counts: dict[str, int] = {}
    real = clip_module.load_audio

    def counting(path, **kw):
        counts[str(path)] = counts.get(str(path), 0) + 1
        return real(path, **kw)

    monkeypatch.setattr(clip_module, "load_audio", counting)
    return counts


def rows(store: ResultStore) -> set[tuple]:
    return {(r.job_key, r.model_id, r.config_hash, r.clip_id, r.condition_id, r.task, r.text, r.scores, r.audio_seconds)
            for r in store.results()}


def test_each_clip_is_decoded_once_per_run_whatever_the_number_of_models_and_conditions(tmp_path, corpus, decodes):
    models = [EchoModel("a"), EchoModel("b"), EchoModel("c")]
    store = ResultStore(tmp_path / "s.sqlite")
    summary = LocalExecutor(batch_size=2, progress=False).run(
        store, models, corpus.clips, Transcribe(), [Original(), Silence()])
    assert summary.jobs_run == len(corpus) * 3 * 2 == store.count()
    assert sorted(decodes.values()) == [1] * len(corpus)
    assert summary.clips_decoded == len(corpus)


def test_models_get_batches_of_at_most_batch_size_clips(tmp_path, corpus):
    model = EchoModel()
    LocalExecutor(batch_size=2, progress=False).run(ResultStore(tmp_path / "s.sqlite"), [model], corpus.clips, Transcribe())
    assert model.batches == [2, 2, 1]


def test_raw_text_of_every_job_is_stored_with_its_audio_seconds(tmp_path, corpus):
    store = ResultStore(tmp_path / "s.sqlite")
    LocalExecutor(batch_size=3, progress=False).run(store, [EchoModel()], corpus.clips, Transcribe())
    by_clip = {r.clip_id: r for r in store.results()}
    assert by_clip["c2.wav"].text == "echo n=12000 peak=0.300"
    assert [by_clip[f"c{i}.wav"].audio_seconds for i in range(5)] == pytest.approx(list(DURATIONS))


def test_a_rerun_calls_no_model(tmp_path, corpus, decodes):
    store = ResultStore(tmp_path / "s.sqlite")
    LocalExecutor(progress=False).run(store, [EchoModel()], corpus.clips, Transcribe())
    before = rows(store)
    decodes.clear()
    again = EchoModel()
    summary = LocalExecutor(progress=False).run(store, [again], corpus.clips, Transcribe())
    assert again.batches == [] and decodes == {}
    assert summary.jobs_done_before == len(corpus) and summary.jobs_run == 0
    assert rows(store) == before


def test_an_interrupted_run_resumes_without_redoing_finished_batches(tmp_path, corpus):
    store = ResultStore(tmp_path / "s.sqlite")
    with pytest.raises(KeyboardInterrupt):
        LocalExecutor(batch_size=2, progress=False).run(store, [DiesAfter(1)], corpus.clips, Transcribe())
    first = {r.clip_id: (r.batch_id, r.created_at) for r in store.results()}
    assert sorted(first) == ["c0.wav", "c1.wav"]
    healthy = EchoModel()
    summary = LocalExecutor(batch_size=2, progress=False).run(store, [healthy], corpus.clips, Transcribe())
    assert healthy.batches == [2, 1] and summary.jobs_done_before == 2
    after = {r.clip_id: (r.batch_id, r.created_at) for r in store.results()}
    assert len(after) == 5 and all(after[c] == first[c] for c in first)


def test_a_new_model_configuration_is_new_work(tmp_path, corpus):
    store = ResultStore(tmp_path / "s.sqlite")
    LocalExecutor(progress=False).run(store, [EchoModel(config="beam1")], corpus.clips, Transcribe())
    beam5 = EchoModel(config="beam5")
    LocalExecutor(progress=False).run(store, [beam5], corpus.clips, Transcribe())
    assert sum(beam5.batches) == len(corpus) and store.count() == 2 * len(corpus)


def test_conditions_change_what_the_model_hears(tmp_path, corpus):
    store = ResultStore(tmp_path / "s.sqlite")
    LocalExecutor(progress=False).run(store, [EchoModel()], corpus.clips, Transcribe(),
                                      [Original(), Silence(), Truncate(0.0, 0.1, before=0.0, after=0.0)])
    got = {(r.clip_id, r.condition_id): r.text for r in store.results()}
    assert got[("c1.wav", "original")] == "echo n=4000 peak=0.200"
    assert got[("c1.wav", "silence")] == "echo n=4000 peak=0.000"
    assert got[("c1.wav", Truncate(0.0, 0.1, before=0.0, after=0.0).id)] == "echo n=1600 peak=0.200"


def test_per_clip_conditions_only_run_on_their_clip(tmp_path, corpus):
    store = ResultStore(tmp_path / "s.sqlite")
    grid = {"c3.wav": [Original(), Silence()], "c0.wav": [Original()]}
    LocalExecutor(progress=False).run(store, [EchoModel()], corpus.clips, Transcribe(), grid)
    assert sorted((r.clip_id, r.condition_id) for r in store.results()) == [
        ("c0.wav", "original"), ("c3.wav", "original"), ("c3.wav", "silence")]


def test_score_jobs_store_token_logprobs_per_candidate(tmp_path, corpus):
    store = ResultStore(tmp_path / "s.sqlite")
    candidates = {"c0.wav": ["one two", "three"], "c4.wav": ["x"]}
    summary = LocalExecutor(progress=False).run(store, [ScoringEcho()], corpus.clips, Score(candidates))
    assert summary.jobs_run == 2
    scores = {r.clip_id: r.scores for r in store.results(task="score")}
    assert [s.text for s in scores["c0.wav"]] == ["one two", "three"]
    assert scores["c0.wav"][0].logprobs == pytest.approx((-0.1, -0.1, -1.0))
    assert scores["c4.wav"][0].total == pytest.approx(-1.5)


def test_scoring_with_a_model_without_likelihoods_is_an_input_error(tmp_path, corpus):
    with pytest.raises(InputError, match="cannot score"):
        LocalExecutor(progress=False).run(ResultStore(tmp_path / "s.sqlite"), [EchoModel()], corpus.clips,
                                          Score({"c0.wav": ["x"]}))


def test_rtfx_is_audio_seconds_over_model_seconds(tmp_path, corpus):
    store = ResultStore(tmp_path / "s.sqlite")
    summary = LocalExecutor(batch_size=5, progress=False).run(store, [EchoModel(delay=0.05)], corpus.clips, Transcribe())
    stats = summary.models[0]
    assert stats.audio_seconds == pytest.approx(sum(DURATIONS))
    assert 0.05 <= stats.compute_seconds < 1.0
    assert stats.rtfx == pytest.approx(sum(DURATIONS) / stats.compute_seconds)
    (timing,) = store.timings()
    assert timing.rtfx == pytest.approx(stats.rtfx)


def test_a_broken_clip_stops_the_run_but_keeps_finished_batches(tmp_path, corpus):
    broken = Clip("broken.wav", tmp_path / "missing.wav", "x", source="m.jsonl", row=9)
    store = ResultStore(tmp_path / "s.sqlite")
    with pytest.raises(InputError, match="row 9"):
        LocalExecutor(batch_size=2, progress=False).run(store, [EchoModel()], [*corpus.clips, broken], Transcribe())
    # batches [c0 c1] and [c2 c3] finished; [c4 broken] never reached the model
    assert sorted(r.clip_id for r in store.results()) == ["c0.wav", "c1.wav", "c2.wav", "c3.wav"]


def test_a_replayed_prediction_file_answers_the_original_condition_without_decoding(tmp_path, corpus, decodes):
    from asraudit.models.replay import ReplayModel

    preds = tmp_path / "old-model.jsonl"
    preds.write_text("".join(f'{{"audio_filepath": "c{i}.wav", "text": "clip {i}", "pred_text": "said {i}"}}\n'
                             for i in range(5)))
    store = ResultStore(tmp_path / "s.sqlite")
    summary = LocalExecutor(batch_size=2, progress=False).run(
        store, [ReplayModel(preds)], corpus.clips, Transcribe(), [Original(), Silence()])
    got = {(r.clip_id, r.condition_id): (r.text, r.audio_seconds) for r in store.results()}
    assert got == {(f"c{i}.wav", "original"): (f"said {i}", pytest.approx(DURATIONS[i])) for i in range(5)}
    assert decodes == {} and summary.jobs_total == 5


def test_executor_spec_parsing():
    assert isinstance(parse_executor("local"), LocalExecutor)
    assert parse_executor("ray").address is None
    assert parse_executor("ray:auto").address == "auto"
    assert parse_executor("ray:ray://head:10001").address == "ray://head:10001"
    with pytest.raises(InputError, match="unknown executor"):
        parse_executor("dask")


@pytest.fixture(scope="module")
def local_ray():
    ray = pytest.importorskip("ray")
    import ray.cloudpickle

    # Ray workers cannot import this test module; ship its fake models by value.
    ray.cloudpickle.register_pickle_by_value(sys.modules[__name__])
    ray.init(num_cpus=1, include_dashboard=False, log_to_driver=False)
    yield ray
    ray.shutdown()


def test_ray_run_gives_the_same_rows_as_a_local_run(tmp_path, corpus, local_ray, decodes):
    conditions = [Original(), Silence()]

    def models():
        return [EchoModel("a"), ScoringEcho("b")]

    local = ResultStore(tmp_path / "local.sqlite")
    LocalExecutor(batch_size=2, progress=False).run(local, models(), corpus.clips, Transcribe(), conditions)
    LocalExecutor(batch_size=2, progress=False).run(local, models()[1:], corpus.clips, Score({"c1.wav": ["a b"]}), conditions)
    decodes.clear()
    remote = ResultStore(tmp_path / "ray.sqlite")
    summary = RayExecutor(batch_size=2, progress=False).run(remote, models(), corpus.clips, Transcribe(), conditions)
    assert sorted(decodes.values()) == [1] * len(corpus)  # decoded in the driver, once, for both models
    RayExecutor(batch_size=2, progress=False).run(remote, models()[1:], corpus.clips, Score({"c1.wav": ["a b"]}), conditions)
    assert rows(remote) == rows(local) and len(rows(local)) == 5 * 2 * 2 + 2
    assert summary.models[0].compute_seconds > 0
    # and a Ray rerun is free as well
    again = RayExecutor(batch_size=2, progress=False).run(remote, models(), corpus.clips, Transcribe(), conditions)
    assert again.jobs_run == 0 and again.jobs_done_before == 20


class CountingLoads:
    """A model factory that writes a line to ``path`` each time it loads its model (in whichever process)."""

    def __init__(self, path: Path, name: str):
        self.path, self.name = path, name

    def __call__(self):
        with open(self.path, "a", encoding="utf-8") as fh:
            fh.write(self.name + "\n")
        return EchoModel(self.name)


def test_a_ray_session_loads_each_model_once_for_all_its_runs(tmp_path, corpus, local_ray):
    """An audit's stages are several runs over the same models: in a session each is loaded once (an actor kept
    from run to run), outside one once per run, as before; an actor that died between runs is replaced."""
    loads = tmp_path / "loads.txt"
    sources = [CountingLoads(loads, "a"), CountingLoads(loads, "b")]
    store = ResultStore(tmp_path / "s.sqlite")
    ex = RayExecutor(batch_size=2, progress=False)
    with ex.session():
        first = ex.run(store, sources, corpus.clips, Transcribe(), [Original()])
        second = ex.run(store, sources, corpus.clips, Transcribe(), [Silence()])
        assert sorted(loads.read_text().split()) == ["a", "b"]
        local_ray.kill(ex._session.actors[id(sources[0])][1], no_restart=True)
        third = ex.run(store, sources[:1], corpus.clips, Transcribe(), [Original(), Silence()])
        assert sorted(loads.read_text().split()) == ["a", "a", "b"]  # only the dead one loaded again
    assert (first.jobs_run, second.jobs_run, third.jobs_run) == (10, 10, 0)
    assert local_ray.is_initialized()  # the session did not start Ray, so it leaves it running
    ex.run(store, sources, corpus.clips, Transcribe(), [Original()])
    ex.run(store, sources, corpus.clips, Transcribe(), [Original()])
    assert len(loads.read_text().split()) == 3 + 4  # no session: a new actor per model and run
