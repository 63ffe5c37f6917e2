"""Rendering results for people: terminal tables, summary.json and the self-contained report.html."""
