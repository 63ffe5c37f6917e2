"""Rendering results for people: terminal tables (and, later, HTML)."""
