"""Saving and loading the lab's trained models, and the twelve shipped with the package.

A checkpoint is one ``torch.save`` file of plain data (loaded with ``weights_only=True``, so a file can hold no
code): the model's :class:`~posenc_lab.model.LabConfig`, the :class:`~posenc_lab.train.TrainSettings` it was
trained with, its weights in float16 (half the size on disk; loaded back as float32), its loss at every step,
and how long training took on which device. Saving writes a temporary file beside the target and renames it
over the target, so an interrupted save (Ctrl-C, a full disk) leaves the old checkpoint or none, never half of
one.

The shipped checkpoints live in ``posenc_lab/shipped/<scheme>-<task>.pt`` (:func:`shipped_path`), made by
``posenc lab train --all`` (``make lab``).
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import asdict, dataclass, field
from pathlib import Path

import torch

from posenc_lab.model import LabConfig, LabModel
from posenc_lab.train import TrainSettings

FORMAT = 1  # bumped when the layout of the saved dict changes
SHIPPED = Path(__file__).resolve().parent / "shipped"
"""The folder of the shipped checkpoints and their results (``results.json``)."""


class CheckpointError(ValueError):
    """A checkpoint that is missing, not a checkpoint, or from another format: the message names the file."""


@dataclass
class Checkpoint:
    """A trained model and how it was made."""

    model: LabModel
    settings: TrainSettings
    losses: list[float] = field(default_factory=list)  # training loss at every step
    seconds: float = 0.0  # training time
    device: str = "cpu"  # where it was trained

    @property
    def config(self) -> LabConfig:
        return self.model.config


def shipped_path(scheme: str, task: str) -> Path:
    """Where the shipped checkpoint of ``scheme`` trained on ``task`` lives."""
    return SHIPPED / f"{scheme}-{task}.pt"


def save(checkpoint: Checkpoint, path: str | os.PathLike) -> Path:
    """Write ``checkpoint`` to ``path`` atomically (a temporary file renamed over it); the path written."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    state = {name: value.detach().to("cpu", torch.float16) for name, value in checkpoint.model.state_dict().items()}
    data = {
        "format": FORMAT,
        "config": checkpoint.config.to_dict(),
        "settings": asdict(checkpoint.settings),
        "state": state,
        "losses": [float(loss) for loss in checkpoint.losses],
        "seconds": float(checkpoint.seconds),
        "device": str(checkpoint.device),
    }
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".part", dir=path.parent)
    try:
        with os.fdopen(handle, "wb") as file:
            torch.save(data, file)
            file.flush()
            os.fsync(file.fileno())
        os.chmod(temporary, 0o666 & ~_umask())  # mkstemp's file is private (0600); a checkpoint is not
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return path


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def load(path: str | os.PathLike, device: str | torch.device = "cpu") -> Checkpoint:
    """The checkpoint at ``path``, its model on ``device`` in eval mode; :class:`CheckpointError` if unreadable."""
    path = Path(path)
    if not path.is_file():
        raise CheckpointError(f"checkpoint {path} does not exist (make one with: posenc lab train)")
    try:
        data = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as error:  # a truncated or foreign file fails in many ways; all mean "not a checkpoint"
        message = f"checkpoint {path} is not a lab checkpoint or is damaged ({type(error).__name__})"
        raise CheckpointError(message) from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        found = data.get("format") if isinstance(data, dict) else type(data).__name__
        raise CheckpointError(f"checkpoint {path} is not a lab checkpoint of format {FORMAT} (found {found!r})")
    try:
        config = LabConfig(**data["config"])
        settings = TrainSettings(**data["settings"])
        model = LabModel(config)
        model.load_state_dict({name: value.float() for name, value in data["state"].items()})
    except (KeyError, TypeError, ValueError, RuntimeError) as error:
        message = f"checkpoint {path} does not hold a lab model ({type(error).__name__}: {error})"
        raise CheckpointError(message) from None
    model.to(device).eval()
    return Checkpoint(model, settings, list(data.get("losses", [])), float(data.get("seconds", 0.0)), data["device"])
