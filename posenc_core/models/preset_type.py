"""The type of a model preset: :class:`ModelPreset`, one model's positional-encoding parameters.

Presets (``posenc_core.models.presets``) and configs read by ``posenc_core.models.hf_config`` are both ModelPresets.
Hybrid
models describe their layers here too: Llama 4 leaves every 4th layer without RoPE (``rope_layers``) and scales
those layers' queries up at long range (``nope_floor_scale``, ``nope_attn_scale``); Gemma 3 gives its sliding-window
layers another RoPE base (``local_rope_theta``) than its full-attention ones (``layer_types``).

Ref: HF transformers ``configuration_llama4.py`` (``no_rope_layers``, ``floor_scale``, ``attn_scale``),
``configuration_gemma3.py`` (``layer_types``, ``rope_local_base_freq``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from posenc_core._checks import check_choice, check_float, check_int
from posenc_core.schemes import SCHEMES

ROPE_LAYOUTS = ("half", "interleaved")  # rotate_half (GPT-NeoX, HF) | pairs (2i, 2i+1) (GPT-J, DeepSeek)
LAYER_TYPES = ("full_attention", "sliding_attention", "chunked_attention")  # HF config ``layer_types`` values


@dataclass(frozen=True)
class ModelPreset:
    """One model's positional-encoding parameters. Do not mutate ``rope_scaling``: it is shared."""

    name: str  # display name, e.g. "Llama-3.1-8B"
    scheme: str  # a key of posenc_core.schemes.SCHEMES
    source: str  # where the numbers come from (model repo config.json, revision notes)
    hidden_size: int
    n_heads: int
    n_kv_heads: int | None = None  # None -> n_heads (multi-head attention)
    head_dim: int | None = None  # attention (q/k) head dim; None -> hidden_size // n_heads
    max_position_embeddings: int | None = None  # None where the config has none (BLOOM)
    rope_theta: float | None = None  # RoPE base
    partial_rotary_factor: float = 1.0  # rotary dim = int(rope_head_dim * factor)
    rope_head_dim: int | None = None  # dim RoPE acts on before the factor (DeepSeek: 64); None -> head_dim
    rope_scaling: Mapping[str, Any] | None = None  # normalized HF rope_scaling dict (has "rope_type")
    rope_layout: str = "half"  # "half" (rotate_half) | "interleaved"
    mrope_section: tuple[int, ...] | None = None  # Qwen2-VL (T, H, W) frequency counts, sum = rotary_dim/2
    alibi_bias_max: float | None = None  # MPT's knob; None = the reference slopes (max 8)
    t5_num_buckets: int | None = None
    t5_max_distance: int | None = None
    n_layers: int | None = None  # decoder layers; set where layers differ in their positions
    layer_types: tuple[str, ...] | None = None  # per layer, one of LAYER_TYPES (HF ``layer_types``)
    rope_layers: tuple[bool, ...] | None = None  # per layer: RoPE (True) or NoPE (False); None = RoPE everywhere
    local_rope_theta: float | None = None  # RoPE base of sliding_attention layers (Gemma 3); None = rope_theta
    sliding_window: int | None = None  # tokens a sliding_attention layer sees (chunk size for chunked_attention)
    nope_floor_scale: int | None = None  # Llama 4's NoPE-layer temperature (posenc_core.encodings.nope); None = none
    nope_attn_scale: float | None = None
    notes: tuple[str, ...] = ()

    def __post_init__(self):
        check_choice("scheme", self.scheme, SCHEMES)
        check_choice("rope_layout", self.rope_layout, ROPE_LAYOUTS)
        check_int("hidden_size", self.hidden_size, minimum=1)
        check_int("n_heads", self.n_heads, minimum=1)
        if self.n_kv_heads is None:
            object.__setattr__(self, "n_kv_heads", self.n_heads)
        check_int("n_kv_heads", self.n_kv_heads, minimum=1)
        if self.head_dim is None:
            object.__setattr__(self, "head_dim", self.hidden_size // self.n_heads)
        check_int("head_dim", self.head_dim, minimum=1)
        if self.max_position_embeddings is not None:
            check_int("max_position_embeddings", self.max_position_embeddings, minimum=1)
        check_float("partial_rotary_factor", self.partial_rotary_factor, greater_than=0.0, maximum=1.0)
        if self.scheme in ("rope", "mrope"):
            check_float("rope_theta", self.rope_theta, greater_than=1.0)
            if self.rope_head_dim is None:
                object.__setattr__(self, "rope_head_dim", self.head_dim)
            check_int("rope_head_dim", self.rope_head_dim, minimum=2)
        if self.rope_scaling is not None and "rope_type" not in self.rope_scaling:
            raise ValueError(f"rope_scaling must carry 'rope_type' (got keys {sorted(self.rope_scaling)})")
        if self.alibi_bias_max is not None:
            check_float("alibi_bias_max", self.alibi_bias_max, greater_than=0.0)
        self._check_layers()

    def _check_layers(self) -> None:
        if self.n_layers is not None:
            check_int("n_layers", self.n_layers, minimum=1)
        for name in ("layer_types", "rope_layers"):
            values = getattr(self, name)
            if values is None:
                continue
            if self.n_layers is None or len(values) != self.n_layers:
                raise ValueError(f"{name} must have one entry per layer (n_layers={self.n_layers}, got {len(values)})")
            allowed = LAYER_TYPES if name == "layer_types" else (True, False)
            for value in values:
                if value not in allowed or (name == "rope_layers" and not isinstance(value, bool)):
                    raise ValueError(f"{name} must hold {' or '.join(map(repr, allowed))} (got {value!r})")
        if self.local_rope_theta is not None:
            check_float("local_rope_theta", self.local_rope_theta, greater_than=1.0)
        if self.sliding_window is not None:
            check_int("sliding_window", self.sliding_window, minimum=1)
        if (self.nope_floor_scale is None) != (self.nope_attn_scale is None):
            raise ValueError("nope_floor_scale and nope_attn_scale must be given together (or neither)")
        if self.nope_floor_scale is not None:
            check_int("nope_floor_scale", self.nope_floor_scale, minimum=1)
            check_float("nope_attn_scale", self.nope_attn_scale, minimum=0.0)

    def layer_rope_bases(self) -> list[float | None]:
        """The RoPE base of each layer: ``local_rope_theta`` on sliding_attention layers when set (Gemma 3),
        None on NoPE layers (Llama 4), else ``rope_theta``. Empty when ``n_layers`` is unknown."""
        if self.n_layers is None or self.scheme not in ("rope", "mrope"):
            return []
        types = self.layer_types or ("full_attention",) * self.n_layers
        uses_rope = self.rope_layers or (True,) * self.n_layers
        local = self.local_rope_theta if self.local_rope_theta is not None else self.rope_theta
        return [
            (local if kind == "sliding_attention" else self.rope_theta) if rope else None
            for kind, rope in zip(types, uses_rope, strict=True)
        ]

    @property
    def rotary_dim(self) -> int | None:
        """Channels RoPE rotates: int(rope_head_dim * partial_rotary_factor) (HF); None without RoPE."""
        if self.scheme not in ("rope", "mrope"):
            return None
        return int(self.rope_head_dim * self.partial_rotary_factor)

    @property
    def original_max_position_embeddings(self) -> int | None:
        """Pre-training context L: the scaling block's ``original_max_position_embeddings``, else the max."""
        if self.rope_scaling and self.rope_scaling.get("original_max_position_embeddings"):
            return int(self.rope_scaling["original_max_position_embeddings"])
        return self.max_position_embeddings

    @property
    def context_length(self) -> int | None:
        """Longest supported context: max_position_embeddings, or L * factor when a scaling block reaches
        further (Qwen2.5 + YaRN: 32768 * 4 = 131072 while its max stays 32768)."""
        scaling = self.rope_scaling or {}
        extended = 0
        if scaling.get("factor") and scaling.get("original_max_position_embeddings"):
            extended = int(scaling["original_max_position_embeddings"] * scaling["factor"])
        longest = max(self.max_position_embeddings or 0, extended)
        return longest or None
