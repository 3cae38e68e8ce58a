"""The Length lab page's controls that depend on the trained models: the layer and head ranges of the chosen
model, and the scaling factor checked against every method before the RoPE model runs."""

from __future__ import annotations

from typing import Any

import streamlit as st

from posenc.figures.lab import source
from posenc.i18n import _
from posenc.ui import controls, echo
from posenc_lab.checkpoints import CheckpointError
from posenc_lab.model import LabConfig
from posenc_lab.scaling import SCALING_TYPES, rope_scaling


def rope_config() -> LabConfig:
    """The shipped RoPE model's config (the default lab config while there is none)."""
    try:
        return source.checkpoint("rope").config
    except CheckpointError:
        return LabConfig(scheme="rope")


def scaling_problem(factor: float) -> str | None:
    """The first method's refusal of ``factor`` (ValueError's message), shown under the control; None if all
    accept it."""
    config = rope_config()
    searched = {"longrope": {"long_factor": [1.0] * (config.head_dim // 2)}}  # its lists are searched: only s is asked
    for rope_type in SCALING_TYPES:
        try:
            rope_scaling(config, rope_type, None if rope_type == "default" else factor, **searched.get(rope_type, {}))
        except ValueError as error:
            message = _("factor = {factor:g} is refused ({rope_type}): {error}").format(
                factor=factor, rope_type=rope_type, error=error
            )
            echo.warning(message, icon="⚠️")
            return message
    return None


def probe_controls() -> dict[str, Any]:
    """Model, layer and head; the layer and head offered are those the chosen model has."""
    values = controls.controls(["lab_scheme"], columns=3)
    try:
        config = source.checkpoint(values["lab_scheme"]).config
        sizes = {"lab_layers": config.n_layers, "lab_heads": config.n_heads}
    except CheckpointError:
        sizes = {}
    columns = st.columns(3)
    with columns[1]:
        values["lab_layer"] = controls.control("lab_layer", chosen=sizes)
    with columns[2]:
        values["lab_head"] = controls.control("lab_head", chosen=sizes)
    return values
