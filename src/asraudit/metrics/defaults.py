"""The bootstrap's default resamples and seed, in a module without numpy.

Command-line parsers show these defaults in ``--help``; reading them from
``metrics.stats`` would load numpy in every command that never draws a
resample (``asraudit refdis --compat hume``).
"""

DEFAULT_BOOTSTRAP = 1000
DEFAULT_SEED = 0

# The most resamples any interval draws.  A count past it is a slip (an extra digit, a pasted number): the
# intervals' third digit is settled long before, and ``--bootstrap 99999999999999`` drew resamples for ever
# (hours per model) with no message.
MAX_BOOTSTRAP = 1_000_000


# The fewest resamples an interval is drawn from (0 draws none: no intervals).  A 95% interval's bounds are the 2.5%
# and 97.5% quantiles of the resamples: of 1 resample both bounds are its one value, which need not hold the
# estimate (``wer --bootstrap 1`` printed ``14.29%  [28.57, 28.57]``), and of a few they are the extremes of a
# handful of draws (case 317).  Ten is the floor, not a recommendation (the default is 1000).
MIN_BOOTSTRAP = 10


def check_bootstrap_count(value: int, name: str) -> None:
    """Refuse a resample count from 1 to ``MIN_BOOTSTRAP - 1`` or past ``MAX_BOOTSTRAP``, naming the argument
    (``--bootstrap``, ``n_boot``, a spec's ``bootstrap``); the one check every command, spec and function shares.
    A negative count is refused by the callers' own range checks first."""
    from asraudit.errors import InputError

    if 0 < value < MIN_BOOTSTRAP:
        raise InputError(f"{name} must be 0 (no intervals) or at least {MIN_BOOTSTRAP} resamples: a 95% interval of "
                         f"fewer is one or two draws (of 1: its one value as both bounds, which need not hold the "
                         f"estimate), got {value}")
    if value > MAX_BOOTSTRAP:
        raise InputError(f"{name} must be at most {MAX_BOOTSTRAP} resamples (a third digit of an interval needs "
                         f"far fewer), got {value}")
