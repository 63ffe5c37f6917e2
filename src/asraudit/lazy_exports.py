"""A package's exported names, each loaded from its module on first use (PEP 562).

``import asraudit`` and ``import asraudit.metrics`` must stay light: a
text-only user, or a command line such as ``refdis --compat hume``, should
not pay for numpy, torch or the model backends it never touches.  Each
package lists its names and modules; the first read of a name imports its
module and keeps the value in the package, so later reads are plain lookups.
"""

from __future__ import annotations

import importlib
from typing import Callable, Mapping


def lazy_exports(package: str, exports: Mapping[str, str], namespace: dict) -> tuple[Callable, Callable]:
    """(``__getattr__``, ``__dir__``) for ``package``, whose module globals are ``namespace``."""

    def __getattr__(name: str) -> object:
        module = exports.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted(set(namespace) | set(exports))

    return __getattr__, __dir__
