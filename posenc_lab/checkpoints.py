"""Saving and loading the lab's trained models, and the ones shipped with the package (three seeds of each).

A checkpoint is one ``torch.save`` file of plain data (loaded with ``weights_only=True``, so a file can hold no
code): the model's :class:`~posenc_lab.model.LabConfig`, the :class:`~posenc_lab.settings.TrainSettings` it was
trained with, the RoPE scaling it was fine-tuned under (``rope_scaling``, a config.json block; absent or None for a
model trained from scratch), its weights in float16 (half the size on disk; loaded back as float32), its loss at
every step, and how long training took on which device. Saving writes a temporary file beside the target and renames it
over the target, so an interrupted save (Ctrl-C, a full disk) leaves the old checkpoint or none, never half of
one.

A checkpoint is read as an untrusted file (:func:`load`): its size, its zip directory (the Learned page's guard,
:func:`posenc_core.models.table_files.check_torch_zip`) and its pickle's size are checked before ``torch.load``
(:mod:`posenc_lab.limits`), then every field through one checked reader (:class:`Fields`), so a missing key, a
wrong type or an infinite count is one :class:`CheckpointError` naming the field, and a model is built only from
sizes within bounds. A checkpoint is written only where :func:`check_target` allows (:mod:`posenc_lab.targets`): a
new name in a writable folder, or a file that already holds a lab checkpoint (never a device, a link, a folder or
another file).

The shipped checkpoints live in ``posenc_lab/shipped/<scheme>-<task>-seed<seed>.pt`` (:func:`shipped_path`) and
``rope-lm-finetuned-<method>-seed<seed>.pt`` (:func:`finetuned_path`), made by ``posenc lab train --all``
(``make lab``).
"""

from __future__ import annotations

import dataclasses
import os
import re
import stat
import zipfile
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import torch

from posenc_core.models.table_files import check_torch_zip
from posenc_lab import targets
from posenc_lab.limits import (
    MAX_BATCH_SIZE,
    MAX_CHECKPOINT_BYTES,
    MAX_LENGTH,
    MAX_PICKLE_BYTES,
    MAX_SEED,
    MAX_STEPS,
    ROPE_BASE_RANGE,
    SIZE_BOUNDS,
    finite,
    shown,
    whole,
)
from posenc_lab.model import LabConfig, LabModel
from posenc_lab.scaling import read_block
from posenc_lab.schemes import SCHEMES
from posenc_lab.settings import TASKS, TrainSettings

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


def shipped_path(scheme: str, task: str, seed: int = 0) -> Path:
    """Where the shipped checkpoint of ``scheme`` trained on ``task`` with ``seed`` lives."""
    return SHIPPED / f"{scheme}-{task}-seed{seed}.pt"


def finetuned_path(method: str, seed: int = 0) -> Path:
    """Where the shipped RoPE language model of ``seed`` fine-tuned under ``method`` (a rope_type) lives."""
    return SHIPPED / f"rope-lm-finetuned-{method}-seed{seed}.pt"


def save(checkpoint: Checkpoint, path: str | os.PathLike) -> Path:
    """Write ``checkpoint`` to ``path`` atomically (a temporary file renamed over it); the path written.
    :class:`CheckpointError` where :func:`check_target` refuses the path; an OSError of the disk (full, gone) leaves
    no temporary file."""
    path = check_target(path)
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
    scaling = getattr(checkpoint.model.scheme, "scaling", None)
    if scaling is not None:
        data["rope_scaling"] = dict(scaling)
    return targets.write_atomically(path, lambda file: torch.save(data, file))


def load(path: str | os.PathLike, device: str | torch.device = "cpu") -> Checkpoint:
    """The checkpoint at ``path``, its model on ``device`` in eval mode; :class:`CheckpointError` naming the file
    (and the field) if it is not a lab checkpoint within the bounds of :mod:`posenc_lab.limits`."""
    path = Path(path)
    fields = Fields(path, read_file(path))
    return fields.checkpoint(device)


def read_file(path: Path) -> dict:
    """The plain data of the checkpoint file at ``path``, each bound checked before the next read: a regular file
    of at most :data:`~posenc_lab.limits.MAX_CHECKPOINT_BYTES`, a zip (what ``torch.save`` writes) whose compressed
    entries inflate to no more and whose pickle is at most :data:`~posenc_lab.limits.MAX_PICKLE_BYTES`, loaded with
    ``weights_only=True`` (no code), holding a dict."""
    try:
        info = path.stat()
    except OSError:
        raise CheckpointError(f"checkpoint {path} does not exist (make one with: posenc lab train)") from None
    if not stat.S_ISREG(info.st_mode):
        raise CheckpointError(f"checkpoint {path} is not a regular file")
    if info.st_size > MAX_CHECKPOINT_BYTES:
        raise CheckpointError(
            f"checkpoint {path} is {info.st_size:,} bytes, more than a lab checkpoint may be "
            f"({MAX_CHECKPOINT_BYTES:,}); it is not read"
        )
    try:
        with path.open("rb") as stream:
            if stream.read(4) != b"PK\x03\x04":
                raise CheckpointError(f"checkpoint {path} is not a lab checkpoint or is damaged (not a zip archive)")
            stream.seek(0)
            try:
                check_torch_zip(str(path), stream, MAX_CHECKPOINT_BYTES)
            except ValueError as error:
                reason = str(error).replace(f"source {str(path)!r}", "", 1).lstrip(": ")
                raise CheckpointError(f"checkpoint {path} is refused before it is read: {reason}") from None
            stream.seek(0)
            with zipfile.ZipFile(stream) as archive:
                pickles = [entry for entry in archive.infolist() if entry.filename.endswith("data.pkl")]
            if any(entry.file_size > MAX_PICKLE_BYTES for entry in pickles):
                size = max(entry.file_size for entry in pickles)
                raise CheckpointError(
                    f"checkpoint {path} is refused before it is read: its pickle declares {size:,} bytes "
                    f"(a lab checkpoint's takes at most {MAX_PICKLE_BYTES:,})"
                )
            stream.seek(0)
            data = torch.load(stream, map_location="cpu", weights_only=True)
    except CheckpointError:
        raise
    except Exception as error:  # a truncated or foreign file fails in many ways; all mean "not a checkpoint"
        message = f"checkpoint {path} is not a lab checkpoint or is damaged ({type(error).__name__})"
        raise CheckpointError(message) from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        found = data.get("format") if isinstance(data, dict) else type(data).__name__
        raise CheckpointError(f"checkpoint {path} is not a lab checkpoint of format {FORMAT} (found {shown(found)})")
    return data


_DEVICE = re.compile(r"[a-z][a-z0-9_]{0,15}")  # torch.device(...).type: cpu, cuda, mps, xpu, ...


class Fields:
    """One checked reader of a checkpoint's dict: every field is read through it, and a missing key, a value of
    the wrong type or out of its bounds (an infinite or fractional count) is one :class:`CheckpointError` naming
    the file and the field (``config.n_layers``)."""

    def __init__(self, path: Path, data: dict, prefix: str = ""):
        self.path, self.data, self.prefix = path, data, prefix

    def error(self, key: str, problem: str) -> CheckpointError:
        return CheckpointError(f"checkpoint {self.path} does not hold a lab model: field {self.prefix}{key} {problem}")

    def get(self, key: str) -> Any:
        if key not in self.data:
            raise self.error(key, "is missing")
        return self.data[key]

    def _checked(self, key: str, check: Callable[..., Any], *bounds) -> Any:
        try:
            return check(key, self.get(key), *bounds)
        except CheckpointError:
            raise
        except ValueError as error:
            raise self.error(key, str(error).removeprefix(key).strip()) from None

    def whole(self, key: str, least: int, most: int) -> int:
        return self._checked(key, whole, least, most)

    def number(self, key: str, least: float, most: float) -> float:
        return self._checked(key, finite, least, most)

    def choice(self, key: str, choices) -> str:
        value = self.get(key)
        if not isinstance(value, str) or value not in choices:
            raise self.error(key, f"must be one of {', '.join(choices)} (got {shown(value)})")
        return value

    def device_name(self, key: str) -> str:
        value = self.get(key)
        if not isinstance(value, str) or not _DEVICE.fullmatch(value):
            raise self.error(key, f"must be a device name such as cpu or cuda (got {shown(value)})")
        return value

    def section(self, key: str, known) -> Fields:
        """The dict under ``key`` as a reader of its own, with no key outside ``known``."""
        value = self.get(key)
        if not isinstance(value, dict):
            raise self.error(key, f"must be a dict (got {type(value).__name__})")
        unknown = [name for name in value if name not in known]
        if unknown:
            raise self.error(key, f"has a key the lab does not know: {shown(unknown[0])}")
        return Fields(self.path, value, f"{self.prefix}{key}.")

    def numbers(self, key: str, most: int) -> list[float]:
        value = self.get(key)
        if not isinstance(value, list) or len(value) > most:
            raise self.error(key, f"must be a list of at most {most:,} numbers (got {shown(value)})")
        if not all(isinstance(item, int | float) and not isinstance(item, bool) for item in value):
            raise self.error(key, "must hold numbers only")
        return [float(item) for item in value]

    def config(self) -> LabConfig:
        names = {item.name for item in dataclasses.fields(LabConfig)}
        section = self.section("config", names)
        values: dict[str, Any] = {"scheme": section.choice("scheme", tuple(SCHEMES))}
        for name, (least, most) in SIZE_BOUNDS.items():
            values[name] = section.whole(name, least, most)
        values["rope_base"] = section.number("rope_base", *ROPE_BASE_RANGE)
        try:
            return LabConfig(**values)  # what no one field shows: head_dim, the parameters in all
        except ValueError as error:
            raise self.error("config", f"is not a lab model's: {error}") from None

    def settings(self) -> TrainSettings:
        names = {item.name for item in dataclasses.fields(TrainSettings)}
        section = self.section("settings", names)
        values = {
            "task": section.choice("task", TASKS),
            "steps": section.whole("steps", 1, MAX_STEPS),
            "batch_size": section.whole("batch_size", 1, MAX_BATCH_SIZE),
            "learning_rate": section.number("learning_rate", 0, 1),
            "seed": section.whole("seed", 0, MAX_SEED),
        }
        if section.data.get("length") is not None:  # absent in checkpoints trained at their own L before it existed
            values["length"] = section.whole("length", 2, MAX_LENGTH)
        try:
            return TrainSettings(**values)
        except ValueError as error:
            raise self.error("settings", f"are not a run's: {error}") from None

    def state(self, model: LabModel) -> dict[str, torch.Tensor]:
        """The weights under ``state``: exactly the model's names, shapes and floating-point tensors."""
        value = self.get("state")
        expected = model.state_dict()
        if not isinstance(value, dict) or set(value) != set(expected):
            names = sorted(set(value) ^ set(expected)) if isinstance(value, dict) else [type(value).__name__]
            raise self.error("state", f"does not hold this model's weights (differs at {shown(names[0])})")
        for name, tensor in value.items():
            if not isinstance(tensor, torch.Tensor) or not tensor.is_floating_point():
                raise self.error(f"state.{name}", "must be a floating-point tensor")
            if tensor.shape != expected[name].shape:
                shape = tuple(expected[name].shape)
                raise self.error(f"state.{name}", f"must have shape {shape} (got {tuple(tensor.shape)})")
        return {name: tensor.float() for name, tensor in value.items()}

    def scaling(self, config: LabConfig) -> dict | None:
        """The RoPE scaling a model was fine-tuned under (``rope_scaling``; None when absent), read by the config
        reader as an uploaded config.json's block is."""
        block = self.data.get("rope_scaling")
        if block is not None and config.scheme != "rope":
            raise self.error("rope_scaling", f"is for RoPE models only (this one is {config.scheme})")
        try:
            return read_block(config, block)
        except ValueError as error:
            problem = f"is not a rope_scaling block the config reader accepts: {error}"
            raise self.error("rope_scaling", problem) from None

    def checkpoint(self, device: str | torch.device) -> Checkpoint:
        config, settings = self.config(), self.settings()
        scaling = self.scaling(config)
        losses = self.numbers("losses", MAX_STEPS)
        seconds = self.number("seconds", 0, 1e9)
        trained_on = self.device_name("device")
        model = LabModel(config)  # bounded: its config passed every check above
        model.load_state_dict(self.state(model))
        if scaling is not None:
            model.scheme.scaling = scaling
        model.to(device).eval()
        return Checkpoint(model, settings, losses, seconds, trained_on)


def holds_checkpoint(path: Path) -> bool:
    """Whether ``path`` is a lab checkpoint (read with every check of :func:`load`)."""
    try:
        load(path)
    except CheckpointError:
        return False
    return True


def check_target(path: str | os.PathLike) -> Path:
    """``path`` as a Path if a checkpoint may be written there (:func:`posenc_lab.targets.check_target`: a new
    name in a writable folder, or a lab checkpoint to replace); :class:`CheckpointError` saying why not."""
    try:
        return targets.check_target(path, holds_checkpoint, "checkpoint")
    except targets.TargetError as error:
        raise CheckpointError(str(error)) from None
