"""vLLM's CPU build started with the planner's ``vllm serve`` line, asked for the prompt's log-probabilities.

The server is the real entry point (``vllm serve``, so every flag goes through vLLM's own argument parser and
config checks: a ``--max-model-len`` longer than vLLM derives from the config is refused at start-up, which is a
result). It is asked ``/v1/completions`` with the prompt as token ids, ``max_tokens`` 1 and ``prompt_logprobs`` 0
(the log-probability of each prompt token itself).

Besides :data:`conformance.blocks.VLLM_HARNESS_FLAGS`, the harness sets the environment for a CPU test: a 1 GiB KV
cache (``VLLM_CPU_KVCACHE_SPACE``), no thread pinning (``VLLM_CPU_OMP_THREADS_BIND=nobind``: the cores are shared),
no Hub access and no usage statistics.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from conformance.blocks import vllm_command

ENVIRONMENT = {
    "VLLM_CPU_KVCACHE_SPACE": "1",
    "VLLM_CPU_OMP_THREADS_BIND": "nobind",
    "HF_HUB_OFFLINE": "1",
    "VLLM_NO_USAGE_STATS": "1",
    "DO_NOT_TRACK": "1",
    "TOKENIZERS_PARALLELISM": "false",
}


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _post(url: str, body: dict[str, Any], timeout: float) -> dict[str, Any]:
    request = urllib.request.Request(
        url, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}, method="POST"
    )
    with urllib.request.urlopen(request, timeout=timeout) as response:
        return json.loads(response.read())


def _tail(path: Path, lines: int = 25) -> str:
    text = path.read_text(errors="replace") if path.exists() else ""
    return "\n".join(text.splitlines()[-lines:])


def picked_logprobs(prompt_logprobs: list[Any], tokens: list[int]) -> list[float]:
    """vLLM's ``prompt_logprobs`` (None for the first token, then {token id: {"logprob": ...}} per position) as
    element i = log p(tokens[i+1] | tokens[:i+1]). ValueError when a position lacks its own token."""
    if len(prompt_logprobs) != len(tokens):
        raise ValueError(f"prompt_logprobs has {len(prompt_logprobs)} entries for {len(tokens)} tokens")
    picked = []
    for position, (entry, token) in enumerate(zip(prompt_logprobs[1:], tokens[1:], strict=True), start=1):
        if not entry or str(token) not in entry:
            raise ValueError(f"prompt_logprobs at position {position} lacks token {token}: {entry!r}")
        picked.append(float(entry[str(token)]["logprob"]))
    return picked


def serve_and_score(
    python: Path, block: str, model_dir: Path, tokens: list[int], log: Path, start_timeout: float = 600.0
) -> dict[str, Any]:
    """Start ``vllm serve`` with the block's flags (``python`` is the vLLM environment's interpreter, running
    :mod:`conformance.vllm_cli`), score ``tokens``, stop it. Returns ``logprobs`` and the exact
    command, or ``error`` with the end of the server's log (a refused length, a crash)."""
    port = free_port()
    argv = vllm_command(block, str(model_dir), port)
    command = [str(python), "-m", "conformance.vllm_cli", *argv[1:]]
    root = str(Path(__file__).resolve().parent.parent)
    environment = {**os.environ, **ENVIRONMENT, "PYTHONPATH": root}
    result: dict[str, Any] = {"command": argv}
    with log.open("w") as output:
        server = subprocess.Popen(
            command, stdout=output, stderr=subprocess.STDOUT, env=environment, start_new_session=True
        )
    try:
        deadline = time.monotonic() + start_timeout
        while True:
            if server.poll() is not None:
                result["error"] = f"vllm serve exited with {server.returncode} before serving:\n{_tail(log)}"
                return result
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=5) as response:
                    if response.status == 200:
                        break
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                pass
            if time.monotonic() > deadline:
                result["error"] = f"vllm serve did not answer within {start_timeout:.0f} s:\n{_tail(log)}"
                return result
            time.sleep(2)
        body = {
            "model": str(model_dir),
            "prompt": tokens,
            "max_tokens": 1,
            "temperature": 0.0,
            "prompt_logprobs": 0,
        }
        try:
            answer = _post(f"http://127.0.0.1:{port}/v1/completions", body, timeout=600)
        except urllib.error.HTTPError as refusal:
            result["error"] = f"/v1/completions answered {refusal.code}: {refusal.read().decode(errors='replace')}"
            return result
        result["logprobs"] = picked_logprobs(answer["choices"][0]["prompt_logprobs"], tokens)
        return result
    finally:
        if server.poll() is None:
            os.killpg(server.pid, signal.SIGTERM)
            try:
                server.wait(timeout=60)
            except subprocess.TimeoutExpired:
                os.killpg(server.pid, signal.SIGKILL)
                server.wait()
