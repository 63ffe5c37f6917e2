"""`asraudit conventions`: switch rate and rendering agreement on raw transcripts."""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

from asraudit.report.summary import to_plain
from asraudit.commands.common import (add_preds_argument, at_least, check_resampling,
                                      ensure_outside_prediction_folders, integer, load_predictions_with_warnings,
                                      prediction_inputs)
from asraudit.data.paths import ensure_outputs_apart, ensure_writable_file, output_file, write_text_whole
from asraudit.data.predictions import prediction_files
from asraudit.errors import InputError
from asraudit.metrics.stats import DEFAULT_BOOTSTRAP, Interval
from asraudit.probes.conventions_probe import ConventionsParams, measure_conventions, text_pairs
from asraudit.probes.families import LANGUAGES, Catalogue, load_catalogue
from asraudit.text.basic_language_codes import language_code
from asraudit.probes.occurrences import Occurrence
from asraudit.probes.rendering import (
    DEFAULT_MIN_PER_ARM,
    Agreement,
    ConventionAudit,
    SwitchRate,
    agreement,
    reference_usage,
)
from asraudit.report.tables import fmt_interval, fmt_rate, render_table
from asraudit.terminal_text import one_line

_SHOW_ORDER = ("disagree", "agree", "outside", "missed")
_CONTEXT = 40  # characters of context either side of a highlighted span


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "conventions",
        help="rendering conventions: switch rate and reference-rendering agreement",
        description="Does a model follow the reference's spelling where the audio cannot tell "
                    "(Mr/Mister, 21/twenty-one, colour/color)? Works on raw text.",
    )
    add_preds_argument(p)
    p.add_argument("--language", type=language_code, choices=LANGUAGES, default=None,
                   help="the transcripts' language: picks the built-in catalogue (default en)")
    p.add_argument("--families", action="append", metavar="FILE",
                   help="a TOML/JSON family file used instead of the built-in catalogue; "
                        "repeat to combine, and pass a language code (en, es, ...) to keep a built-in one too")
    p.add_argument("--pool", action="store_true",
                   help="also print switch rates pooled across the families of each pool (arms by position)")
    p.add_argument("--min-per-arm", type=integer, default=DEFAULT_MIN_PER_ARM, metavar="N",
                   help="clips an arm needs to enter the switch rate (default %(default)s)")
    p.add_argument("--json", type=output_file, metavar="OUT", help="write every readout as JSON")
    p.add_argument("--show", type=at_least(0), default=0, metavar="N",
                   help="print N example occurrences per model, reference and hypothesis spans highlighted")
    p.add_argument("--bootstrap", type=integer, default=DEFAULT_BOOTSTRAP, metavar="B",
                   help="clip-bootstrap resamples for the agreement interval (default %(default)s)")
    p.add_argument("--seed", type=integer, default=0)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    check_resampling(args)
    if args.min_per_arm < 1:
        raise InputError(f"--min-per-arm must be at least 1, got {args.min_per_arm}")
    # --families replaces the catalogue --language picks: one was ignored.  Where --families names that catalogue
    # too, it is used, and the advice to add it again led to "defined twice" (case 313).
    if args.language and args.families and not any(language_code(str(f)) == language_code(args.language)
                                                   for f in args.families):
        files = " ".join(f"--families {f}" for f in args.families)
        raise InputError(f"--language {args.language} picks a built-in catalogue and --families replaces it, so the "
                         f"{args.language} catalogue would not be used: give --families {args.language} {files} to "
                         "use both, or leave --language out")
    if args.json:
        ensure_writable_file(args.json, "--json")  # before the tables are printed, not after
    files = prediction_files(args.preds)
    families = [(f"--families {f}", Path(f)) for f in args.families or [] if Path(f).exists()]
    ensure_outputs_apart([("--json", args.json)], [*prediction_inputs(files), *families])
    ensure_outside_prediction_folders([("--json", args.json)], args.preds)
    catalogue = load_catalogue(args.families or [args.language or "en"])
    pset = load_predictions_with_warnings(files)
    # One reference per clip (refused in one line where files differ, as refdis does): the reference's arm is
    # the condition of every model's switch rate and agreement, the usage table and --show read it, and a model
    # judged against its own file's reference was measured on another benchmark than the table beside it.
    references = pset.references()
    rows = text_pairs(references, {m: {cid: p.hypothesis for cid, p in preds.rows.items()}
                                   for m, preds in pset.models.items()})
    measured = measure_conventions(rows,
                                   ConventionsParams(min_per_arm=args.min_per_arm), catalogue=catalogue,
                                   n_boot=args.bootstrap, seed=args.seed)
    audit, switch, agree = measured.audit, measured.switch, measured.agreement
    pooled = measured.pooled if args.pool else []
    usage = reference_usage(audit)

    _print_header(audit, catalogue, args.min_per_arm)
    if not usage:
        print("\nNo reference uses any family of the catalogue: nothing to measure.")
    else:
        _print_usage(catalogue, usage, args.min_per_arm)
        _print_switch(switch, "family", args.min_per_arm)
        if args.pool:
            _print_switch(pooled, "pool", args.min_per_arm)
        _print_agreement(agree)
    if args.show > 0:
        _print_examples(audit, args.show)
    if args.json:
        _write_json(args.json, audit, usage, switch, pooled, agree, args)
    return 0


# --------------------------------------------------------------------------
# Terminal output


def _print_header(audit: ConventionAudit, catalogue: Catalogue, min_per_arm: int) -> None:
    sources = ", ".join(catalogue.sources)
    print(one_line(f"Rendering conventions on raw text: {len(audit.models)} model(s), {len(audit.references)} clips, "
                   f"{len(catalogue.families)} families ({sources}); switch rate needs >= {min_per_arm} clips "
                   "on at least two arms"))


def _arm_counts(arms: tuple[str, ...], counts: list[int]) -> str:
    return " | ".join(f"{label} {n}" for label, n in zip(arms, counts))


def _print_usage(catalogue: Catalogue, usage: dict[str, list[int]], min_per_arm: int) -> None:
    rows = []
    for name, counts in usage.items():
        fam = catalogue.family(name)
        enough = sum(n >= min_per_arm for n in counts)
        used = sum(n > 0 for n in counts)
        status = ("enough clips" if enough >= 2 else
                  "one arm only" if used == 1 else f"too few clips (< {min_per_arm}) on a second arm")
        rows.append([name, fam.cls, _arm_counts(fam.arms, counts), status])
    print()
    render_table(["family", "class", "clips whose reference uses each arm", "switch rate"], rows,
                 title="Families the references use", right_align=[False, False, False, False])
    absent = len(catalogue.families) - len(usage)
    if absent:
        print(f"({absent} other famil{'y' if absent == 1 else 'ies'} of the catalogue never occur in the references)")


def _print_switch(results: list[SwitchRate], what: str, min_per_arm: int) -> None:
    measurable = [r for r in results if r.measurable]
    groups = list(dict.fromkeys(r.group for r in results))
    print()
    title = (f"Switch rate per {what}: s = min over arms of P(model writes the arm | reference uses it); "
             f"a fixed habit scores ~0, chance is 1/arms, only reference-following exceeds chance")
    if not measurable:
        plural = {"family": "families", "pool": "pools"}[what] if len(groups) != 1 else what
        single = sum(1 for g in groups if "only one arm" in next(r.reason() for r in results if r.group == g))
        print(f"Switch rate per {what}: NOT MEASURABLE on this corpus "
              f"({single} of {len(groups)} {plural} in the references use one arm only).\n"
              f"  None of the {len(groups)} {plural} the references use has >= {min_per_arm} clips on two or\n"
              f"  more arms: the corpus writes each convention one way, so a model that follows the\n"
              f"  reference cannot be told apart from one whose own habit happens to match it.\n"
              f"  Use references that write both arms, or lower --min-per-arm (wider intervals);\n"
              f"  rendering agreement below still applies.")
        return
    rows = []
    for r in measurable:
        low, high = r.interval
        lim = r.limiting
        per_arm = ", ".join(f"{a.label} {a.hits}/{a.clips}" for a in r.scored_arms)
        rows.append([r.group, r.model, f"{r.switch:.3f}", f"[{low:.3f}, {high:.3f}]",
                     f"{r.chance:.2f}", lim.label if lim else "-", per_arm])
    render_table([what, "model", "s", "95% CI (limiting arm)", "chance", "limiting arm", "hits/clips per arm"],
                 rows, title=title, right_align=[False, False, True, True, True, False, False])
    unmeasured = [g for g in groups if not any(r.group == g and r.measurable for r in results)]
    if unmeasured:
        reasons = {r.group: r.reason() for r in results if r.group in unmeasured}
        print(one_line(f"Not measurable ({len(unmeasured)}): " + "; ".join(f"{g}: {reasons[g]}" for g in unmeasured)))
    left_out = {(r.group, a.label, a.clips) for r in measurable for a in r.left_out}
    if left_out:
        print("Arms with too few clips, left out of the minimum: "
              + ", ".join(f"{g}/{label} ({n})" for g, label, n in sorted(left_out)))


def _print_agreement(results: list[Agreement]) -> None:
    groups = [g for g in dict.fromkeys(r.group for r in results) if g != "all"] + ["all"]
    models = list(dict.fromkeys(r.model for r in results))
    by = {(r.model, r.group): r for r in results}
    rows = []
    for m in models:
        row = [m]
        for g in groups:
            r = by.get((m, g))
            row.append(f"{fmt_rate(r.rate, 1)} {r.agree}/{r.rendered}" if r and r.rendered else "-")
        total = by.get((m, "all"))
        row.append(f"{total.outside}/{total.missed}" if total else "-")
        row.append(fmt_interval(total.low, total.high, 1) if total else "-")
        rows.append(row)
    print()
    render_table(["model"] + groups + ["outside/missed", "all: 95% CI"], rows,
                 title="Rendering agreement: share of rendered occurrences in the reference's arm "
                       "(agree/rendered; outside or missed occurrences count for neither)")


def _highlight(text: str, span: tuple[int, int], tty: bool):
    """A context window of ``text`` with ``span`` marked: bold colour on a terminal, [[...]] in a pipe.

    An empty span (the model wrote nothing there) shows as an empty mark at the place."""
    start, end = span
    lo, hi = max(0, start - _CONTEXT), min(len(text), end + _CONTEXT)
    # each piece escaped on its own (one_line), so the mark stays on the span whatever the text holds
    before = ("..." if lo > 0 else "") + one_line(text[lo:start])
    after = one_line(text[end:hi]) + ("..." if hi < len(text) else "")
    marked = one_line(text[start:end])
    if tty:
        from rich.text import Text

        out = Text(before)
        out.append(marked or "‸", style="bold magenta")
        out.append(after)
        return out
    return f"{before}[[{marked}]]{after}"


def _pick_examples(occurrences: list[Occurrence], n: int) -> list[Occurrence]:
    """Disagreements first, then agreements, outside, missed; families interleaved for variety."""
    chosen: list[Occurrence] = []
    for status in _SHOW_ORDER:
        queues: dict[int, list[Occurrence]] = {}
        for o in occurrences:
            if o.status == status:
                queues.setdefault(o.family, []).append(o)
        while queues and len(chosen) < n:
            for fam in list(queues):
                chosen.append(queues[fam].pop(0))
                if not queues[fam]:
                    del queues[fam]
                if len(chosen) >= n:
                    break
    return chosen


def _print_examples(audit: ConventionAudit, n: int) -> None:
    tty = sys.stdout.isatty()
    console = None
    if tty:
        from rich.console import Console

        console = Console(highlight=False)
    fams = audit.catalogue.families
    for model in audit.models:
        picked = _pick_examples(audit.occurrences[model], n)
        print("\n" + one_line(f"== {model}: {len(picked)} example occurrence(s) =="))
        for o in picked:
            fam = fams[o.family]
            said = fam.arms[o.hyp_arm] if o.hyp_arm is not None else {"outside": "other words",
                                                                       "missed": "nothing"}[o.status]
            print(f"\n{fam.name} ({fam.cls}), clip {one_line(o.clip_id)}: reference {fam.arms[o.ref_arm]!r}, "
                  f"model {said!r} -> {o.status}")
            ref_line = _highlight(audit.references[o.clip_id].text, o.ref_span, tty)
            hyp_line = _highlight(audit.hypotheses[model][o.clip_id], o.hyp_span, tty)
            for label, line in (("  ref: ", ref_line), ("  hyp: ", hyp_line)):
                if console is not None:
                    from rich.text import Text

                    console.print(Text(label) + (line if isinstance(line, Text) else Text(line)))
                else:
                    print(label + line)


# --------------------------------------------------------------------------
# JSON


def _num(x: float) -> float | None:
    return None if x is None or (isinstance(x, float) and math.isnan(x)) else x


def _switch_json(results: list[SwitchRate]) -> dict:
    out: dict = {}
    for r in results:
        lim = r.limiting
        out.setdefault(r.group, {})[r.model] = {
            "measurable": r.measurable,
            "reason": r.reason() or None,
            "switch": _num(r.switch),
            "switch_interval": to_plain(r.wilson().to_json()),
            "limiting_arm": lim.label if lim else None,
            "chance": _num(r.chance),
            "arms": {a.label: {"clips": a.clips, "hits": a.hits, "rendered": a.rendered,
                               "scored": a.clips >= r.min_per_arm} for a in r.arms},
        }
    return out


def _agreement_json(results: list[Agreement]) -> dict:
    out: dict = {}
    for r in results:
        out.setdefault(r.model, {})[r.group] = {
            "rate": _num(r.rate), "agree": r.agree, "rendered": r.rendered, "outside": r.outside,
            "missed": r.missed, "clips": r.clips,
            "rate_interval": to_plain(Interval(r.rate, r.low, r.high).to_json()),  # a bootstrap over clips
        }
    return out


def _write_json(path: Path, audit: ConventionAudit, usage, switch, pooled, agree, args) -> None:
    cat = audit.catalogue
    payload = {
        "catalogue": {
            "sources": cat.sources,
            "families": [{"name": f.name, "class": f.cls, "arms": list(f.arms), "pool": f.pool}
                         for f in cat.families],
            "pools": {name: list(p.arms) for name, p in cat.pools.items()},
            "rejected": [{"name": r.name, "arms": list(r.arms), "reason": r.reason} for r in cat.rejected],
        },
        "min_per_arm": args.min_per_arm,
        "clips": len(audit.references),
        "reference_usage": {name: dict(zip(cat.family(name).arms, counts)) for name, counts in usage.items()},
        "switch": _switch_json(switch),
        "pooled_switch": _switch_json(pooled) if args.pool else None,
        "agreement_by_class": _agreement_json(agree),
        "agreement_by_family": _agreement_json(agreement(audit, "family", n_boot=args.bootstrap, seed=args.seed)),
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    write_text_whole(path, json.dumps(payload, indent=2) + "\n")

