"""posenc_core states the project's version, the same as ``posenc --version`` (once stuck at 0.1.0 while the
project was at 0.3.0)."""

from __future__ import annotations

import tomllib

import pytest

import posenc_core
from posenc.commands import router
from posenc_core._version import PYPROJECT


def test_the_core_states_the_projects_version():
    assert posenc_core.__version__ == router.version()
    stated = tomllib.loads(PYPROJECT.read_text())["project"]["version"]
    assert posenc_core.__version__.split()[0] == stated


def test_other_missing_names_still_raise_attribute_error():
    with pytest.raises(AttributeError, match="no_such_name"):
        posenc_core.no_such_name  # noqa: B018
