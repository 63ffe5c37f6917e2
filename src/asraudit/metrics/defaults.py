"""The bootstrap's default resamples and seed, in a module without numpy.

Command-line parsers show these defaults in ``--help``; reading them from
``metrics.stats`` would load numpy in every command that never draws a
resample (``asraudit refdis --compat hume``).
"""

DEFAULT_BOOTSTRAP = 1000
DEFAULT_SEED = 0
