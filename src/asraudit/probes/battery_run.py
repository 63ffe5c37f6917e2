"""Run a trigger battery through the store: every condition, every probe, then the readout.

Each condition becomes channels (``battery.Channels``); the probes' own
runners (``masked_run``, ``lift_run``) and the accept-ref verdicts of
``battery.verdict_under`` do the work under each channel.  The original
condition's jobs carry exactly the keys of ``asraudit transcribe``,
``asraudit mask`` and ``asraudit lift``, so a battery after those commands
only computes what is new.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Mapping, Sequence

from asraudit.audio.timing import WordTiming
from asraudit.probes.battery import BatterySpec, Channels, load_spec, normalized_channel, verdict_under
from asraudit.probes.battery_donors import DonorPool
from asraudit.probes.battery_readout import BatteryResult, Cell, readout
from asraudit.models.candidate_check import ScoreWindow
from asraudit.probes.lift_run import EditItem, read_lift, run_lift
from asraudit.probes.masked_run import MaskItem, read_masked, run_masked
from asraudit.probes.sampling import sample
from asraudit.run.spec import TRANSCRIBE, Transcribe, make_job


@dataclass(frozen=True)
class BatteryParams:
    """Knobs of the trigger battery (the audit spec's ``[battery]``)."""

    # the paper's conditions and contrasts (built in), or a battery TOML file
    spec: str = "paper"
    # caps on edits and masked targets probed under every condition (seeded samples, see probes.sampling):
    # each condition multiplies the work by the number of items
    max_edits: int | None = field(default=None, metadata={"minimum": 1})
    max_targets: int | None = field(default=None, metadata={"minimum": 1})
    # probe the masked targets too (when targets are planned)
    mask: bool = True


@dataclass
class BatteryInputs:
    """What the battery runs on.

    ``texts``: what each clip says as the masked probes read it (timings
    align to it); ``said``: what each clip says for re-voicing and as a
    donor's transcript (a corpus field such as ``spoken``, or the reference
    with the mined edits applied); ``timings``: word timings per clip (for
    truncation windows)."""

    corpus: object
    edits: Sequence[EditItem] = ()
    items: Sequence[MaskItem] = ()
    texts: Mapping[str, str] = field(default_factory=dict)
    said: Mapping[str, str] = field(default_factory=dict)
    timings: Mapping[str, Sequence[WordTiming]] = field(default_factory=dict)


def corrected_texts(edits: Sequence[EditItem]) -> dict[str, str]:
    """Per clip with edits: its normalized reference with every edit applied (what the panel says was said)."""
    by_clip: dict[str, list[EditItem]] = {}
    for e in edits:
        by_clip.setdefault(e.clip_id, []).append(e)
    out = {}
    for clip, es in by_clip.items():
        tokens = list(es[0].ref)
        for e in sorted(es, key=lambda e: (e.start, e.end), reverse=True):
            tokens[e.start:e.end] = list(e.a)
        out[clip] = " ".join(tokens)
    return out


def said_texts(corpus, said: Mapping[str, str] | None, edits: Sequence[EditItem]) -> dict[str, str]:
    """What each clip says, for re-voicing and as a donor's transcript.

    ``said`` (clip -> text from a corpus field such as ``spoken``) where it has the clip; else the raw
    reference; without ``said``, the clips with mined edits take their reference with the edits applied
    (what the panel says was said)."""
    out = {c.id: ((said or {}).get(c.id) or c.reference or "") for c in corpus}
    if said is None:
        out.update(corrected_texts(edits))
    return out


def measure_battery(store, executor, models: Sequence, inputs: "BatteryInputs", normalize: Callable[[str], str],
                    params: BatteryParams = BatteryParams(), *, min_ref_match: float = 0.5, n_boot: int = 1000,
                    seed: int = 0, on_condition: Callable[[str], None] | None = None,
                    window: ScoreWindow | None = None) -> BatteryResult:
    """The battery named by ``params.spec`` over ``inputs``, its edits and targets capped by ``params``.

    ``window`` (``models.candidate_check.score_window`` of the models): no λ is read on longer clips, under
    any condition (the other readouts are)."""
    spec = load_spec(params.spec)
    edits = sample(inputs.edits, lambda e: e.edit_id, params.max_edits, seed)
    items = sample(inputs.items, lambda i: i.key, params.max_targets, seed) if params.mask else []
    capped = BatteryInputs(inputs.corpus, edits, items, inputs.texts, inputs.said, inputs.timings)
    result = run_battery(store, executor, models, spec, capped, normalize, min_ref_match=min_ref_match,
                         n_boot=n_boot, seed=seed, on_condition=on_condition, window=window)
    result.edits, result.targets = len(edits), len(items)
    return result


def run_battery(store, executor, models: Sequence, spec: BatterySpec, inputs: BatteryInputs,
                normalize: Callable[[str], str], *, min_ref_match: float = 0.5, n_boot: int = 1000, seed: int = 0,
                on_condition: Callable[[str], None] | None = None, window: ScoreWindow | None = None
                ) -> BatteryResult:
    probes = set(spec.probes)
    clips = list(inputs.corpus)
    wanted = {e.clip_id for e in inputs.edits} | {i.clip_id for i in inputs.items}
    long_clips = window.too_long(c for c in clips if c.id in wanted) if window is not None and "lift" in probes else {}
    pools: dict[str, DonorPool] = {}
    cells: dict[tuple[str, str, str], Cell] = {}
    identities = None
    notes: list[str] = []
    for cond in spec.conditions:
        if on_condition:
            on_condition(cond.name)
        channels = Channels(cond, inputs.corpus, inputs.said, inputs.timings, pools)
        if inputs.edits and probes & {"accept-ref", "lift"}:
            def edit_channel(clip_id, _ch=channels):
                return normalized_channel(_ch.for_clip(clip_id), normalize)

            edits = [e for e in inputs.edits if edit_channel(e.clip_id) is not None]
            if not edits:
                notes.append(f"{cond.name}: not applicable to edits")
            else:
                wanted = {e.clip_id for e in edits}
                chosen = [c for c in clips if c.id in wanted]
                grid = {cid: [edit_channel(cid).audio()] for cid in wanted}
                summary = executor.run(store, models, chosen, Transcribe(), grid,
                                       description=f"battery {spec.name}/{cond.name}: transcribe edits")
                identities = summary.identities
                if "accept-ref" in probes:
                    for ident in identities:
                        cell = cells.setdefault((ident.model_id, "accept-ref", cond.name), {})
                        for e in edits:
                            ch = edit_channel(e.clip_id)
                            res = store.get(make_job(ident.model_id, ident.config_hash, e.clip_id, ch.audio().id,
                                                     TRANSCRIBE, {}))
                            if res is None:
                                continue
                            v = verdict_under(e, res.text or "", ch, normalize, min_ref_match)
                            cell[e.edit_id] = (e.clip_id, float(v == "ref"), float(v in ("ref", "audio")))
                if "lift" in probes:
                    scorers = [m for m, i in zip(models, identities) if i.can_score]
                    if scorers:
                        scored = [e for e in edits if e.clip_id not in long_clips]
                        run_lift(store, executor, scorers, clips, scored, channel_of=edit_channel,
                                 description=f"battery {spec.name}/{cond.name}: lift")
                        for row in read_lift(store, identities, scored, channel_of=edit_channel):
                            if row.lift_r is not None:
                                cells.setdefault((row.model, "lift(r)", cond.name), {})[row.item.edit_id] = \
                                    (row.item.clip_id, row.lift_r, 1.0)
        if inputs.items and probes & {"recovery", "lift"}:
            applicable = [i for i in inputs.items if _maskable(channels.for_target(i), i)]
            if not applicable:
                notes.append(f"{cond.name}: not applicable to masked targets")
                continue
            summaries = run_masked(store, executor, models, clips, applicable, channel_of=channels.for_target,
                                   lift="lift" in probes, control=False, unscorable=long_clips,
                                   description=f"battery {spec.name}/{cond.name}: mask")
            identities = summaries[0].identities
            for o in read_masked(store, identities, applicable, normalize, channel_of=channels.for_target,
                                 unscorable=long_clips):
                if "recovery" in probes and o.masked is not None:
                    cells.setdefault((o.model, "recovery", cond.name), {})[o.item.key] = \
                        (o.item.clip_id, float(o.masked), 1.0)
                if "lift" in probes and o.lift_masked is not None:
                    cells.setdefault((o.model, "lift(mask)", cond.name), {})[o.item.key] = \
                        (o.item.clip_id, o.lift_masked, 1.0)
    model_ids = [i.model_id for i in identities] if identities else []
    result = readout(spec, cells, model_ids, n_boot=n_boot, seed=seed)
    if long_clips:
        n = (sum(e.clip_id in long_clips for e in inputs.edits), sum(i.clip_id in long_clips for i in inputs.items))
        notes.append(f"λ of {n[0]} edit(s) and {n[1]} masked target(s) not measured under any condition: they are "
                     f"on {window.reason(long_clips)}")
    result.notes.extend(notes)
    return result


def _maskable(channel, item: MaskItem) -> bool:
    return channel is not None and channel.keeps_timing and channel.kept(item.target.index)
