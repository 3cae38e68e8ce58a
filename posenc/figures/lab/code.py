"""The code behind the length lab's figures: read the lab's results (``posenc_lab.results``) or run its trained
models (``posenc_lab.probes``), as the figures do. Each snippet names the folder the app reads."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from posenc.drawing import registry
from posenc.drawing.code import Snippet, assignments, code_block, expect, literal, register_code
from posenc.figures.lab import source
from posenc.figures.lab.attention import FLOOR, MULTIPLES
from posenc.figures.lab.finetune import CONTROL, METHODS
from posenc_lab.checkpoints import SHIPPED
from posenc_lab.scaling import SCALING_TYPES

IMPORTS = ("numpy as np",)


def nothing(figure_id: str, values: Mapping[str, Any]) -> Snippet:
    """The snippet while the lab has no results: the figure's values, and nothing computed from them."""
    names = registry.get_spec(figure_id).params
    text = code_block(
        assignments(values, *names), "result = {}  # no lab results yet: posenc lab train --all", imports=()
    )
    return Snippet(text, dict)


def _load() -> str:
    """The lines that read the results the app reads, one view per seed."""
    shipped = source.folder() == SHIPPED
    where = "" if shipped else literal(str(source.results_path()))
    return f"""
        from posenc_lab.results import load_results, seed_view

        results = load_results({where})
        views = [seed_view(results, seed) for seed in results["seeds"]]  # each seed's tables, in one run's layout
        """


ACROSS_SEEDS = """
    def across_seeds(tables, key):  # one list of rows per seed -> the mean, lowest and highest seed at each row
        values = np.array([[np.nan if row.get(key) is None else row[key] for row in rows] for rows in tables])
        return values.mean(axis=0), values.min(axis=0), values.max(axis=0)
    """


def _checkpoint(scheme: str) -> str:
    return (
        "from posenc_lab import checkpoints, probes\n\n"
        f"model = checkpoints.load({literal(str(source.checkpoint_path(scheme)))}).model  # the trained {scheme} model"
    )


def _spreads(names: str, rows: str, key: str, x: str = '"length": np.array(results["lengths"], dtype=float)') -> str:
    """Code setting ``result[name]`` (and ``_low``, ``_high``) for each of ``names`` from the rows ``rows`` (an
    expression of ``view`` and ``name``) of every seed that holds them."""
    return f"""
        result = {{{x}}}
        for name in {names}:
            tables = [rows for view in views if (rows := {rows})]  # None past a learned table
            if tables:
                result[name], result[f"{{name}}_low"], result[f"{{name}}_high"] = across_seeds(tables, {literal(key)})
        """


def _snippet(figure_id: str, values: Mapping[str, Any], *parts: str, **tolerance) -> Snippet:
    return Snippet(code_block(_load(), ACROSS_SEEDS, *parts, imports=IMPORTS), expect(figure_id, values), **tolerance)


SCHEMES = literal(source.SCHEME_ORDER)


@register_code("lab-lengths")
def lengths_code(values: Mapping[str, Any]) -> Snippet:
    if not source.available():
        return nothing("lab-lengths", values)
    rows = f'view["lm"][{literal(values["lab_mode"])}].get(name)'
    return _snippet("lab-lengths", values, _spreads(SCHEMES, rows, values["lab_metric"]))


COPY_LETTERS = '"letters": (np.array(results["copy_lengths"], dtype=float) - 1) // 2'  # strings of n letters


@register_code("lab-copy")
def copy_code(values: Mapping[str, Any]) -> Snippet:
    if not source.available():
        return nothing("lab-copy", values)
    rows = _spreads(SCHEMES, 'view["copy"].get(name)', values["lab_copy_metric"], COPY_LETTERS)
    return _snippet("lab-copy", values, rows)


@register_code("lab-positions")
def positions_code(values: Mapping[str, Any]) -> Snippet:
    if not source.available():
        return nothing("lab-positions", values)
    body = f"""
        window = {literal(values["lab_smooth"])}
        n = views[0]["positions"]["length"]
        ends = np.arange(1, n + 1)
        starts = np.maximum(ends - window, 0)
        result = {{"position": np.arange(n, dtype=float)}}
        for scheme in {SCHEMES}:
            losses = [view["positions"]["loss"][scheme] for view in views if scheme in view["positions"]["loss"]]
            if not losses or None in losses:  # a learned table has no row past L
                continue
            smooth = []
            for loss in losses:  # each seed's loss, a trailing mean of the last `window` positions
                sums = np.cumsum(np.concatenate([[0.0], loss]))
                smooth.append((sums[ends] - sums[starts]) / (ends - starts))
            smooth = np.array(smooth)
            result[scheme], result[f"{{scheme}}_low"], result[f"{{scheme}}_high"] = (
                smooth.mean(axis=0), smooth.min(axis=0), smooth.max(axis=0)
            )
        """
    return _snippet("lab-positions", values, body)


@register_code("lab-scaling")
def scaling_code(values: Mapping[str, Any]) -> Snippet:
    if not source.available():
        return nothing("lab-scaling", values)
    factor, mode = values["factor"], values["lab_mode"]
    kinds = literal(SCALING_TYPES)
    shipped = [view.get("scaling", {}) for view in source.seed_views()]
    if all(s.get("factor") == factor and s.get("mode") == mode for s in shipped):
        rows = _spreads(kinds, 'view["scaling"]["rows"].get(name)', "loss")  # evaluated with the lab
        return _snippet("lab-scaling", values, rows)
    body = f"""
        from posenc_lab import checkpoints
        from posenc_lab.results import scaled_rows

        checkpoint = checkpoints.load({literal(str(source.checkpoint_path("rope")))})  # the first seed's model
        factor, mode = {literal(float(factor))}, {literal(mode)}
        scaled = {{"default": views[0]["lm"][mode]["rope"]}}  # no scaling: the rows evaluated with the lab
        for rope_type in {literal(tuple(kind for kind in SCALING_TYPES if kind not in ("default", "longrope")))}:
            scaled[rope_type] = scaled_rows(
                checkpoint, rope_type, factor, results["lengths"], mode, scored_tokens={source.LIVE_TOKENS}
            )  # evaluated now on fewer tokens, as the page does
        views = [{{"scaled": scaled}}]  # one seed: LongRoPE's factors were searched at the shipped factor only
        """
    return _snippet("lab-scaling", values, body, _spreads(kinds, 'view["scaled"].get(name)', "loss"), rtol=1e-4)


PASSKEY_LENGTHS = '"length": np.array([row["length"] for row in rows_of_first], dtype=float)'


@register_code("lab-passkey")
def passkey_code(values: Mapping[str, Any]) -> Snippet:
    if not _holds("passkey"):
        return nothing("lab-passkey", values)
    first = 'rows_of_first = next(rows for view in views for rows in view.get("passkey", {}).values() if rows)'
    rows = _spreads(SCHEMES, 'view.get("passkey", {}).get(name)', values["lab_passkey_metric"], PASSKEY_LENGTHS)
    return _snippet("lab-passkey", values, first, rows)


@register_code("lab-passkey-scaling")
def passkey_scaling_code(values: Mapping[str, Any]) -> Snippet:
    if not _holds("passkey_scaling"):
        return nothing("lab-passkey-scaling", values)
    first = 'rows_of_first = next(rows for rows in views[0]["passkey_scaling"]["rows"].values() if rows)'
    rows = 'view.get("passkey_scaling", {}).get("rows", {}).get(name)'
    spreads = _spreads(literal(SCALING_TYPES), rows, values["lab_passkey_metric"], PASSKEY_LENGTHS)
    return _snippet("lab-passkey-scaling", values, first, spreads)


@register_code("lab-finetune")
def finetune_code(values: Mapping[str, Any]) -> Snippet:
    if not _holds("finetune"):
        return nothing("lab-finetune", values)
    body = f"""
        metric = {literal(values["lab_metric"])}
        result = {{"length": np.array(results["lengths"], dtype=float)}}
        curves = [(kind, "scaling", "untuned") for kind in {literal(METHODS)}]  # dashed: scaled at evaluation only
        curves += [(kind, "finetune", "finetuned") for kind in {literal((*METHODS, CONTROL))}]  # solid: fine-tuned
        for kind, table, column in curves:
            tables = [rows for view in views if (rows := view.get(table, {{}}).get("rows", {{}}).get(kind))]
            if tables:
                name = f"{{kind}}_{{column}}"
                result[name], result[f"{{name}}_low"], result[f"{{name}}_high"] = across_seeds(tables, metric)
        """
    return _snippet("lab-finetune", values, body)


@register_code("lab-training")
def training_code(values: Mapping[str, Any]) -> Snippet:
    if not source.available() or not _runs(values["lab_task"]):
        return nothing("lab-training", values)
    body = f"""
        task = {literal(values["lab_task"])}
        result = {{}}
        for scheme in {SCHEMES}:
            runs = [run for run in results["runs"] if (run["scheme"], run["task"]) == (scheme, task)]
            runs = [run for run in runs if "method" not in run and run["curve"]]  # not the fine-tunes
            if not runs:
                continue
            runs = [run for run in runs if len(run["curve"]) == len(runs[0]["curve"])]
            curves = np.array([run["curve"] for run in runs])  # (seeds, spans): mean loss over equal spans of steps
            result["step"] = (np.arange(curves.shape[1]) + 0.5) * runs[0]["steps"] / curves.shape[1]
            result[scheme], result[f"{{scheme}}_low"], result[f"{{scheme}}_high"] = (
                curves.mean(axis=0), curves.min(axis=0), curves.max(axis=0)
            )
        """
    return Snippet(code_block(_load(), body, imports=IMPORTS), expect("lab-training", values))


def _holds(table: str) -> bool:
    """Whether the results can be read and some seed holds ``table``."""
    return source.available() and any(view.get(table) for view in source.seed_views())


def _runs(task: str) -> bool:
    return any(run["task"] == task and run.get("curve") for run in source.all_results()["runs"])


@register_code("lab-attention")
def attention_code(values: Mapping[str, Any]) -> Snippet:
    if not source.available():
        return nothing("lab-attention", values)
    body = f"""
        layer, head = {literal(values["lab_layer"])}, {literal(values["lab_head"])}
        result = {{}}
        for multiple in {literal(MULTIPLES)}:
            tokens = probes.window(multiple * results["train_length"])  # the held-out text's first tokens
            try:
                result[f"attention_{{multiple}}L"] = probes.attention(model, tokens, layer)[head].numpy()
            except ValueError:  # a learned table has no row past L
                pass
        # drawn as log10(max(A, 1e{int(FLOOR)})), the keys after each query masked
        """
    return Snippet(
        code_block(_load(), _checkpoint(values["lab_scheme"]), body, imports=IMPORTS),  # the first seed's model
        expect("lab-attention", values),
        rtol=1e-4,
        atol=1e-6,
    )


@register_code("lab-pair-norms")
def pair_norms_code(values: Mapping[str, Any]) -> Snippet:
    if not source.available():
        return nothing("lab-pair-norms", values)
    body = f"""
        tokens = probes.window(results["train_length"])
        query, key = probes.pair_norms(model, tokens, layer={literal(values["lab_layer"])})  # (heads, pairs) each
        result = {{"query": query.numpy(), "key": key.numpy()}}
        """
    return Snippet(
        code_block(_load(), _checkpoint("rope"), body, imports=IMPORTS), expect("lab-pair-norms", values), rtol=1e-4
    )
