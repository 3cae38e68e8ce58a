"""Run inside the llama.cpp virtual environment: score the prompt with libllama as the planner's ``llama-server``
line configures it, through llama-cpp-python.

``python -m conformance.llamacpp_run SPEC.json OUT.json``; SPEC holds ``block`` (the planner's llama.cpp block),
``gguf`` (the file its ``-m`` names) and ``tokens``. OUT gets ``logprobs`` (element i: log p(tokens[i+1] |
tokens[:i+1])), the arguments passed and llama-cpp-python's version, or ``error``.

What the harness adds to the planner's flags, none of them about RoPE: ``logits_all`` (every position's logits),
``n_batch = n_ubatch = n_ctx`` (the prompt in one batch), a float32 KV cache (``-ctk f32 -ctv f32``: llama-server's
default f16 cache alone moves log-probabilities by about 1e-3, the size of the tolerance) and two threads.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from conformance.llama_flags import ROPE_SCALING_TYPES, llama_arguments, server_command

GGML_TYPE_F32 = 0


def score(spec: dict) -> dict:
    import llama_cpp
    import numpy as np

    expected = {
        "none": llama_cpp.LLAMA_ROPE_SCALING_TYPE_NONE,
        "linear": llama_cpp.LLAMA_ROPE_SCALING_TYPE_LINEAR,
        "yarn": llama_cpp.LLAMA_ROPE_SCALING_TYPE_YARN,
    }
    if expected != ROPE_SCALING_TYPES:
        raise RuntimeError(f"llama.h's rope scaling types changed: {expected} (table: {ROPE_SCALING_TYPES})")
    arguments = llama_arguments(server_command(spec["block"]))
    arguments["model_path"] = spec["gguf"]
    harness = {
        "logits_all": True,
        "n_batch": arguments["n_ctx"],
        "n_ubatch": arguments["n_ctx"],
        "type_k": GGML_TYPE_F32,
        "type_v": GGML_TYPE_F32,
        "n_threads": 2,
        "n_threads_batch": 2,
        "verbose": False,
    }
    tokens = spec["tokens"]
    llm = llama_cpp.Llama(**arguments, **harness)
    llm.eval(tokens)
    logits = np.asarray(llm.scores[: len(tokens)], dtype=np.float64)
    shifted = logits - logits.max(axis=1, keepdims=True)
    logprobs = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
    picked = logprobs[np.arange(len(tokens) - 1), np.asarray(tokens[1:])]
    return {
        "logprobs": picked.tolist(),
        "arguments": {key: value for key, value in arguments.items() if key != "model_path"},
        "version": llama_cpp.__version__,
        "n_ctx": llm.n_ctx(),
    }


def main(argv: list[str]) -> int:
    spec_path, out_path = argv
    spec = json.loads(Path(spec_path).read_text())
    try:
        result = score(spec)
    except Exception as error:  # the runtime's refusal is a result to report, not a crash of the harness
        result = {"error": f"{type(error).__name__}: {error}"}
    Path(out_path).write_text(json.dumps(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
