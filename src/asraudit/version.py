"""The package version, in a module that imports nothing, so any layer can name it without importing the
package face (``asraudit/__init__.py``, which exports the API from the top layers)."""

__version__ = "0.1.0"
