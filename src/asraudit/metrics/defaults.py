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


def check_bootstrap_ceiling(value: int, name: str) -> None:
    """Refuse a resample count past ``MAX_BOOTSTRAP``, naming the argument (``--bootstrap``, ``n_boot``, a spec's
    ``bootstrap``)."""
    from asraudit.errors import InputError

    if value > MAX_BOOTSTRAP:
        raise InputError(f"{name} must be at most {MAX_BOOTSTRAP} resamples (a third digit of an interval needs "
                         f"far fewer), got {value}")
