"""``posenc config``: what posenc reads from a model's ``config.json``, a file or a Hugging Face model id.

    posenc config meta-llama/Llama-3.1-8B          # fetched from the Hub (HF_ENDPOINT, HF_TOKEN), then cached
    posenc config Qwen/Qwen2.5-7B-Instruct@main    # at a revision: a branch, tag or commit
    posenc config path/to/config.json --json       # machine-readable

It prints what :func:`posenc_core.models.hf_config.from_hf_config` (the reader behind the app's "from a config.json"
preset) made of the model: its name, position-encoding scheme, the parameters it set, the RoPE scaling, and
notes on what it derived or could not read. An unreadable model or bad input is one line on stderr, exit status 2;
Ctrl-C exits 130 (the rule of every ``posenc`` command).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from posenc_core.models.hf_config import ConfigReading, from_hf_config, read_config_file

BAD_INPUT = 2  # as argparse's own refusals, and posenc plan, lab and export
INTERRUPTED = 130  # the shell's status for a process stopped by Ctrl-C (128 + SIGINT)
_NOT_PARAMETERS = ("name", "scheme", "source", "rope_scaling", "notes")
_SHOWN_VALUES = 8  # a long per-layer list is shortened to its first values in the text output


def main(argv: list[str] | None = None) -> int:
    """Run ``posenc config`` on ``argv`` (``sys.argv[1:]`` when None); 0 on success, 2 on an unreadable model or
    bad input, 130 when interrupted."""
    parser = argparse.ArgumentParser(
        prog="posenc config",
        description="Show what posenc reads from a model's config.json: a file, or a Hugging Face model id.",
        epilog="Model ids are fetched with huggingface_hub: HF_ENDPOINT, HF_TOKEN and HF_HOME apply.",
    )
    parser.add_argument(
        "model",
        metavar="MODEL_ID_OR_FILE",
        help="a path to a config.json (or to a folder holding one), or a model id such as org/name[@revision]",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of text")
    args = parser.parse_args(argv)
    try:
        reading = read(args.model)
    except (ValueError, OSError) as error:
        print(f"posenc config: {error}", file=sys.stderr)
        return BAD_INPUT
    except KeyboardInterrupt:
        print("posenc config: interrupted", file=sys.stderr)
        return INTERRUPTED
    if args.json:
        print(json.dumps(as_dict(reading), indent=2, ensure_ascii=False))
    else:
        print(as_text(reading))
    return 0


def read(model: str) -> ConfigReading:
    """The reading of a config.json file (or a folder's config.json) if ``model`` names one, else of a model id."""
    path = Path(model).expanduser()
    if path.is_dir() and (path / "config.json").is_file():
        path = path / "config.json"
    if path.exists() and not path.is_dir():  # a file, a FIFO, a device: a path, never sent to the Hub as an id
        reading = from_hf_config(read_config_file(path))
        preset = dataclasses.replace(reading.preset, source=f"{path} ({reading.preset.name})")
        return dataclasses.replace(reading, preset=preset)
    if model.endswith(".json") or path.is_dir():
        raise ValueError(f"{model!r} is not a config.json file (nor a folder holding one)")
    from posenc_core.models.hub import read_model_config  # huggingface_hub is imported only for a model id

    return read_model_config(model)


def as_dict(reading: ConfigReading) -> dict[str, Any]:
    """The reading as plain JSON values: name, scheme, source, parameters, rope_scaling, notes, unread, read."""
    preset = reading.preset
    return {
        "name": preset.name,
        "scheme": preset.scheme,
        "source": preset.source,
        "parameters": {key: plain(value) for key, value in _parameters(reading).items()},
        "rope_scaling": plain(preset.rope_scaling),
        "notes": list(preset.notes),
        "unread": list(reading.unread),
        "read": {key: plain(value) for key, value in reading.read.items()},
    }


def as_text(reading: ConfigReading) -> str:
    """The reading for a terminal: one line per parameter, then the RoPE scaling and the notes."""
    preset = reading.preset
    lines = [preset.name, f"  source: {preset.source}", f"  scheme: {preset.scheme}", "  parameters:"]
    lines += [f"    {key} = {_short(value)}" for key, value in _parameters(reading).items()]
    scaling = dict(preset.rope_scaling or {})
    if scaling:
        kind = scaling.pop("rope_type", "?")
        details = ", ".join(f"{key}={_short(value)}" for key, value in scaling.items())
        lines.append(f"  RoPE scaling: {kind}" + (f" ({details})" if details else ""))
    elif preset.scheme in ("rope", "mrope"):
        lines.append("  RoPE scaling: none")
    if preset.notes:
        lines += ["  notes:", *(f"    ✓ {sentence}" for sentence in preset.notes)]
    if reading.unread:
        lines += ["  not read or derived:", *(f"    • {sentence}" for sentence in reading.unread)]
    return "\n".join(lines)


def _parameters(reading: ConfigReading) -> dict[str, Any]:
    """The preset's fields the config set (None fields and the ones shown apart are left out)."""
    values = {field.name: getattr(reading.preset, field.name) for field in dataclasses.fields(reading.preset)}
    return {key: value for key, value in values.items() if key not in _NOT_PARAMETERS and value is not None}


def plain(value: Any) -> Any:
    """``value`` as plain JSON values: mappings as dicts with string keys, tuples as lists."""
    if isinstance(value, Mapping):
        return {str(key): plain(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [plain(item) for item in value]
    return value


def _short(value: Any) -> str:
    if isinstance(value, list | tuple) and len(value) > _SHOWN_VALUES:
        shown = ", ".join(map(str, value[:_SHOWN_VALUES]))
        return f"[{shown}, ...] ({len(value)} values)"
    return str(list(value) if isinstance(value, tuple) else value)


if __name__ == "__main__":
    sys.exit(main())
