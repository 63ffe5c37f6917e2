"""asraudit: audit ASR models for benchmark optimization."""

__version__ = "0.1.0"
