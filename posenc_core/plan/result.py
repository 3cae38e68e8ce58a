"""What a plan is: :class:`Plan` (everything a plan shows), each method's :class:`MethodPlan` and each frequency
pair's :class:`Pair`. :func:`plan.plan_extension` computes them; the checks (``plan.checks``) read them.

Its own module so that the checks can read a plan and the plan can run the checks without a circle of imports:
``plan`` -> ``checks`` -> ``result``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from itertools import groupby

from posenc_core._checks import check_choice
from posenc_core.models.preset_type import ModelPreset
from posenc_core.plan.findings import Finding
from posenc_core.plan.methods import Settings
from posenc_core.plan.paste import CONFIG_BLOCKS, WRITERS, Blocks, Refusal, Request, paste_blocks
from posenc_core.plan.shape import ConfigShape


@dataclass(frozen=True)
class MethodPlan:
    """One method's settings and what they do: frequencies (d/2,), attention factor, lowest B over T, the
    context its critical pair reaches (Liu et al.'s T_extra for these frequencies)."""

    method: str
    settings: Settings
    inv_freq: tuple[float, ...]
    attention_factor: float
    lowest_bound: tuple[int, float]  # (m, B(m)) at the lowest B(m) over m < T
    critical_reach: float | None  # 2π/θ'_c at the critical pair c; None when every pair is past L


@dataclass(frozen=True)
class Pair:
    """One frequency pair: its index, original wavelength, and per method its new wavelength and regime."""

    index: int
    wavelength: float
    wavelengths: dict[str, float]
    regimes: dict[str, str]


@dataclass(frozen=True)
class Plan:
    """Everything a plan shows; ``chosen`` is the method asked for."""

    model: ModelPreset
    model_id: str
    target: int
    original: int
    original_source: str  # "given", "original_max_position_embeddings", "max_position_embeddings", ...
    factor: float
    method: str
    runtime: str | None
    rotary_dim: int
    base: float
    methods: dict[str, MethodPlan]
    rules: dict[str, float | None]
    critical_dim: int
    pairs: tuple[Pair, ...]
    own_context: int  # the model's own context (its context_length, else L)
    own_lowest_bound: tuple[int, float]  # (m, B(m)) at the lowest B of the model's own settings over own_context
    findings: tuple[Finding, ...] = ()
    paste: dict[str, str] = field(default_factory=dict)
    shape: ConfigShape = field(default_factory=ConfigShape)  # the model's own config.json, as the blocks see it
    refused: dict[str, Refusal] = field(default_factory=dict)  # the blocks a runtime cannot serve, and why

    def paste_for(self, method: str) -> Blocks:
        """The blocks (and refusals) ``method``'s settings get for this model, as the chosen method's are written."""
        planned = self.methods[check_choice("method", method, self.methods)]
        return paste_blocks(
            Request(self.model, self.shape, method, planned.settings, self.model_id, self.original, self.target)
        )

    @property
    def paste_versions(self) -> dict[str, str]:
        """Each block's runtime version, the one its form was checked against."""
        return {name: WRITERS[name].version for name in self.paste}

    @property
    def chosen(self) -> MethodPlan:
        return self.methods[self.method]

    @property
    def needed_factor(self) -> float:
        """T / L, rounded up to four decimals (the factor the plan uses unless another is given)."""
        return factor_for(self.original, self.target)

    @property
    def warnings(self) -> tuple[Finding, ...]:
        return tuple(finding for finding in self.findings if finding.severity == "warning")

    @property
    def shown_paste(self) -> dict[str, str]:
        """The blocks to paste: every one, or the config.json blocks and the chosen runtime's flags."""
        if self.runtime is None:
            return dict(self.paste)
        return {name: block for name, block in self.paste.items() if name in CONFIG_BLOCKS or name == self.runtime}

    def regime_runs(self, method: str | None = None) -> list[tuple[str, int, int]]:
        """(regime, first pair, last pair) for each run of pairs ``method`` (the chosen one by default) puts in one
        regime, fast pairs first."""
        method = method or self.method
        runs: list[tuple[str, int, int]] = []
        for regime, run in groupby(self.pairs, key=lambda pair: pair.regimes[method]):
            indices = [pair.index for pair in run]
            runs.append((regime, indices[0], indices[-1]))
        return runs


def factor_for(original: int, target: int) -> float:
    """T / L rounded up to four decimals: the factor a plan uses unless another is given."""
    return math.ceil(target / original * 10**4) / 10**4
