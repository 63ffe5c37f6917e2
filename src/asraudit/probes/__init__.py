"""Probes: pure evaluations of stored transcripts and scores (they never run a model).

Each probe module states what it measures and why; reference-error mining
lives in ``refdis`` (with ``refdis_compat``, ``refdis_score``, ``corrected``,
``inflation`` and ``review`` around it).
"""
