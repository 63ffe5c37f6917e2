"""Shared fixtures.

``shared_predictions``: the read-only VoxPopuli-150 prediction files in
``../shared`` (skips when shared/ is absent, e.g. outside this workplace).
"""

from __future__ import annotations

from pathlib import Path

import pytest

PROJECT_ROOT = Path(__file__).resolve().parents[1]
SHARED_REFERENCE = PROJECT_ROOT.parent / "shared" / "reference" / "hume-voxpopuli-150"


@pytest.fixture(scope="session")
def shared_reference_dir() -> Path:
    if not (SHARED_REFERENCE / "predictions").is_dir():
        pytest.skip("../shared/reference/hume-voxpopuli-150 is absent")
    return SHARED_REFERENCE


@pytest.fixture(scope="session")
def shared_predictions(shared_reference_dir: Path) -> Path:
    return shared_reference_dir / "predictions"
