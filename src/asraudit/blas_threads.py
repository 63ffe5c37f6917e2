"""Importing numpy without its BLAS thread pool, for a command that needs no parallel BLAS.

numpy's bundled OpenBLAS starts one worker thread per core when the library
loads, and each worker spins, waiting for work, for a while before it
sleeps.  ``asraudit refdis`` (gathers, sums and sorts, and one small matrix
product per chunk of bootstrap resamples) pays that spinning in CPU on every
run: measured at 1,800 clips x 40 models, about 0.05-0.07 s of the full
miner's 1.3 s, and 0.04 s of a bare ``import numpy``.  OpenBLAS reads
``OPENBLAS_NUM_THREADS`` once, when it loads, so setting it to 1 around the
first ``import numpy`` (and putting the environment back after it) keeps the
pool from starting; a user's own setting is left alone.  No result changes:
the one product (``metrics.stats._SharedColumns``) multiplies whole numbers
whose sums are exact in any order, on one thread or several.
"""

from __future__ import annotations

import os
import sys

_VARIABLE = "OPENBLAS_NUM_THREADS"
_single_threaded = False  # numpy loaded here with OpenBLAS on the calling thread (``blas_on_calling_thread``)


def import_numpy_single_threaded() -> None:
    """``import numpy`` with OpenBLAS limited to the calling thread, unless numpy is loaded or the user chose."""
    global _single_threaded
    if "numpy" in sys.modules:
        return
    if _VARIABLE in os.environ:
        _single_threaded = os.environ[_VARIABLE].strip() == "1"
        return
    os.environ[_VARIABLE] = "1"
    try:
        import numpy  # noqa: F401  (loads OpenBLAS, which reads the variable now)
        _single_threaded = True
    finally:
        os.environ.pop(_VARIABLE, None)  # child processes and later code see the environment as it was


def blas_on_calling_thread() -> bool:
    """Whether numpy was loaded by ``import_numpy_single_threaded`` with OpenBLAS on the calling thread.

    Code that could use a matrix product in place of a Python-free gather asks this first: with OpenBLAS's
    thread pool a product wakes a worker per core, and on a machine whose cores are busy the product waits
    for them and they spin afterwards (measured: the miner's bootstrap 2.5-6x slower, CPU and wall, on two
    shared cores), so a library caller that loaded numpy as usual keeps the gather."""
    return _single_threaded
