"""Shared by the core tests that compare with HF transformers."""

from __future__ import annotations

import pytest


@pytest.fixture
def quiet_transformers():
    """HF logs warnings for legal-but-odd values (factor < 1, implicit factor mismatch); keep the output clean."""
    transformers = pytest.importorskip("transformers")
    verbosity = transformers.logging.get_verbosity()
    transformers.logging.set_verbosity_error()
    yield
    transformers.logging.set_verbosity(verbosity)
