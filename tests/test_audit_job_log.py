"""The audit's per-model job lines name the model whose jobs they count.

A stage's run can hold fewer models than the stage names: masked recovery
scores only the models that can score, so pocketsphinx (which cannot) has
no scoring jobs.  The lines were once paired with the names by position,
and a calibration rerun printed the organism's 105 new scoring jobs under
pocketsphinx's name."""

from __future__ import annotations

from asraudit.audit.context import AuditContext
from asraudit.run.grid import Identity, ModelRunStats


def _context(identities: dict[str, Identity]) -> AuditContext:
    return AuditContext(spec=None, out=None, corpus=None, store=None, executor=None, normalize=str,
                        identities=identities)


def test_each_line_names_the_model_whose_jobs_it_counts(capsys):
    ctx = _context({
        "tiny": Identity("whisper-tiny.en", "c1", True),
        "sphinx": Identity("pocketsphinx", "c2", False),  # cannot score: absent from a scoring run
        "organism": Identity("whisper-tiny.en-organism", "c3", True),
    })
    ctx.log_jobs("masked score", [ModelRunStats("whisper-tiny.en", "c1", jobs_done_before=105),
                                  ModelRunStats("whisper-tiny.en-organism", "c3", jobs_run=105)])
    assert capsys.readouterr().err.splitlines() == [
        "asraudit: tiny: masked score: 0 job(s) run now, 105 stored",
        "asraudit: organism: masked score: 105 job(s) run now, 0 stored",
    ]


def test_one_model_twice_under_two_names_is_told_apart_by_its_configuration(capsys):
    ctx = _context({"greedy": Identity("whisper-tiny.en", "beam1", True),
                    "beam": Identity("whisper-tiny.en", "beam5", True)})
    ctx.log_jobs("transcribe", [ModelRunStats("whisper-tiny.en", "beam5", jobs_run=3),
                                ModelRunStats("whisper-tiny.en", "beam1", jobs_run=2)], stored="already stored")
    assert capsys.readouterr().err.splitlines() == [
        "asraudit: beam: transcribe: 3 job(s) run now, 0 already stored",
        "asraudit: greedy: transcribe: 2 job(s) run now, 0 already stored",
    ]


def test_a_scorer_with_its_own_configuration_is_named_by_its_model_id(capsys):
    ctx = _context({"organism": Identity("whisper-tiny.en-organism", "transcribing", True)})
    ctx.log_jobs("lift", [ModelRunStats("whisper-tiny.en-organism", "scoring", jobs_run=1),
                          ModelRunStats("unknown-model", "x", jobs_run=1)])
    assert capsys.readouterr().err.splitlines() == [
        "asraudit: organism: lift: 1 job(s) run now, 0 stored",
        "asraudit: unknown-model: lift: 1 job(s) run now, 0 stored",
    ]
