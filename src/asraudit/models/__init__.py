"""Models: one small protocol, several backends (see models/base.py)."""
