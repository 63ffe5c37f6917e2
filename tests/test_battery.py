"""The trigger battery: spec checking, channels and donors, verdicts with donor words, readout, end to end."""

from __future__ import annotations

import contextlib
import io
import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from asraudit.audio.conditions import DonorSplice, Noise, Original, SpanMask
from asraudit.cli import main
from asraudit.data.corpus import Clip
from asraudit.errors import InputError
from asraudit.probes.battery import (
    BatterySpec,
    ConditionSpec,
    ContrastSpec,
    DonorPool,
    load_spec,
    parse_spec,
    verdict_under,
)
from asraudit.probes.battery_readout import paired_samples, readout
from asraudit.probes.battery_run import corrected_texts
from asraudit.probes.channel import Channel, changes_length
from asraudit.probes.lift_run import EditItem
from asraudit.text.normalize import get_normalizer

BENCH = Path(__file__).resolve().parents[1] / "src" / "asraudit" / "demo" / "data" / "parliament_mini"


# ------------------------------------------------------------------ spec


def _spec(*conditions, **top):
    return {"condition": list(conditions), **top}


@pytest.mark.parametrize("data, message", [
    (_spec({"name": "x", "type": "thunder"}), "type must be one of"),
    (_spec({"name": "n", "type": "noise"}), "missing snr_db"),
    (_spec({"name": "n", "type": "noise", "snr_db": 10, "colour": "pink"}), "unknown key"),
    (_spec({"name": "c", "type": "codec", "quality": 2}), "out of range"),
    (_spec({"name": "s", "type": "splice", "donor": "elsewhere", "seconds": 8}), "donor must be"),
    (_spec({"name": "o", "type": "original"}, {"name": "o", "type": "original"}), "repeat"),
    (_spec({"name": "o", "type": "original"}, contrast=[{"treatment": "o", "control": "p"}]), "no condition named 'p'"),
    (_spec({"name": "o", "type": "original"}, probes=["wer"]), "probes must be"),
    ({"probes": ["recovery"]}, "at least one"),
])
def test_bad_specs_say_which_entry_is_wrong(data, message):
    with pytest.raises(InputError, match=message):
        parse_spec(data, "spec.toml")


def test_the_built_in_paper_battery_has_the_paired_splice_contrast():
    spec = load_spec("paper")
    names = [c.name for c in spec.conditions]
    assert names[0] == "original" and {"suffix-benchmark", "suffix-other", "revoice-espeak"} <= set(names)
    (contrast,) = spec.contrasts
    assert (contrast.treatment, contrast.control, contrast.baseline) == ("suffix-benchmark", "suffix-other", "original")
    assert spec.condition("white-10dB").params["snr_db"] == 10


def test_a_spec_file_that_is_not_toml_is_an_input_error(tmp_path):
    bad = tmp_path / "b.toml"
    bad.write_text("name = \n")
    with pytest.raises(InputError, match="not valid TOML"):
        load_spec(bad)


# -------------------------------------------------------------- channels


def test_the_identity_channel_keeps_the_plain_probe_job_keys():
    mask = SpanMask(1.0, 1.4)
    assert Channel().audio().id == "original" and Channel().audio(mask).id == mask.id
    assert Channel().silence().id == "silence"
    noisy = Channel(Noise(10.0))
    assert noisy.silence().id == "silence" and noisy.audio(mask).id == f"{mask.id}+{Noise(10.0).id}"


def test_a_length_changing_channel_gets_silence_of_its_own_length():
    splice = DonorSplice(np.ones(8000, dtype=np.float32), "d", 0.5)
    ch = Channel(splice, prefix="hello there")
    assert changes_length(splice) and not changes_length(Original())
    silent = ch.silence()(np.ones(16000, dtype=np.float32))
    assert len(silent) == 24000 and not silent.any()
    assert ch.view(["a", "b"]) == (["hello", "there", "a", "b"], 2)


def _clip(cid, text, seconds=1.0, value=0.1):
    return Clip(cid, np.full(int(seconds * 16000), value, dtype=np.float32), text)


def test_benchmark_donors_exclude_the_clip_and_its_sentence_and_last_long_enough():
    corpus = [_clip("a", "same words"), _clip("b", "Same  words"), _clip("c", "other one", 1.5),
              _clip("d", "third one", 1.5)]
    pool = DonorPool("benchmark", corpus, {c.id: c.reference for c in corpus})
    donor = pool.donors_for("a", "same words", seconds=2.0, seed=0)
    assert set(donor.id.split("+")) == {"c", "d"}  # never "a" itself nor "b" (the same sentence)
    assert len(donor.audio) >= 2.0 * 16000 and donor.text in ("other one third one", "third one other one")
    assert pool.donors_for("a", "same words", seconds=2.0, seed=0) == donor  # seeded, not random
    with pytest.raises(InputError, match="no utterance other"):
        DonorPool("benchmark", corpus[:2], {}).donors_for("a", "same words", 1.0, 0)


# -------------------------------------------------------------- verdicts


def _item(ref: str, start: int, end: int, a: str) -> EditItem:
    return EditItem("e", "c", "", "", tuple(ref.split()), start, end, tuple(a.split()))


def test_verdicts_read_past_the_words_a_donor_adds():
    n = get_normalizer("whisper")
    # Reference ends with "thank you", which was not said (an end deletion).
    item = _item("we support the compromise thank you", 4, 6, "")
    spliced = Channel(Noise(10.0), suffix="The bakery opens early.")
    heard = "We support the compromise. The bakery opens early."
    assert verdict_under(item, heard, spliced, n) == "audio"
    assert verdict_under(item, "We support the compromise, thank you. The bakery opens early.", spliced, n) == "ref"
    # Read without the donor's words, the same hypothesis is a third reading.
    assert verdict_under(item, heard, Channel(), n) == "other"
    assert verdict_under(item, "bakery", spliced, n) == "ineligible"


def test_corrected_text_applies_every_edit_of_a_clip():
    ref = "madam president we we must act now"
    edits = [EditItem("1", "c", "delete", "start", tuple(ref.split()), 0, 2, ()),
             EditItem("2", "c", "substitute", "middle", tuple(ref.split()), 5, 6, ("today",))]
    assert corrected_texts(edits) == {"c": "we we must today now"}


# -------------------------------------------------------------- readout


def _cells(values_by_condition):
    return {cond: {f"i{k}": (f"clip{k}", float(v), 1.0) for k, v in enumerate(values)}
            for cond, values in values_by_condition.items()}


def test_readout_reports_change_from_original_and_difference_in_differences():
    spec = BatterySpec("t", ("recovery",), (ConditionSpec("original", "original", {}),
                                            ConditionSpec("bench", "splice", {}), ConditionSpec("other", "splice", {})),
                       (ContrastSpec("bench vs other", "bench", "other"),))
    per = _cells({"original": [0] * 20, "bench": [1] * 8 + [0] * 12, "other": [1] * 2 + [0] * 18})
    cells = {("m", "recovery", c): v for c, v in per.items()}
    result = readout(spec, cells, ["m"], n_boot=400, seed=1)
    rows = {r.condition: r for r in result.rows}
    assert rows["bench"].value.estimate == pytest.approx(0.4) and rows["bench"].value.n == 20
    assert 0.2 < rows["bench"].value.low < 0.4 < rows["bench"].value.high  # Wilson
    assert rows["bench"].delta.estimate == pytest.approx(0.4) and rows["original"].delta is None
    (did,) = result.contrasts
    assert did.did.estimate == pytest.approx(0.3)
    assert did.did.low < 0.3 < did.did.high and did.did.low > 0  # paired: the clips that flipped are the same


def test_paired_resampling_uses_the_same_clips_for_every_condition():
    a = {"x": ("c1", 1.0, 1.0), "y": ("c2", 0.0, 1.0)}
    samples = paired_samples([a, a], n_boot=200, seed=0)
    assert np.array_equal(samples[:, 0], samples[:, 1])


# ------------------------------------------------------------ end to end

EDIT_CLIP = "audio/s001-flite-slt.ogg"
NUMBER_CLIP = "audio/s013-flite-slt.ogg"
OTHER_CLIP = "audio/s002-flite-slt.ogg"

SPEC = """
name = "test"
probes = ["accept-ref", "recovery", "lift"]
[[condition]]
name = "original"
type = "original"
[[condition]]
name = "suffix-benchmark"
type = "splice"
donor = "benchmark"
seconds = 2
[[condition]]
name = "suffix-other"
type = "splice"
donor = "corpus:{other}"
seconds = 2
[[contrast]]
name = "bench vs other"
treatment = "suffix-benchmark"
control = "suffix-other"
"""


def _cli(*argv):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main([str(a) for a in argv])
    return code, out.getvalue(), err.getvalue()


@pytest.fixture(scope="module")
def battery_run(tmp_path_factory):
    from asraudit.models import embedded

    pytest.importorskip("pocketsphinx")
    if not embedded.is_present("whisper-tiny.en"):
        pytest.skip("whisper-tiny.en is not installed")
    root = tmp_path_factory.mktemp("battery")
    rows = {json.loads(line)["audio_filepath"]: json.loads(line) for line in (BENCH / "test.jsonl").read_text().splitlines()}
    (root / "audio").mkdir()
    for cid in (EDIT_CLIP, NUMBER_CLIP, OTHER_CLIP):
        shutil.copy(BENCH / cid, root / cid)
    (root / "bench.jsonl").write_text("".join(json.dumps(rows[c]) + "\n" for c in (EDIT_CLIP, NUMBER_CLIP)))
    (root / "other.jsonl").write_text(json.dumps(rows[OTHER_CLIP]) + "\n")
    (root / "spec.toml").write_text(SPEC.format(other=root / "other.jsonl"))
    (root / "edits.jsonl").write_text(json.dumps({"edit_id": "e1", "clip": EDIT_CLIP, "kind": "delete",
                                                  "position": "start", "ref_start": 0, "ref_end": 2,
                                                  "r": "madam president", "a": ""}) + "\n")
    argv = ("battery", "--spec", root / "spec.toml", "--model", "whisper-tiny.en", "--corpus", root / "bench.jsonl",
            "--edits", root / "edits.jsonl", "--text-field", "spoken", "--out", root / "out", "--no-progress",
            "--bootstrap", "200", "--json", root / "battery.json", "--option", "beam_size=1")
    code, stdout, stderr = _cli(*argv)
    assert code == 0, stderr
    return root, argv, stdout


def test_the_battery_prints_every_condition_per_probe_and_the_contrast(battery_run):
    root, _, stdout = battery_run
    for title in ("battery test: accept-ref", "battery test: recovery", "battery test: lift(r)",
                  "battery test: lift(mask)", "difference in differences"):
        assert title in stdout
    for condition in ("original", "suffix-benchmark", "suffix-other"):
        assert condition in stdout
    result = json.loads((root / "battery.json").read_text())
    rows = {(r["readout"], r["condition"]): r for r in result["rows"]}
    assert rows[("accept-ref", "original")]["value"]["n"] == 1
    # The clean model drops the unspoken "Madam President" and never writes the silenced number.
    assert rows[("accept-ref", "original")]["value"]["estimate"] == 0.0
    assert all(rows[("recovery", c)]["value"]["estimate"] == 0.0 for c in ("original", "suffix-other"))
    assert rows[("accept-ref", "suffix-benchmark")]["delta_from_original"] is not None
    assert {c["readout"] for c in result["contrasts"]} >= {"accept-ref", "recovery"}


def test_a_second_battery_run_is_answered_from_the_store(battery_run):
    from asraudit.run.store import ResultStore

    root, argv, stdout = battery_run
    with ResultStore(root / "out" / "asraudit.sqlite") as store:
        before = store.count()
    code, again, _ = _cli(*argv)
    with ResultStore(root / "out" / "asraudit.sqlite") as store:
        assert store.count() == before
    assert code == 0 and again == stdout
