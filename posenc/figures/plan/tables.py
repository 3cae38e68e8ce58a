"""The plan's numbers as rows for the page's tables, with their column names and words in the reader's language:
the base rules, each method's attention factor and reach, and every pair's wavelengths and regime."""

from __future__ import annotations

from posenc.figures.plan.texts import RULE_LABELS
from posenc.figures.plan.wavelengths import REGIME_NAMES, method_label
from posenc.i18n import N_, _
from posenc_core.plan import Plan

COLUMNS = {
    "rule": N_("rule"),
    "value": N_("value"),
    "method": N_("method"),
    "attention factor": N_("attention factor"),
    "critical reach": N_("context the critical pair reaches"),
    "lowest B": N_("lowest B(m) over T (at m)"),
    "pair": N_("pair i"),
    "original": N_("original wavelength"),
    "new": N_("new wavelength ({method})"),
    "regime": N_("regime ({method})"),
}


def column(name: str, **values: str) -> str:
    return _(COLUMNS[name]).format(**values)


def rule_rows(plan: Plan) -> list[dict[str, str]]:
    """One row per base rule (``Plan.rules``): its name with its formula, its value (— where it is not computed)."""
    rows = []
    for name, label in RULE_LABELS.items():
        value = plan.rules.get(name)
        shown = "—" if value is None else f"{value:,.0f}"
        rows.append({column("rule"): _(label), column("value"): shown})
    return rows


def method_rows(plan: Plan) -> list[dict[str, str]]:
    """One row per method: its attention factor, the context its critical pair reaches, its lowest B(m) over T."""
    rows = []
    for name, planned in plan.methods.items():
        m, lowest = planned.lowest_bound
        reach = "—" if planned.critical_reach is None else f"{planned.critical_reach:,.0f}"
        rows.append(
            {
                column("method"): ("★ " if name == plan.method else "") + method_label(name),
                column("attention factor"): f"{planned.attention_factor:.4g}",
                column("critical reach"): reach,
                column("lowest B"): f"{lowest:.3g} (m = {m:,})",
            }
        )
    return rows


def pair_rows(plan: Plan) -> list[dict[str, object]]:
    """One row per pair: its index, original wavelength, the chosen method's new wavelength and regime, then every
    other method's wavelength."""
    chosen = method_label(plan.method)
    rows = []
    for pair in plan.pairs:
        row: dict[str, object] = {
            column("pair"): pair.index,
            column("original"): round(pair.wavelength, 2),
            column("new", method=chosen): round(pair.wavelengths[plan.method], 2),
            column("regime", method=chosen): _(REGIME_NAMES[pair.regimes[plan.method]]),
        }
        for name in plan.methods:
            if name != plan.method:
                row[method_label(name)] = round(pair.wavelengths[name], 2)
        rows.append(row)
    return rows
