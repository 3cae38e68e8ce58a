"""Read a Hugging Face ``config.json`` into a :class:`~posenc_core.models.presets.ModelPreset`.

Families name the same things differently: ``hidden_size``/``n_embd``/``d_model``, ``num_attention_heads``/
``n_head``/``num_heads``, the RoPE base as ``rope_theta``/``rotary_emb_base`` (v5: ``rope_parameters``), the
partial rotation as ``partial_rotary_factor``/``rotary_pct``/``rotary_dim``. :func:`from_hf_config` reads what
the position maths needs and says, in plain sentences, what it could not read or chose to ignore.

This is the one module that reads a config (``presets`` holds the published ones and does not import it).
Keys are looked up through ``_hf_reader.Reader``; the RoPE block is read by ``_hf_rope``, which checks the
scaling keys as ``rope.scaling_keys`` describes them.

Ref: HF transformers ``models/*/configuration_*.py``; ``modeling_rope_utils.py`` (``rope_config_validation``,
v5 ``standardize_rope_params``: ``"type"`` -> ``"rope_type"``; Phi-3's top-level original length wins).
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from posenc_core._checks import check_float, check_int
from posenc_core.models._hf_layers import family, layer_fields
from posenc_core.models._hf_reader import MAX_NAME, Reader, check_key
from posenc_core.models._hf_rope import THETA_KEYS, rope_block, rope_fields
from posenc_core.models.presets import ModelPreset
from posenc_core.schemes import scheme_for_model_type

_HIDDEN = ("hidden_size", "n_embd", "d_model", "n_embed")
_HEADS = ("num_attention_heads", "n_head", "n_heads", "num_heads")
_KV_HEADS = ("num_key_value_heads", "num_kv_heads", "n_kv_heads")
_MAX_POSITIONS = ("max_position_embeddings", "n_positions", "max_seq_len", "seq_length")
MAX_CONFIG_BYTES = 1_000_000  # a real config.json is a few KB; a larger text is refused before it is parsed
MAX_NESTING = 64  # a real config nests 3 or 4 levels; Python's json parser recurses once per level
MAX_DIGITS = 4000  # digits of a whole number in the text (Python's int() refuses over 4300 in its own words)
_TOO_DEEP = f"config is nested too deeply (a config.json nests a few levels; at most {MAX_NESTING})"


@dataclass
class ConfigReading:
    """What :func:`from_hf_config` made of a config: the preset, the keys it read, and what it did not."""

    preset: ModelPreset
    read: dict[str, Any] = field(default_factory=dict)  # config key (dotted if nested) -> value, for display
    unread: list[str] = field(default_factory=list)  # sentences: ignored keys, unknown types, derived values
    config: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)  # the config.json as read


def from_hf_config(config: Mapping[str, Any] | str | bytes) -> ConfigReading:
    """Read a ``config.json`` (a mapping, or its JSON text) into a :class:`ConfigReading`.

    Raises ``ValueError`` (naming the key and what is allowed) for text over ``MAX_CONFIG_BYTES`` or nested
    deeper than ``MAX_NESTING``, text that is not JSON, JSON that is not an object, a missing hidden size or head
    count, or a value of the wrong type or out of its range (``_hf_reader.LIMITS``); nothing else escapes.
    Unknown extra keys are ignored silently.
    """
    top = _load(config)
    r = Reader(top)
    model_type = check_key("model_type", top["model_type"]) if top.get("model_type") is not None else ""
    hidden = r.integer(*_HIDDEN, what="hidden size")
    heads = r.integer(*_HEADS, what="number of attention heads")
    attn = check_key("attn_config", top.get("attn_config") or {})
    kv_heads = r.integer(*_KV_HEADS)
    if kv_heads is None and attn.get("kv_n_heads") is not None:
        kv_heads = check_int("attn_config.kv_n_heads", check_key("attn_config.kv_n_heads", attn["kv_n_heads"]))
    fields: dict[str, Any] = {
        "name": _name(top),
        "hidden_size": hidden,
        "n_heads": heads,
        "n_kv_heads": kv_heads,
        "head_dim": _head_dim(r, hidden, heads),
        "max_position_embeddings": r.integer(*_MAX_POSITIONS),
    }
    rope_label, rope_dict = rope_block(r)
    fields["scheme"] = scheme = _scheme(r, top, attn, model_type, rope_dict)
    fields["source"] = f"uploaded config.json ({fields['name']})"
    if scheme in ("rope", "mrope"):
        fields.update(rope_fields(r, rope_label, rope_dict, fields["head_dim"], model_type))
        fields.update(layer_fields(r, top, model_type))
        if fields["max_position_embeddings"] is None and family(model_type) == "gemma3":
            fields["max_position_embeddings"] = r.default("max_position_embeddings", 131072)
    elif scheme == "alibi":
        label, bias_max = r.get("alibi_bias_max")
        if attn.get("alibi_bias_max") is not None:
            label = "attn_config.alibi_bias_max"
            bias_max = check_key(label, attn["alibi_bias_max"])
            r.read[label] = bias_max
        if label is not None:
            fields["alibi_bias_max"] = check_float(label, bias_max, greater_than=0.0)
    elif scheme == "t5":
        fields["t5_num_buckets"] = r.integer("relative_attention_num_buckets") or r.default(
            "relative_attention_num_buckets", 32
        )
        fields["t5_max_distance"] = r.integer("relative_attention_max_distance") or r.default(
            "relative_attention_max_distance", 128
        )
    _note_ignored(r, top, modelled=fields.get("n_layers") is not None)
    preset = ModelPreset(**fields, notes=tuple(r.notes))
    return ConfigReading(preset=preset, read=r.read, unread=r.unread, config=dict(top))


def read_config_file(path: str | os.PathLike) -> bytes:
    """The bytes of a config.json file, read only once it is known to be a regular file of at most
    ``MAX_CONFIG_BYTES`` (a 3 GB file is refused by its size, unread; a directory, FIFO or device is no file)."""
    shown = os.fspath(path)
    try:
        status = os.stat(path)
    except OSError as error:
        raise ValueError(f"config file {shown!r} cannot be read: {error.strerror}") from None
    if not stat.S_ISREG(status.st_mode):
        kind = (
            "a directory"
            if stat.S_ISDIR(status.st_mode)
            else "a FIFO"
            if stat.S_ISFIFO(status.st_mode)
            else ("a device" if stat.S_ISCHR(status.st_mode) or stat.S_ISBLK(status.st_mode) else "a special file")
        )
        raise ValueError(f"config file {shown!r} is {kind}, not a config.json file")
    _check_size(status.st_size)
    with open(path, "rb") as handle:
        data = handle.read(MAX_CONFIG_BYTES + 1)  # a file that grew since: still bounded
    _check_size(len(data))
    return data


def _load(config: Any) -> Mapping[str, Any]:
    """The config as a mapping: text is checked for size and nesting before ``json.loads`` sees it."""
    if isinstance(config, bytes | bytearray):
        _check_size(len(config))
        try:
            config = bytes(config).decode("utf-8-sig")
        except UnicodeDecodeError as error:
            raise ValueError(f"config is not UTF-8 text ({error.reason} at byte {error.start})") from None
    if isinstance(config, str):
        _check_size(len(config) if config.isascii() else len(config.encode("utf-8", "surrogatepass")))
        config = config.removeprefix("\ufeff")  # a byte-order mark, as read from bytes by utf-8-sig: pasted alike
        try:
            config = json.loads(config, parse_int=_whole_number)
        except json.JSONDecodeError as error:
            raise ValueError(
                f"config is not valid JSON: {error.msg} (line {error.lineno}, column {error.colno})"
            ) from None
        except RecursionError:  # json's parser recurses once per level: about 1000 levels reach Python's limit
            raise ValueError(_TOO_DEEP) from None
        _check_nesting(config)
    if not isinstance(config, Mapping):
        raise ValueError(f"config must be a JSON object {{...}} (got {type(config).__name__})")
    _check_unicode(config)
    return config


def _check_unicode(config: Mapping[str, Any]) -> None:
    """Refuse text that is not Unicode: JSON may write an unpaired surrogate (``"\\ud800"``), which no UTF-8 text
    can hold, so a name made of it would break every page that shows it. The key is named."""
    stack: list[tuple[Any, str]] = [(config, "")]
    while stack:
        node, path = stack.pop()
        items = node.items() if isinstance(node, Mapping) else enumerate(node) if isinstance(node, list) else ()
        for key, child in items:
            where = f"{path}.{key}" if path and isinstance(key, str) else f"{path}[{key}]" if path else str(key)
            for text in (key, child):
                if isinstance(text, str) and not _is_unicode(text):
                    raise ValueError(
                        f"config key {where!a} holds text that is not Unicode (an unpaired surrogate: "
                        f"{ascii(text)[:42]})"
                    )
            if isinstance(child, Mapping | list):
                stack.append((child, where))


def _is_unicode(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _check_size(size: int) -> None:
    if size > MAX_CONFIG_BYTES:
        raise ValueError(
            f"config is larger than {MAX_CONFIG_BYTES / 1e6:g} MB ({size / 1e6:.1f} MB): a config.json is a few KB, "
            "so this is not one"
        )


def _check_nesting(value: Any) -> None:
    """Refuse a parsed config nested deeper than MAX_NESTING (walked with a stack, not recursion), so nothing that
    later walks it (a display, a copy) recurses a thousand levels."""
    stack = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        children = node.values() if isinstance(node, dict) else node if isinstance(node, list) else ()
        for child in children:
            if isinstance(child, dict | list):
                if depth + 1 > MAX_NESTING:
                    raise ValueError(_TOO_DEEP)
                stack.append((child, depth + 1))


def _whole_number(digits: str) -> int:
    """A JSON integer; hundreds of digits (a hostile 10**400) are refused while parsing, by their count."""
    count = len(digits.lstrip("-"))
    if count > MAX_DIGITS:
        raise ValueError(f"config holds a whole number with {count} digits; no config.json value has over {MAX_DIGITS}")
    return int(digits)


def _name(top: Mapping[str, Any]) -> str:
    path, architectures = top.get("_name_or_path"), top.get("architectures")
    if isinstance(path, str) and path.strip().strip("./"):
        return path.strip()[:MAX_NAME]
    if isinstance(architectures, list) and architectures and isinstance(architectures[0], str):
        return architectures[0][:MAX_NAME]
    model_type = top.get("model_type")
    return model_type if isinstance(model_type, str) and model_type else "uploaded config"


def _head_dim(r: Reader, hidden: int, heads: int) -> int:
    """head_dim / d_kv when given; DeepSeek: qk_nope_head_dim + qk_rope_head_dim; else hidden // heads."""
    label, head_dim = r.get("head_dim", "d_kv")
    nope, rope = r.integer("qk_nope_head_dim"), r.integer("qk_rope_head_dim")
    if nope and rope:
        if head_dim is not None and head_dim != nope + rope:
            r.unread.append(
                f"{label} {head_dim} is not the q/k head dim here: using qk_nope_head_dim + "
                f"qk_rope_head_dim = {nope} + {rope} = {nope + rope}"
            )
        return nope + rope
    if label is not None:
        return check_int(label, head_dim, minimum=1)
    r.unread.append(f"no head_dim: derived {hidden}/{heads} = {hidden // heads}")
    if hidden % heads:
        r.unread.append(f"hidden size {hidden} is not a multiple of {heads} heads: head_dim rounded down")
    return hidden // heads


def _scheme(r: Reader, top: Mapping[str, Any], attn: Mapping[str, Any], model_type: str, block: Any) -> str:
    """The scheme: what the config's own keys say first, then the scheme registered for its model_type
    (posenc_core.schemes), else RoPE (said when nothing in the config points to it)."""
    if r.get("relative_attention_num_buckets")[0]:
        return "t5"
    if "alibi" in attn:
        r.read["attn_config.alibi"] = check_key("attn_config.alibi", attn["alibi"])
        if attn["alibi"]:
            if top.get("learned_pos_emb"):
                r.unread.append(
                    "learned_pos_emb true is not modelled: attn_config.alibi is true (HF's MptModel "
                    "has no position table)"
                )
            return "alibi"
        return "learned" if top.get("learned_pos_emb", True) else "rope"
    if r.get("alibi")[1] is True:
        r.unread.append(
            "Falcon-style alibi is added before the 1/sqrt(d) scaling (a model quirk): the bias "
            "shown is the reference, unscaled one"
        )
        return "alibi"
    if isinstance(block, Mapping) and block.get("mrope_section") is not None:
        return "mrope"
    if top.get("position_embedding_type") == "absolute":
        return "learned"
    registered = scheme_for_model_type(model_type)
    if registered is not None:
        return registered
    if block is None and r.get(*THETA_KEYS, "rotary_pct", "rotary_dim", "partial_rotary_factor")[0] is None:
        r.unread.append(f"no position-encoding keys found (model_type {model_type!r}): assuming RoPE")
    return "rope"


def _note_ignored(r: Reader, top: Mapping[str, Any], *, modelled: bool = False) -> None:
    """Keys that change attention but not the position encoding shown here (``modelled``: the layer pattern,
    its window and local base were read)."""
    label, window = r.get("sliding_window")
    if isinstance(window, int) and not isinstance(window, bool) and not modelled:
        if r.get("use_sliding_window")[1] is False:
            r.unread.append(f"{label} {window} is unused (use_sliding_window false)")
        else:
            r.unread.append(f"{label} {window} is not modelled (it limits attention, not positions)")
    for key, why in (
        ("query_pre_attn_scalar", "logits are scaled by its inverse square root"),
        ("attn_logit_softcapping", "attention logits are soft-capped"),
        ("rope_local_base_freq", "sliding layers' RoPE base; the global rope_theta is used"),
    ):
        if modelled and key == "rope_local_base_freq":
            continue
        label, value = r.get(key)
        if label is not None:
            r.unread.append(f"{label} {value} is not modelled ({why})")
    if isinstance(top.get("vision_config"), Mapping):
        r.unread.append("vision_config is not read: only the language model's positions are modelled")
