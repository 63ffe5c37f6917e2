"""`asraudit reference`: the paper's published aggregates, listed, and one set's per-model table.

The numbers are read from the user's copy of the paper's release (``--dir``
or ``$ASRAUDIT_PAPER_RESULTS``); every rate and interval is recomputed from
the released counts (``metrics.published_rates``), and the released rate is
printed beside it.
"""

from __future__ import annotations

import argparse

from asraudit.data.published import (
    ENV_VAR,
    PublishedResults,
    PublishedSet,
    PublishedSwitchGroup,
    load_published,
    results_folder,
)
from asraudit.errors import InputError
from asraudit.metrics.published_rates import accept_ref_of, switch_of
from asraudit.report.tables import fmt_interval, fmt_rate, render_table
from asraudit.terminal_text import note


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "reference",
        help="the paper's published accept-ref and switch rates (from its released results folder)",
        description="Without NAME: every published set in the folder (corpus, panel, miner settings, models). "
                    "With NAME: that set's per-model table, rates and Wilson intervals recomputed from the "
                    "released counts, the released rate beside them.",
    )
    p.add_argument("name", nargs="?", metavar="NAME", help="a set the listing names")
    p.add_argument("--dir", metavar="DIR",
                   help=f"the folder of the paper's released results (default: ${ENV_VAR})")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    results = load_published(results_folder(args.dir))
    if args.name is None:
        _print_listing(results)
    elif args.name in results.sets and args.name in results.switches:
        # An aggregate file and a switch group of one name (the listing shows both): the set alone hid the group.
        s, g = results.sets[args.name], results.switches[args.name]
        note(f"{args.name!r} names both a published set ({s.path.name}) and a switch group ({g.path.name}): both "
             "are shown")
        _print_set(s)
        print()
        _print_switches(g)
    elif args.name in results.sets:
        _print_set(results.sets[args.name])
    elif args.name in results.switches:
        _print_switches(results.switches[args.name])
    else:
        raise InputError(f"no published set {args.name!r}; the folder has {', '.join(dict.fromkeys(results.names()))}",
                         results.folder)
    return 0


def settings_text(s) -> str:
    return (f"majority {s.majority:g}, min_run_len {s.min_run_len}, middle {'on' if s.include_middle else 'off'}, "
            f"min_ref_match {s.min_ref_match:g}, min_consensus_cer {s.min_consensus_cer:g}")


def _print_listing(results: PublishedResults) -> None:
    render_table(["name", "corpus", "panel", "miner settings", "clips", "edits", "models"],
                 [[s.name, f"{s.corpus} ({s.language}, {s.split})", ", ".join(s.panel), settings_text(s.settings),
                   s.clips, s.edits, len(s.rows)] for s in results.sets.values()],
                 title=f"Published accept-ref ({results.folder})")
    if results.switches:
        print()
        render_table(["name", "scope", "arms", "chance", "min per arm", "models"],
                     [[g.name, g.scope, " / ".join(g.arms), f"{g.chance:g}", g.min_per_arm, len(g.rows)]
                      for g in results.switches.values()],
                     title="Published switch rates")


def _print_set(s: PublishedSet) -> None:
    rows = []
    for r in sorted((accept_ref_of(r) for r in s.rows), key=lambda x: -x.accept_ref.estimate):
        iv = r.accept_ref
        rows.append([r.row.model, "yes" if r.row.in_panel else "", fmt_rate(iv.estimate),
                     fmt_interval(iv.low, iv.high), r.row.ref, r.row.audio, r.row.eligible,
                     f"{100 * r.row.published_rate:.2f}%"])
    render_table(["model", "panel", "accept-ref", "95% CI (Wilson)", "ref", "audio", "eligible", "published"], rows,
                 title=f"{s.name}: {s.corpus}, panel {', '.join(s.panel)}; {settings_text(s.settings)} "
                       "(published, not re-measured)")


def _print_switches(g: PublishedSwitchGroup) -> None:
    rows = []
    for r in sorted((switch_of(r) for r in g.rows), key=lambda x: -x.switch.estimate):
        iv = r.switch
        arms = ", ".join(f"{arm} {a.hits}/{a.n}" for arm, a in r.row.arms.items())
        rows.append([r.row.model, fmt_rate(iv.estimate), fmt_interval(iv.low, iv.high), r.limiting_arm, arms,
                     f"{100 * r.row.published_rate:.2f}%"])
    render_table(["model", "switch", "95% CI (Wilson)", "limiting arm", "hits/n per arm", "published"], rows,
                 title=f"{g.name}: {g.scope}; chance {g.chance:g} (published, not re-measured)")
