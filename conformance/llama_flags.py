"""The planner's ``llama-server`` flags, read the way llama.cpp reads them, as llama-cpp-python's ``Llama(...)``
arguments.

llama-cpp-python builds the same ``libllama`` as ``llama-server`` but takes keyword arguments instead of a command
line, so this module mirrors, flag by flag, what llama.cpp's ``common/arg.cpp`` does with each flag the planner
may print (llama.cpp as vendored in llama-cpp-python 0.3.36), and refuses every other flag rather than guess:

- ``-m/--model FNAME``: the model path.
- ``-c/--ctx-size N``: ``n_ctx = N``.
- ``--rope-scaling {none,linear,yarn}``: ``rope_scaling_type`` (llama.h's enum: none 0, linear 1, yarn 2; any
  other value is "invalid value").
- ``--rope-scale N``: ``rope_freq_scale = 1 / N``; ``--rope-freq-scale N``: ``rope_freq_scale = N``.
- ``--rope-freq-base N``: ``rope_freq_base = N``.
- ``--yarn-orig-ctx N``, ``--yarn-ext-factor N``, ``--yarn-attn-factor N``, ``--yarn-beta-slow N``,
  ``--yarn-beta-fast N``: the field of the same name.

A flag not given keeps llama-server's default, ``common/common.h``'s ``common_params`` (which are not
llama-cpp-python's own defaults: it passes yarn_attn_factor 1, beta_fast 32, beta_slow 1 where the server passes
-1, "take the model's"): :data:`SERVER_DEFAULTS`.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable
from typing import Any

ROPE_SCALING_TYPES = {"none": 0, "linear": 1, "yarn": 2}
"""llama.h's ``llama_rope_scaling_type`` for the values ``--rope-scaling`` accepts (unspecified is -1)."""

SERVER_DEFAULTS: dict[str, Any] = {
    "n_ctx": 0,
    "rope_scaling_type": -1,
    "rope_freq_base": 0.0,
    "rope_freq_scale": 0.0,
    "yarn_ext_factor": -1.0,
    "yarn_attn_factor": -1.0,
    "yarn_beta_fast": -1.0,
    "yarn_beta_slow": -1.0,
    "yarn_orig_ctx": 0,
}
"""``common_params``' RoPE fields before any flag: 0 and -1 mean "what the GGUF file says"."""


def _scaling_type(value: str) -> int:
    if value not in ROPE_SCALING_TYPES:
        raise ValueError(f"--rope-scaling takes one of {sorted(ROPE_SCALING_TYPES)} (got {value!r})")
    return ROPE_SCALING_TYPES[value]


def _inverse(value: str) -> float:
    return 1.0 / float(value)


_FLAGS: dict[str, tuple[str, Callable[[str], Any]]] = {
    "-m": ("model_path", str),
    "--model": ("model_path", str),
    "-c": ("n_ctx", int),
    "--ctx-size": ("n_ctx", int),
    "--rope-scaling": ("rope_scaling_type", _scaling_type),
    "--rope-scale": ("rope_freq_scale", _inverse),
    "--rope-freq-scale": ("rope_freq_scale", float),
    "--rope-freq-base": ("rope_freq_base", float),
    "--yarn-orig-ctx": ("yarn_orig_ctx", int),
    "--yarn-ext-factor": ("yarn_ext_factor", float),
    "--yarn-attn-factor": ("yarn_attn_factor", float),
    "--yarn-beta-slow": ("yarn_beta_slow", float),
    "--yarn-beta-fast": ("yarn_beta_fast", float),
}
"""Each flag the planner may print: the ``Llama(...)`` argument it sets and how arg.cpp converts its value."""


def server_command(block: str) -> list[str]:
    """The ``llama-server`` command line of a paste block, split as a shell would (comment lines dropped).
    ValueError when the block holds no line, or more than one, that starts with ``llama-server``."""
    lines = [line for line in block.splitlines() if line.strip() and not line.lstrip().startswith("#")]
    commands = [shlex.split(line) for line in lines]
    if len(commands) != 1 or commands[0][0] != "llama-server":
        raise ValueError(f"block must hold exactly one llama-server command line (got {lines!r})")
    return commands[0]


def llama_arguments(argv: list[str]) -> dict[str, Any]:
    """``Llama(...)`` keyword arguments for a ``llama-server`` command line (``argv[0]`` is the program):
    :data:`SERVER_DEFAULTS` updated flag by flag. ValueError for a flag this table does not know, a flag without
    its value, or a value arg.cpp would refuse."""
    if not argv or argv[0] != "llama-server":
        raise ValueError(f"argv must start with llama-server (got {argv[:1]!r})")
    arguments = dict(SERVER_DEFAULTS)
    rest = argv[1:]
    while rest:
        flag, *rest = rest
        if flag not in _FLAGS:
            raise ValueError(f"flag {flag!r} is not in the conformance table (known: {sorted(_FLAGS)})")
        if not rest:
            raise ValueError(f"flag {flag!r} needs a value")
        value, *rest = rest
        name, convert = _FLAGS[flag]
        arguments[name] = convert(value)
    if "model_path" not in arguments:
        raise ValueError("argv must name the model with -m")
    return arguments
