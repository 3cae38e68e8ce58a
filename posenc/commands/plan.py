"""``posenc plan``: the settings that take a RoPE model to a longer context, the traps flagged, the blocks to paste.

    posenc plan llama-3.1-8b --target 262144                      # a preset, YaRN (the default method)
    posenc plan meta-llama/Llama-3.1-8B --target 262144 --method llama3 --runtime vllm
    posenc plan path/to/config.json --target 65536 --method base --json

MODEL is a preset key or name (``posenc_core.models.presets``), else a config.json (or a folder holding one),
else a Hugging Face model id, read as ``posenc config`` reads it; the blocks are written for that config.json's
own shape (a preset's: the config.json its numbers come from). The plan is
:func:`posenc_core.plan.plan_extension`'s; :mod:`posenc.commands.plan_report` writes it. Bad input (an unknown model, a
target outside (L, 2^24], a model without RoPE, LongRoPE without the model's lists, or work past the plan's
bounds: a rotary dim over 1024, pairs × target over 2^30, a base over 1e12, YaRN betas outside [0.001, 10000]) is
one line on stderr and exit status 2, as argparse's own errors are.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from typing import Any

from posenc.commands.config import read
from posenc.commands.plan_report import as_dict, as_text
from posenc_core.models.preset_type import ModelPreset
from posenc_core.models.presets import PRESETS, get_preset
from posenc_core.plan import MAX_TARGET, PLAN_METHODS, RUNTIMES, plan_extension

_HUB_ID = re.compile(r"[A-Za-z0-9][\w.-]*/[A-Za-z0-9][\w.-]*")  # the org/name a preset's source starts with


def main(argv: list[str] | None = None) -> int:
    """Run ``posenc plan`` on ``argv`` (``sys.argv[1:]`` when None); 0 on success, 2 on bad input."""
    parser = argparse.ArgumentParser(
        prog="posenc plan",
        description="Plan a RoPE context extension: the settings for a target length, checked, ready to paste.",
        epilog="Model ids are fetched with huggingface_hub: HF_ENDPOINT, HF_TOKEN and HF_HOME apply.",
    )
    parser.add_argument("model", metavar="MODEL", help="a preset (llama-3.1-8b), a config.json or a model id")
    parser.add_argument("--target", type=int, required=True, help=f"target context T in tokens (at most {MAX_TARGET})")
    parser.add_argument("--method", choices=tuple(PLAN_METHODS), default="yarn", help="how to extend (default yarn)")
    parser.add_argument("--runtime", choices=tuple(RUNTIMES), help="the runtime to serve with (default: all of them)")
    parser.add_argument("--factor", type=float, help="scaling factor s (default T / L)")
    parser.add_argument("--original", type=int, help="pre-training context L (default: from the model's config)")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of text")
    args = parser.parse_args(argv)
    try:
        model, model_id, config = resolve(args.model)
        plan = plan_extension(
            model,
            args.target,
            args.method,
            model_id=model_id,
            factor=args.factor,
            original=args.original,
            runtime=args.runtime,
            config=config,
        )
    except (ValueError, OSError, OverflowError) as error:
        print(f"posenc plan: {_one_line(str(error))}", file=sys.stderr)
        return 2
    print(json.dumps(as_dict(plan), indent=2, ensure_ascii=False) if args.json else as_text(plan))
    return 0


def resolve(model: str) -> tuple[ModelPreset, str, dict[str, Any] | None]:
    """The model, the id its serving flags name and its config.json (None for a preset, whose shape the plan
    knows): a preset and the Hub id its source starts with (else its name); a config.json and its folder when the
    file is a model folder's config.json (else the model's name); a model id and that id's repo."""
    try:
        preset = get_preset(model)
    except ValueError:
        pass
    else:
        found = _HUB_ID.match(preset.source or "")
        return preset, found.group(0) if found else preset.name, None
    path = Path(model).expanduser()
    try:
        reading = read(model)
    except ValueError as error:
        if path.exists() or "/" in model or model.endswith(".json"):
            raise
        raise ValueError(f"{model!r} is not a preset ({', '.join(PRESETS)}), and {error}") from error
    config = reading.config or None
    if path.is_dir() or path.name == "config.json":
        return reading.preset, str(path if path.is_dir() else path.parent), config
    return reading.preset, reading.preset.name, config  # a Hub reading is named by its repo id


def _one_line(message: str) -> str:
    return " ".join(message.split())


if __name__ == "__main__":
    sys.exit(main())
