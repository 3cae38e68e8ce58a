"""Where tensors are computed: cuda, then mps, then cpu."""

from __future__ import annotations

import torch

DEVICE_CHOICES = ("auto", "cpu", "cuda", "mps")


def available_devices() -> list[str]:
    """The device types usable on this machine, best first (always ends with "cpu")."""
    found = []
    if torch.cuda.is_available():
        found.append("cuda")
    if _mps_available():
        found.append("mps")
    return [*found, "cpu"]


def resolve_device(preference: str | torch.device | None = "auto") -> torch.device:
    """Turn a preference into a ``torch.device``.

    ``"auto"`` (or None) picks cuda if available, then mps, then cpu. Asking for a device type that is
    not available raises ``ValueError`` naming what is available.
    """
    if isinstance(preference, torch.device):
        preference_type = preference.type
    elif preference is None:
        preference_type = "auto"
    elif isinstance(preference, str):
        preference_type = preference.split(":")[0]
    else:
        raise ValueError(f"device must be one of {DEVICE_CHOICES} or a torch.device (got {preference!r})")
    if preference_type not in DEVICE_CHOICES:
        raise ValueError(f"device must be one of {DEVICE_CHOICES} or a torch.device (got {preference!r})")
    available = available_devices()
    if preference_type == "auto":
        return torch.device(available[0])
    if preference_type not in available:
        raise ValueError(f"device {preference!r} is not available on this machine; available: {', '.join(available)}")
    return torch.device(preference) if not isinstance(preference, torch.device) else preference


def work_dtype(device: torch.device) -> torch.dtype:
    """The precision for exact intermediate math: float64, except on mps, which has no float64."""
    return torch.float32 if device.type == "mps" else torch.float64


def _mps_available() -> bool:
    backend = getattr(torch.backends, "mps", None)
    return bool(backend is not None and backend.is_available())
