"""The report's templates: jinja2 with autoescape, loaded from the package (``report/templates``).

Autoescape is on for every template, so a transcript, clip id or model name
put into a page is text whatever it contains; HTML built in Python from
escaped parts (``html_parts.Markup``: tables, highlighted words) is passed
through :func:`safe` on purpose, never by default.  Undefined names fail
loudly (``StrictUndefined``): a template that names a value nobody passed is
a bug, not an empty cell.
"""

from __future__ import annotations

from functools import lru_cache
from importlib.resources import files

import jinja2
from markupsafe import Markup as _Safe


@lru_cache(maxsize=1)
def environment() -> jinja2.Environment:
    return jinja2.Environment(loader=jinja2.PackageLoader("asraudit.report", "templates"), autoescape=True,
                              undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True)


def render(name: str, **values: object) -> str:
    """The template ``name`` filled with ``values`` (escaped unless wrapped by :func:`safe`)."""
    return environment().get_template(name).render(**values)


def safe(html: str) -> _Safe:
    """Mark HTML built from escaped parts as ready for a template (it is inserted as is)."""
    return _Safe(html)


@lru_cache(maxsize=None)
def asset(name: str) -> str:
    """The text of a file shipped with the templates (the page's script)."""
    return (files("asraudit.report") / "templates" / name).read_text(encoding="utf-8")
