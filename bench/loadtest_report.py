"""The load test's results as Markdown (bench/loadtest.md): a table per serving mode and workload, the soak's
memory over time, and a short block for the README (`readme_block`)."""

from __future__ import annotations

COLUMNS = (
    "| N | served | first figure p50 / p95 / max (s) | server CPU per session (ms) | peak memory (MB) | errors |",
    "|---:|---:|---|---:|---|---:|",
)


def _seconds(step: dict) -> str:
    values = [step.get(f"first_figure_{q}_s") for q in ("p50", "p95", "max")]
    return " / ".join("-" if v is None else f"{v:.2f}" for v in values)


def _row(step: dict) -> str:
    if "skipped" in step:
        return f"| {step['sessions']} | skipped: {step['skipped']} | | | | |"
    errors = step["errors"] + len(step["log_errors"])
    memory = f"{step['peak_mb']:.0f}"
    if step.get("peak_one_mb") and step["peak_one_mb"] != step["peak_mb"]:
        memory += f" (largest replica {step['peak_one_mb']:.0f})"
    return (
        f"| {step['sessions']} | {step['served']}/{step['sessions']} | {_seconds(step)} | "
        f"{step['cpu_per_session_ms']} | {memory} | {errors} |"
    )


def _header(results: dict) -> list[str]:
    machine = results["machine"]
    return [
        f"Measured {results['when']} on {machine['cpu']} ({machine['cores']} cores), Python {machine['python']}, "
        f"with `python -m bench.loadtest` (protocol-level clients on 127.0.0.1, each session timed out after "
        f"{results['settings']['timeout_s']:.0f} s). *One link*: every session opens "
        f"`{results['settings']['one_link']}`; "
        f"*mixed pages*: the explorer pages round robin, at their defaults and their largest parameters. Each N "
        f"opens at once on a warm server. Errors: those the sessions saw plus error lines in the servers' logs. "
        f"Peak memory: the servers' VmHWM, summed over replicas.",
        "",
    ]


def render_markdown(results: dict) -> str:
    """The whole report."""
    lines = ["# Load test: a class opening the app at once", "", *_header(results)]
    for mode in results["modes"]:
        if mode.get("warmup_s") is not None:
            warmed = f"each replica warmed its figure cache in {mode['warmup_s']:.0f} s before the class"
            lines += [f"{mode['mode']}: {warmed}.", ""]
        for workload, steps in mode["workloads"].items():
            lines += [f"## {mode['mode']}: {workload}", "", *COLUMNS, *(_row(s) for s in steps), ""]
            examples = sorted({e for s in steps for e in s.get("error_examples", []) + s.get("log_errors", [])})
            if examples:
                lines += ["Errors seen:", "", *(f"- `{e}`" for e in examples[:10]), ""]
    if results.get("soak"):
        lines += render_soak(results["soak"])
    if results["modes"]:
        lines += ["## For the README", "", readme_block(results)]
    return "\n".join(lines) + "\n"


def render_soak(soak: dict) -> list[str]:
    """The soak: how many reruns, how many distinct links, memory at the start, over time and at the end."""
    samples = soak["memory"]
    lines = [
        f"## Soak: {soak['minutes']:.0f} min of distinct parameter sets ({soak['mode']})",
        "",
        f"{soak['runs']} runs of {soak['distinct_links']} distinct links ({soak['served']} served, "
        f"{soak['errors']} errors, {len(soak['log_errors'])} error lines in the logs) by {soak['workers']} "
        f"sessions at a time. Servers' resident memory (MB, all replicas): start {samples[0]['rss_mb']:.0f}, "
        f"end {samples[-1]['rss_mb']:.0f}, highest {max(s['rss_mb'] for s in samples):.0f}; the budget per "
        f"replica was {soak['budget_mb']:.0f} MB (largest replica {max(s['rss_largest_mb'] for s in samples):.0f}): "
        f"{'kept' if soak['within_budget'] else 'EXCEEDED'}. Change over the second half of the soak: "
        f"{soak['growth_second_half_mb']:+.0f} MB.",
        "",
        "| minute | runs | resident memory (MB) |",
        "|---:|---:|---:|",
    ]
    step = max(1, len(samples) // 12)
    lines += [f"| {s['t_s'] / 60:.1f} | {s['runs']} | {s['rss_mb']:.0f} |" for s in samples[::step]]
    return [*lines, ""]


def readme_block(results: dict) -> str:
    """A compact table for the README: one line per mode, workload and N."""
    lines = [
        "| serving | workload | N | served | first figure p50 / p95 (s) | CPU per session (ms) | peak memory (MB) "
        "| errors |",
        "|---|---|---:|---:|---|---:|---:|---:|",
    ]
    for mode in results["modes"]:
        for workload, steps in mode["workloads"].items():
            for step in steps:
                if "skipped" in step:
                    continue
                p50, p95 = step["first_figure_p50_s"], step["first_figure_p95_s"]
                timing = "-" if p50 is None else f"{p50:.2f} / {p95:.2f}"
                lines.append(
                    f"| {mode['mode']} | {workload} | {step['sessions']} | {step['served']}/{step['sessions']} | "
                    f"{timing} | {step['cpu_per_session_ms']} | {step['peak_mb']:.0f} | "
                    f"{step['errors'] + len(step['log_errors'])} |"
                )
    machine = results["machine"]
    lines += [
        "",
        f"`make loadtest` on {machine['cores']} cores, {results['when']} (bench/loadtest.md has the details).",
    ]
    return "\n".join(lines)
