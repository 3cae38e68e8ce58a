"""Shared fixtures: every core test that takes ``device`` runs on the CPU, and on CUDA when available
(skipping cleanly where there is none). Importing ``bench.app_test`` makes every AppTest of the run behave like the
served app (``app.py`` on every rerun; components scanned once per process)."""

from __future__ import annotations

import os

import pytest
import torch

import bench.app_test  # noqa: F401  (its patches apply to every AppTest)

# Several pytest workers share the machine's cores (pytest -n auto): torch's own threads on top of them only wait on
# each other (a tiny model's evaluation ran 50 times slower with two threads per worker on a busy 2-core machine).
if os.environ.get("PYTEST_XDIST_WORKER"):
    torch.set_num_threads(1)

# Apps the tests start do not warm their figure cache (ui.warmup) unless a test asks: it would compete with them.
os.environ.setdefault("POSENC_WARMUP", "off")

DEVICES = [
    pytest.param("cpu", id="cpu"),
    pytest.param(
        "cuda",
        id="cuda",
        marks=[
            pytest.mark.gpu,
            pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device on this machine"),
        ],
    ),
]


@pytest.fixture(params=DEVICES)
def device(request) -> torch.device:
    """A torch.device to run a core test on: cpu always, cuda when available."""
    return torch.device(request.param)
