"""A context-extension plan (:class:`posenc_core.plan.Plan`) as plain JSON values and as text for a terminal.

:func:`as_dict` is what ``posenc plan --json`` prints; :func:`as_text` what ``posenc plan`` prints: the settings,
the checks with their fixes, the base rules, each method's attention factor and lowest B(m), every frequency pair
under the chosen method, and the blocks to paste, each with the runtime version its form was checked against.
Given a runtime, both keep the config.json blocks and that runtime's command only; a runtime that cannot serve the
method for this model has no block, and a warning says why.
"""

from __future__ import annotations

import json
import textwrap
from typing import Any

from posenc.commands.config import plain
from posenc_core.plan import MethodPlan, Pair, Plan
from posenc_core.plan.paste import CONFIG_BLOCKS, RUNTIMES, WRITERS
from posenc_core.plan.rules import NO_SMALLEST_BASE

"""The paste blocks that are config.json keys (JSON objects); the others are command lines."""
_WIDTH = 100  # text output wraps its sentences at this width
_PAIR_COLUMNS = 2  # the pair table is laid out in this many columns


def as_dict(plan: Plan) -> dict[str, Any]:
    """The plan as plain JSON values; the config.json paste blocks as objects, the command lines as text."""
    settings = plan.chosen.settings
    return {
        "model": {"name": plan.model.name, "source": plan.model.source, "model_id": plan.model_id},
        "target": plan.target,
        "original": plan.original,
        "original_source": plan.original_source,
        "factor": plan.factor,
        "method": plan.method,
        "runtime": plan.runtime,
        "rotary_dim": plan.rotary_dim,
        "base": plan.base,
        "settings": {
            "rope_scaling": plain(settings.scaling),
            "rope_theta": settings.rope_theta,
            "max_position_embeddings": settings.max_position_embeddings,
        },
        "attention_factor": {name: method.attention_factor for name, method in plan.methods.items()},
        "lowest_bound": {name: _bound(method) for name, method in plan.methods.items()},
        "critical_dim": plan.critical_dim,
        "critical_reach": {name: method.critical_reach for name, method in plan.methods.items()},
        "rules": dict(plan.rules),
        "pairs": [_pair(pair) for pair in plan.pairs],
        "findings": [{"code": f.code, "severity": f.severity, "reason": f.reason, "fix": f.fix} for f in plan.findings],
        "clean": not plan.warnings,
        "paste": {
            name: json.loads(block) if name in CONFIG_BLOCKS else block for name, block in plan.shown_paste.items()
        },
        "paste_versions": {name: WRITERS[name].version for name in plan.shown_paste},
    }


def as_text(plan: Plan) -> str:
    """The plan for a terminal: header, settings, checks, base rules, methods, pairs, blocks to paste."""
    return "\n".join(
        [*_header(plan), "", *_checks(plan), "", *_rules(plan), "", *_methods(plan), "", *_pairs(plan), *_paste(plan)]
    )


def _header(plan: Plan) -> list[str]:
    settings = plan.chosen.settings
    head_dim = plan.model.rope_head_dim
    runtime = RUNTIMES[plan.runtime].label if plan.runtime else "every runtime"
    return [
        f"{plan.model.name}: from L = {plan.original:,} to T = {plan.target:,} tokens, factor s = {plan.factor:g}, "
        f"method {plan.method} ({runtime})",
        f"  model: {plan.model.source}",
        f"  L from {plan.original_source}; rotary dim d = {plan.rotary_dim} of head_dim {head_dim}; base b = "
        f"{plan.base:,.0f}",
        "",
        "Settings:",
        f"  rope_scaling = {json.dumps(plain(settings.scaling))}",
        f"  rope_theta = {settings.rope_theta:g}",
        f"  max_position_embeddings = {settings.max_position_embeddings}",
    ]


def _checks(plan: Plan) -> list[str]:
    if not plan.findings:
        return ["Checks: No problems found."]
    warnings = len(plan.warnings)
    notes = len(plan.findings) - warnings
    lines = [f"Checks: {warnings} warning{'s' * (warnings != 1)}, {notes} note{'s' * (notes != 1)}"]
    for finding in plan.findings:
        lines += _wrap(f"{finding.severity}: {finding.reason}", "  ", "    ")
        lines += _wrap(f"fix: {finding.fix}", "    ", "      ")
    return lines


def _rules(plan: Plan) -> list[str]:
    rules = plan.rules
    men = NO_SMALLEST_BASE if rules["men"] is None else f"{rules['men']:,.0f}"
    liu = "none (every pair is longer than L)" if rules["liu"] is None else f"{rules['liu']:,.0f}"
    return [
        f"Base rules (d = {plan.rotary_dim}, b = {plan.base:,.0f}, s = T/L = {plan.target / plan.original:g}):",
        f"  NTK-aware        b·s^(d/(d−2))                    {rules['ntk']:>16,.0f}",
        f"  share rule       b^(ln(T/2π)/ln(L/2π))            {rules['share']:>16,.0f}",
        f"  dynamic NTK at T b·(s·T/L − (s − 1))^(d/(d−2))    {rules['dynamic']:>16,.0f}",
        f"  Men et al. 2024  smallest b with B(m) >= 0, m < T {men:>16}",
        f"  Liu et al. 2023  (T/2π)^(d/d_extra)               {liu:>16}",
        f"  Liu et al.'s critical dim d_extra = {plan.critical_dim} of {plan.rotary_dim}: b reaches "
        f"2π·b^(d_extra/d) = {rules['liu_reach']:,.0f} tokens",
    ]


def _methods(plan: Plan) -> list[str]:
    lines = ["Methods (attention factor; lowest B(m) = Σ cos(m·θ'ᵢ) for m < T; critical pair's wavelength):"]
    for name, method in plan.methods.items():
        m, lowest = method.lowest_bound
        reach = "-" if method.critical_reach is None else f"{method.critical_reach:,.0f}"
        mark = "→" if name == plan.method else " "
        lines.append(
            f"{mark} {name:<9} {method.attention_factor:6.4f}   B {lowest:7.3f} at m = {m:>11,}   reach {reach:>15}"
        )
    return lines


def _pairs(plan: Plan) -> list[str]:
    """Each method's regimes as index ranges, then every pair: i, λᵢ, the chosen method's λ'ᵢ and regime."""
    lines = ["Pairs (λᵢ = 2π/θᵢ; kept, ramped or interpolated by each method):"]
    for name in plan.methods:
        runs = plan.regime_runs(name)
        shown = ", ".join(
            f"{first}-{last} {regime}" if last > first else f"{first} {regime}" for regime, first, last in runs
        )
        lines.append(f"  {name:<9} {shown}")
    before = [_length(pair.wavelength) for pair in plan.pairs]
    after = [_length(pair.wavelengths[plan.method]) for pair in plan.pairs]
    new_label = f"λ' {plan.method}"
    wide, wider = max(map(len, [*before, "λ"])), max(map(len, [*after, new_label]))
    cells = [
        f"{pair.index:>3} {old:>{wide}} → {new:>{wider}} {pair.regimes[plan.method]:<12}"
        for pair, old, new in zip(plan.pairs, before, after, strict=True)
    ]
    rows = -(-len(cells) // _PAIR_COLUMNS)
    heading = f"{'i':>3} {'λ':>{wide}}   {new_label:>{wider}} {'regime':<12}"
    lines.append("  ".join([heading] * min(_PAIR_COLUMNS, len(cells))).rstrip())
    lines += ["  ".join(cells[row::rows]).rstrip() for row in range(rows)]
    return lines


def _paste(plan: Plan) -> list[str]:
    lines = [""]
    for name, block in plan.shown_paste.items():
        writer = WRITERS[name]
        lines += [
            f"Paste: {writer.label} (form checked on {writer.version})",
            *(f"  {line}" for line in block.splitlines()),
        ]
    return lines


def _bound(method: MethodPlan) -> dict[str, float]:
    m, lowest = method.lowest_bound
    return {"m": m, "value": lowest}


def _pair(pair: Pair) -> dict[str, Any]:
    return {
        "index": pair.index,
        "wavelength": pair.wavelength,
        "wavelengths": dict(pair.wavelengths),
        "regimes": dict(pair.regimes),
    }


def _length(tokens: float) -> str:
    return f"{tokens:.2f}" if tokens < 10 else f"{tokens:,.0f}"


def _wrap(text: str, first: str, rest: str) -> list[str]:
    return textwrap.wrap(text, _WIDTH, initial_indent=first, subsequent_indent=rest, break_on_hyphens=False)
