"""Corpora and prediction files."""
