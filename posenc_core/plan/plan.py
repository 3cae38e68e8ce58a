"""A context-extension plan: from a RoPE model and a target length T to settings to paste, with the reasoning.

:func:`plan_extension` computes, for the model's rotary dim d, base b and pre-training length L:

- per frequency pair i, its wavelength λᵢ = 2π/θᵢ against L and T, and for every method (``methods.PLAN_METHODS``)
  its new wavelength and the regime the method puts it in: *kept* (θ'ᵢ = θᵢ within 1%), *interpolated* (divided by
  at least 0.99·s) or *ramped* (between);
- the base rules (``rules``): NTK-aware, the share rule, dynamic NTK at T, Men et al.'s smallest base, Liu et al.'s;
  Liu et al.'s critical dimension and the context each method's frequencies reach by it;
- per method, its attention factor (what ``rope.scaling.inv_freq`` returns) and the lowest B(m) over T;
- the checks (``checks.CHECKS``) and the blocks to paste (``paste.WRITERS``) for the chosen method, written for
  the shape of the model's own config.json (``shape``), each naming the runtime version its form was checked on.

The work a plan does grows with pairs × T (B(m) is evaluated at every m < T for each method), so a plan refuses,
in one line, what lies past the bounds it states: a rotary dim up to ``MAX_ROTARY_DIM``, pairs × T up to
``MAX_PLAN_WORK``, a base up to ``MAX_BASE``, a factor up to ``MAX_TARGET`` and YaRN betas in
[``MIN_BETA``, ``MAX_BETA``].

Every frequency comes from ``posenc_core.rope.scaling.inv_freq`` fed the planned block, the same path a config.json
takes through ``models.hf_config``.
"""

from __future__ import annotations

import dataclasses
import json
import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import torch

from posenc_core._checks import check_choice, check_float, check_int
from posenc_core.models.preset_type import ModelPreset
from posenc_core.models.presets import rope_inputs
from posenc_core.plan import rules
from posenc_core.plan.checks import run_checks
from posenc_core.plan.methods import PLAN_METHODS, check_longrope_lists, has_longrope_lists
from posenc_core.plan.paste import RUNTIMES
from posenc_core.plan.result import MethodPlan, Pair, Plan, factor_for
from posenc_core.plan.shape import shape_for, shape_of
from posenc_core.rope.scaling import inv_freq

MAX_TARGET = 2**24
"""Longest target context a plan takes (16,777,216 tokens: past Llama 4 Scout's 10M)."""
MAX_ROTARY_DIM = 1024
"""Largest rotary dim a plan takes (512 pairs; real models rotate 32 to 256 channels of a head)."""
MAX_PLAN_WORK = 2**30
"""Most pairs × target tokens a plan evaluates (64 pairs over 16,777,216 tokens; 512 pairs over 2,097,152)."""
MAX_BASE = 1e12
"""Largest RoPE base a plan takes (the largest Men et al.'s search looks at)."""
MIN_BETA, MAX_BETA = 1e-3, 1e4
"""The range a model's own YaRN beta_fast and beta_slow must lie in (the paper's are 32 and 1)."""
KEPT, RAMPED, INTERPOLATED = "kept", "ramped", "interpolated"
REGIMES = (KEPT, RAMPED, INTERPOLATED)


def plan_extension(
    model: ModelPreset,
    target: int,
    method: str = "yarn",
    *,
    model_id: str | None = None,
    factor: float | None = None,
    original: int | None = None,
    runtime: str | None = None,
    config: Mapping[str, Any] | None = None,
) -> Plan:
    """The plan that takes ``model`` to ``target`` tokens with ``method`` (a key of ``PLAN_METHODS``).

    ``original`` (L) defaults to the model's original_max_position_embeddings, else its max_position_embeddings
    (divided by a linear factor: that block holds no original); ``factor`` to T / L. ``config`` is the model's
    own config.json as a dict, whose shape the blocks are written for (default: the preset's, else a plain
    Llama config's). ValueError, naming the argument, for a model without RoPE, a target outside
    (L, MAX_TARGET], an unknown method or runtime, a factor outside (0, MAX_TARGET], LongRoPE on a model without
    its searched lists, or work past the stated bounds (:func:`check_work`).
    """
    if model.scheme not in ("rope", "mrope"):
        raise ValueError(f"model {model.name} uses {model.scheme}, not RoPE: there are no RoPE settings to plan")
    method = check_choice("method", method, PLAN_METHODS)
    if runtime is not None:
        runtime = check_choice("runtime", runtime, RUNTIMES)
    original, source = _original(model, original)
    target = check_int("target", target, minimum=1, maximum=MAX_TARGET)
    if target <= original:
        raise ValueError(f"target must be longer than the original context L = {original:,} (got {target:,})")
    if factor is None:
        factor = factor_for(original, target)
    else:
        factor = check_float("factor", factor, greater_than=0.0, maximum=MAX_TARGET)
    rotary_dim = check_work(model, target)
    shape = shape_of(config) if config is not None else shape_for(model)
    methods = {name: _method_plan(model, name, original, target, factor) for name in _methods_for(model, method)}
    critical = rules.critical_dim(rotary_dim, model.rope_theta, original)
    for name, planned in methods.items():
        reach = None if critical >= rotary_dim else 2 * math.pi / planned.inv_freq[critical // 2]
        methods[name] = dataclasses.replace(planned, critical_reach=reach)
    own_context = min(model.context_length or original, MAX_TARGET)
    own_frequencies, _ = inv_freq(**rope_inputs(model, seq_len=own_context), device="cpu", dtype=torch.float64)
    plan = Plan(
        model=model,
        model_id=model_id or model.name,
        target=target,
        original=original,
        original_source=source,
        factor=factor,
        method=method,
        runtime=runtime,
        rotary_dim=rotary_dim,
        base=model.rope_theta,
        methods=methods,
        rules=_base_rules(model, rotary_dim, original, target, critical),
        critical_dim=critical,
        pairs=_pairs(model, methods, factor),
        own_context=own_context,
        own_lowest_bound=rules.lowest_bound(own_frequencies, own_context),
    )
    plan = dataclasses.replace(plan, shape=shape)
    blocks = plan.paste_for(method)
    plan = dataclasses.replace(plan, paste=blocks.text, refused=blocks.refused)
    return dataclasses.replace(plan, findings=run_checks(plan))


def plan_config(config: str | Path | Mapping[str, Any], target: int, method: str = "yarn", **options: Any) -> Plan:
    """:func:`plan_extension` for a config.json (a path, or its dict): the model is what
    ``posenc_core.models.hf_config`` reads from it, the blocks are written for that file's shape."""
    from posenc_core.models.hf_config import from_hf_config, read_config_file

    raw = dict(config) if isinstance(config, Mapping) else json.loads(read_config_file(config).decode("utf-8-sig"))
    return plan_extension(from_hf_config(raw).preset, target, method, config=raw, **options)


def check_work(model: ModelPreset, target: int) -> int:
    """The model's rotary dim, once the plan's work is known to lie within the stated bounds; ValueError naming
    the bound otherwise: rotary dim in [4, MAX_ROTARY_DIM], pairs × target <= MAX_PLAN_WORK, base <= MAX_BASE,
    a model's own YaRN betas in [MIN_BETA, MAX_BETA]."""
    rotary_dim = model.rotary_dim
    if rotary_dim < 4:
        raise ValueError(f"the rotary dim of {model.name} is {rotary_dim}: a plan needs at least two pairs")
    if rotary_dim > MAX_ROTARY_DIM:
        raise ValueError(
            f"the rotary dim of {model.name} is {rotary_dim:,}: a plan takes at most {MAX_ROTARY_DIM:,} "
            "(real models rotate 32 to 256 channels of a head)"
        )
    if rotary_dim // 2 * target > MAX_PLAN_WORK:
        raise ValueError(
            f"target {target:,} with {rotary_dim // 2} pairs is past what a plan evaluates: pairs × target must be "
            f"at most {MAX_PLAN_WORK:,} (target at most {MAX_PLAN_WORK // (rotary_dim // 2):,} for this model)"
        )
    if model.rope_theta > MAX_BASE:
        raise ValueError(f"the base (rope_theta) of {model.name} is {model.rope_theta:g}: a plan takes at most 1e12")
    scaling = model.rope_scaling or {}
    for key in ("beta_fast", "beta_slow"):
        if key in scaling:
            check_float(f"rope_scaling.{key}", scaling[key], minimum=MIN_BETA, maximum=MAX_BETA)
    return rotary_dim


def _original(model: ModelPreset, given: int | None) -> tuple[int, str]:
    if given is not None:
        return check_int("original", given, minimum=8), "given"
    scaling = model.rope_scaling or {}
    if scaling.get("original_max_position_embeddings"):
        return int(scaling["original_max_position_embeddings"]), "original_max_position_embeddings"
    if model.max_position_embeddings is None:
        raise ValueError(f"{model.name} states no context length: give the original length (original)")
    if scaling.get("rope_type") == "linear" and scaling.get("factor"):
        length = round(model.max_position_embeddings / scaling["factor"])
        if length > MAX_TARGET:
            raise ValueError(
                f"the original length max_position_embeddings / factor = {model.max_position_embeddings:,} / "
                f"{scaling['factor']:g} is past {MAX_TARGET:,} tokens: give the original length (original)"
            )
        return length, f"max_position_embeddings / factor = {model.max_position_embeddings:,} / {scaling['factor']:g}"
    return model.max_position_embeddings, "max_position_embeddings"


def _methods_for(model: ModelPreset, method: str) -> list[str]:
    """Every method the model can be planned with (LongRoPE only with its own lists); the chosen one must be one."""
    if method == "longrope":
        check_longrope_lists(model)
    return [name for name in PLAN_METHODS if name != "longrope" or has_longrope_lists(model)]


def _method_plan(model: ModelPreset, method: str, original: int, target: int, factor: float) -> MethodPlan:
    settings = PLAN_METHODS[method](model, original, target, factor)
    scaling = {k: v for k, v in (settings.scaling or {}).items() if k != "mrope_section"} or None
    frequencies, attention_factor = inv_freq(
        model.rope_head_dim,
        settings.rope_theta,
        None if scaling == {"rope_type": "default"} else scaling,
        seq_len=target,
        partial_rotary_factor=model.partial_rotary_factor,
        max_position_embeddings=settings.max_position_embeddings,
        device="cpu",
        dtype=torch.float64,
    )
    return MethodPlan(
        method=method,
        settings=settings,
        inv_freq=tuple(frequencies.tolist()),
        attention_factor=float(attention_factor),
        lowest_bound=rules.lowest_bound(frequencies, target),
        critical_reach=None,
    )


def _base_rules(model: ModelPreset, rotary_dim: int, original: int, target: int, critical: int) -> dict[str, Any]:
    base, factor = model.rope_theta, target / original
    return {
        "ntk": rules.ntk_base(rotary_dim, base, factor),
        "share": rules.share_base(base, original, target),
        "dynamic": rules.dynamic_base(rotary_dim, base, factor, original, target),
        "men": rules.men_base(target, rotary_dim),
        "liu": rules.liu_base(rotary_dim, critical, target),
        "liu_reach": rules.extrapolation_bound(rotary_dim, base, critical),
    }


def _pairs(model: ModelPreset, methods: dict[str, MethodPlan], factor: float) -> tuple[Pair, ...]:
    original = torch.tensor(
        inv_freq(
            model.rope_head_dim,
            model.rope_theta,
            partial_rotary_factor=model.partial_rotary_factor,
            dtype=torch.float64,
        )[0].tolist(),
        dtype=torch.float64,
    )
    pairs = []
    for i, theta in enumerate(original.tolist()):
        wavelengths, regimes = {}, {}
        for name, planned in methods.items():
            divisor = theta / planned.inv_freq[i]
            wavelengths[name] = 2 * math.pi / planned.inv_freq[i]
            regimes[name] = KEPT if abs(divisor - 1) <= 0.01 else INTERPOLATED if divisor >= 0.99 * factor else RAMPED
        pairs.append(Pair(i, 2 * math.pi / theta, wavelengths, regimes))
    return tuple(pairs)
