"""Real models' positional-encoding parameters, as their published ``config.json`` files give them.

A preset holds what the position maths needs (heads, head dims, RoPE base, scaling block, ALiBi or T5
knobs), not the whole architecture. ``rope_scaling`` is the HF dict normalized to carry ``"rope_type"``
(``"type"`` renamed, ``"su"`` -> ``"longrope"``, ``"mrope"`` -> ``"default"``; Phi-3's top-level
``original_max_position_embeddings`` moved inside, as HF v5 does). Reading an uploaded config is
:mod:`posenc_core.models.hf_config`'s job (``from_hf_config``): it imports this module, never the other way round.
The preset type, with the per-layer fields of hybrid models (Llama 4, Gemma 3), is in
:mod:`posenc_core.models.preset_type` and re-exported here.

Ref: each preset's ``source``; HF transformers ``modeling_rope_utils.py`` for the scaling dicts.
"""

from __future__ import annotations

import copy
from typing import Any

from posenc_core._checks import check_int
from posenc_core.encodings.nope import llama4_rope_layers
from posenc_core.models.preset_type import ROPE_LAYOUTS, ModelPreset

__all__ = ["PRESETS", "ROPE_LAYOUTS", "ModelPreset", "get_preset", "layer_rope_inputs", "preset_names", "rope_inputs"]


def _floats(text: str) -> list[float]:
    """Whitespace-separated numbers, parsed exactly as written in the config file."""
    return [float(word) for word in text.split()]


# microsoft/Phi-3-mini-128k-instruct config.json, April 2024 revision ("type": "su", transformers 4.39.3),
# verbatim from the copy in dotnet/machinelearning src/Microsoft.ML.GenAI.Phi/Resource/Config/.
PHI3_MINI_128K_LONG_FACTOR = _floats("""
1.0299999713897705 1.0499999523162842 1.0499999523162842 1.0799999237060547 1.2299998998641968
1.2299998998641968 1.2999999523162842 1.4499999284744263 1.5999999046325684 1.6499998569488525
1.8999998569488525 2.859999895095825 3.68999981880188 5.419999599456787 5.489999771118164
5.489999771118164 9.09000015258789 11.579999923706055 15.65999984741211 15.769999504089355
15.789999961853027 18.360000610351562 21.989999771118164 23.079999923706055 30.009998321533203
32.35000228881836 32.590003967285156 35.56000518798828 39.95000457763672 53.840003967285156
56.20000457763672 57.95000457763672 59.29000473022461 59.77000427246094 59.920005798339844
61.190006256103516 61.96000671386719 62.50000762939453 63.3700065612793 63.48000717163086
63.48000717163086 63.66000747680664 63.850006103515625 64.08000946044922 64.760009765625
64.80001068115234 64.81001281738281 64.81001281738281
""")
PHI3_MINI_128K_SHORT_FACTOR = _floats("""
1.05 1.05 1.05 1.1 1.1
1.1500000000000001 1.2000000000000002 1.2500000000000002 1.3000000000000003 1.3500000000000003
1.5000000000000004 2.000000000000001 2.000000000000001 2.000000000000001 2.000000000000001
2.000000000000001 2.000000000000001 2.000000000000001 2.000000000000001 2.000000000000001
2.000000000000001 2.000000000000001 2.000000000000001 2.000000000000001 2.000000000000001
2.000000000000001 2.000000000000001 2.000000000000001 2.000000000000001 2.000000000000001
2.000000000000001 2.000000000000001 2.0500000000000007 2.0500000000000007 2.0500000000000007
2.1000000000000005 2.1000000000000005 2.1000000000000005 2.1500000000000004 2.1500000000000004
2.3499999999999996 2.549999999999999 2.5999999999999988 2.5999999999999988 2.7499999999999982
2.849999999999998 2.849999999999998 2.9499999999999975
""")

_HF = "config.json on the Hugging Face hub"
_LLAMA3 = {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0}
_DEEPSEEK_YARN = {"rope_type": "yarn", "factor": 40, "beta_fast": 32, "beta_slow": 1}
_QWEN25 = dict(hidden_size=3584, n_heads=28, n_kv_heads=4, head_dim=128, rope_theta=1000000.0)
_SCOUT_ROPE = tuple(llama4_rope_layers(48))  # HF default (interval 4) = the config's no_rope_layers list
_GEMMA3_TYPES = tuple("full_attention" if (i + 1) % 6 == 0 else "sliding_attention" for i in range(62))

# fmt: off
PRESETS: dict[str, ModelPreset] = {  # keys are URL-safe slugs
    "llama-2-7b": ModelPreset(
        name="Llama-2-7B", scheme="rope",
        source=f"meta-llama/Llama-2-7b-hf {_HF} (it has no rope_theta key: HF default 10000)",
        hidden_size=4096, n_heads=32, n_kv_heads=32, head_dim=128,
        max_position_embeddings=4096, rope_theta=1e4,
    ),
    "llama-3-8b": ModelPreset(
        name="Llama-3-8B", scheme="rope", source=f"meta-llama/Meta-Llama-3-8B(-Instruct) {_HF}",
        hidden_size=4096, n_heads=32, n_kv_heads=8, head_dim=128,
        max_position_embeddings=8192, rope_theta=5e5,
    ),
    "llama-3.1-8b": ModelPreset(
        name="Llama-3.1-8B", scheme="rope", source=f"meta-llama/Llama-3.1-8B {_HF}",
        hidden_size=4096, n_heads=32, n_kv_heads=8, head_dim=128,
        max_position_embeddings=131072, rope_theta=5e5,
        rope_scaling={**_LLAMA3, "original_max_position_embeddings": 8192},
    ),
    "mistral-7b": ModelPreset(
        name="Mistral-7B", scheme="rope",
        source=f"mistralai/Mistral-7B-v0.1 {_HF} (numbers from the spec table; no stored copy was checked)",
        hidden_size=4096, n_heads=32, n_kv_heads=8, head_dim=128,
        max_position_embeddings=32768, rope_theta=1e4,
        notes=("sliding_window 4096 limits attention, not positions: not modelled",),
    ),
    "qwen2.5-7b": ModelPreset(
        name="Qwen2.5-7B (32k)", scheme="rope",
        source=f"Qwen/Qwen2.5-7B-Instruct {_HF} (the base Qwen2.5-7B config says max 131072)",
        max_position_embeddings=32768, **_QWEN25,
        notes=("sliding_window 131072 is off (use_sliding_window false)",),
    ),
    "qwen2.5-7b-128k-yarn": ModelPreset(
        name="Qwen2.5-7B (128k YaRN)", scheme="rope",
        source=f"Qwen/Qwen2.5-7B-Instruct {_HF} plus the model card's 128k block "
        "{type: yarn, factor: 4.0, original_max_position_embeddings: 32768}",
        max_position_embeddings=32768, **_QWEN25,
        rope_scaling={"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 32768},
    ),
    "gemma-2-9b": ModelPreset(
        name="Gemma-2-9B", scheme="rope", source=f"google/gemma-2-9b-it {_HF}",
        hidden_size=3584, n_heads=16, n_kv_heads=8, head_dim=256,
        max_position_embeddings=8192, rope_theta=1e4,
        notes=("head_dim 256 is given: not 3584/16 = 224",
               "query_pre_attn_scalar 256: logits scaled by 256^-0.5",
               "every other layer has a 4096-token sliding window; logit soft-capping 50 / 30"),
    ),
    "phi-3-mini-128k": ModelPreset(
        name="Phi-3-mini-128k", scheme="rope",
        source="microsoft/Phi-3-mini-128k-instruct config.json, April 2024 revision (type 'su', transformers "
        "4.39.3); later revisions say 'longrope' and carry other factor lists",
        hidden_size=3072, n_heads=32, n_kv_heads=32, head_dim=96,
        max_position_embeddings=131072, rope_theta=1e4,
        rope_scaling={"rope_type": "longrope", "long_factor": PHI3_MINI_128K_LONG_FACTOR,
                      "short_factor": PHI3_MINI_128K_SHORT_FACTOR, "original_max_position_embeddings": 4096},
        notes=("original_max_position_embeddings 4096 is a top-level key in Phi-3 configs",),
    ),
    "phi-2": ModelPreset(
        name="Phi-2", scheme="rope", source=f"microsoft/phi-2 {_HF}",
        hidden_size=2560, n_heads=32, n_kv_heads=32, head_dim=80,
        max_position_embeddings=2048, rope_theta=1e4,
        partial_rotary_factor=0.4,
    ),
    "deepseek-v3": ModelPreset(
        name="DeepSeek-V3", scheme="rope", source=f"deepseek-ai/DeepSeek-V3 {_HF} (DeepSeek-R1 has the same)",
        hidden_size=7168, n_heads=128, n_kv_heads=128, head_dim=192, max_position_embeddings=163840,
        rope_theta=1e4, rope_head_dim=64, rope_layout="interleaved",
        rope_scaling={**_DEEPSEEK_YARN, "mscale": 1.0, "mscale_all_dim": 1.0,
                      "original_max_position_embeddings": 4096},
        notes=("q/k head = 128 (no position) + 64 (RoPE); v head 128",
               "softmax scale 192^-0.5 * mscale(40, 1.0)^2 = 0.1352338"),
    ),
    "deepseek-v2-lite": ModelPreset(
        name="DeepSeek-V2-Lite", scheme="rope", source=f"deepseek-ai/DeepSeek-V2-Lite {_HF}",
        hidden_size=2048, n_heads=16, n_kv_heads=16, head_dim=192, max_position_embeddings=163840,
        rope_theta=1e4, rope_head_dim=64, rope_layout="interleaved",
        rope_scaling={**_DEEPSEEK_YARN, "mscale": 0.707, "mscale_all_dim": 0.707,
                      "original_max_position_embeddings": 4096},
        notes=("q/k head = 128 (no position) + 64 (RoPE)", "softmax scale 192^-0.5 * mscale(40, 0.707)^2"),
    ),
    "gpt-neox-20b": ModelPreset(
        name="GPT-NeoX-20B", scheme="rope",
        source=f"EleutherAI/gpt-neox-20b {_HF} (rotary_pct, rotary_emb_base)",
        hidden_size=6144, n_heads=64, n_kv_heads=64, head_dim=96,
        max_position_embeddings=2048, rope_theta=1e4,
        partial_rotary_factor=0.25,
    ),
    "gpt-j-6b": ModelPreset(
        name="GPT-J-6B", scheme="rope",
        source=f"EleutherAI/gpt-j-6b {_HF} (rotary_dim 64, n_positions; the model code fixes base 10000)",
        hidden_size=4096, n_heads=16, n_kv_heads=16, head_dim=256,
        max_position_embeddings=2048, rope_theta=1e4,
        partial_rotary_factor=0.25, rope_layout="interleaved",
    ),
    "bloom-176b": ModelPreset(
        name="BLOOM-176B", scheme="alibi",
        source=f"bigscience/bloom {_HF} (n_head 112; it sets no position limit)",
        hidden_size=14336, n_heads=112, n_kv_heads=112, head_dim=128,
        notes=("ALiBi added unscaled (baddbmm beta=1, alpha=1/sqrt(d))",),
    ),
    "mpt-7b": ModelPreset(
        name="MPT-7B", scheme="alibi",
        source=f"mosaicml/mpt-7b(-instruct) {_HF} (attn_config.alibi, alibi_bias_max, max_seq_len)",
        hidden_size=4096, n_heads=32, n_kv_heads=32, head_dim=128, max_position_embeddings=2048,
        alibi_bias_max=8.0,
    ),
    "t5-base": ModelPreset(
        name="T5-base", scheme="t5",
        source=f"t5-base {_HF} (relative_attention_max_distance is absent there: HF default 128)",
        hidden_size=768, n_heads=12, n_kv_heads=12, head_dim=64, max_position_embeddings=512,
        t5_num_buckets=32, t5_max_distance=128,
        notes=("n_positions 512 is the training length; buckets extrapolate", "no 1/sqrt(d) scaling in T5"),
    ),
    "qwen2-vl-7b": ModelPreset(
        name="Qwen2-VL-7B", scheme="mrope",
        source=f"Qwen/Qwen2-VL-7B-Instruct {_HF} (rope_scaling type 'mrope', which HF rewrites to 'default')",
        max_position_embeddings=32768, **_QWEN25,
        rope_scaling={"rope_type": "default", "mrope_section": [16, 24, 24]}, mrope_section=(16, 24, 24),
    ),
    "llama-4-scout": ModelPreset(
        name="Llama-4-Scout-17B-16E", scheme="rope",
        source=f"meta-llama/Llama-4-Scout-17B-16E {_HF}, text_config (transformers 4.51.0)",
        hidden_size=5120, n_heads=40, n_kv_heads=8, head_dim=128, max_position_embeddings=262144,
        rope_theta=5e5, rope_layout="interleaved",
        rope_scaling={**_LLAMA3, "original_max_position_embeddings": 8192},
        n_layers=48, rope_layers=_SCOUT_ROPE, sliding_window=8192,
        layer_types=tuple("chunked_attention" if rope else "full_attention" for rope in _SCOUT_ROPE),
        nope_floor_scale=8192, nope_attn_scale=0.1,
        notes=("every 4th layer has no RoPE (no_rope_layers 0) and sees the whole context; the RoPE layers "
               "attend within 8192-token chunks",
               "NoPE layers scale the query by log(floor((p+1)/8192)+1)*0.1+1 (attn_temperature_tuning)",
               "the -Instruct config says llama3 factor 16 with low = high freq factor 1 and max 10485760"),
    ),
    "gemma-3-27b": ModelPreset(
        name="Gemma-3-27B", scheme="rope",
        source=f"google/gemma-3-27b-it {_HF}, text_config; Gemma3TextConfig defaults where it is silent",
        hidden_size=5376, n_heads=32, n_kv_heads=16, head_dim=128, max_position_embeddings=131072,
        rope_theta=1e6, rope_scaling={"rope_type": "linear", "factor": 8.0},
        n_layers=62, layer_types=_GEMMA3_TYPES, local_rope_theta=1e4, sliding_window=1024,
        notes=("5 sliding-window layers (1024 tokens, RoPE base 10000, no scaling) to 1 global layer "
               "(base 1000000, linear factor 8)", "query_pre_attn_scalar 168: logits scaled by 168^-0.5"),
    ),
}
# fmt: on


def preset_names() -> list[str]:
    """Display names of the presets, in table order."""
    return [preset.name for preset in PRESETS.values()]


def get_preset(key_or_name: str) -> ModelPreset:
    """The preset with this slug key ("llama-3.1-8b") or display name ("Llama-3.1-8B"), case-insensitive."""
    wanted = str(key_or_name).strip().lower()
    for key, preset in PRESETS.items():
        if wanted in (key, preset.name.lower()):
            return preset
    valid = ", ".join(f"{key!r} ({preset.name})" for key, preset in PRESETS.items())
    raise ValueError(f"preset must be one of {valid} (got {key_or_name!r})")


def rope_inputs(preset: ModelPreset, *, seq_len: int | None = None) -> dict[str, Any]:
    """Keyword arguments for ``posenc_core.rope.scaling.inv_freq`` that reproduce this model's RoPE.

    ``scaling`` is None for plain RoPE (and M-RoPE, whose frequencies are the default ones); ``seq_len``
    selects LongRoPE's long factors / dynamic NTK's base past the original length.
    """
    if preset.scheme not in ("rope", "mrope"):
        raise ValueError(f"preset {preset.name!r} uses {preset.scheme}, not RoPE: it has no rope inputs")
    if seq_len is not None:
        seq_len = check_int("seq_len", seq_len, minimum=1)
    scaling = {k: copy.deepcopy(v) for k, v in (preset.rope_scaling or {}).items() if k != "mrope_section"}
    if scaling.get("rope_type", "default") == "default" and len(scaling) <= 1:
        scaling = None
    return {
        "head_dim": preset.rope_head_dim,
        "base": preset.rope_theta,
        "scaling": scaling,
        "partial_rotary_factor": preset.partial_rotary_factor,
        "max_position_embeddings": preset.max_position_embeddings,
        "seq_len": seq_len,
    }


def layer_rope_inputs(preset: ModelPreset, layer: int, *, seq_len: int | None = None) -> dict[str, Any]:
    """:func:`rope_inputs` for one layer of a hybrid model: a sliding_attention layer of a model with a
    ``local_rope_theta`` (Gemma 3) turns at that base with no scaling (HF puts ``rope_scaling`` on the
    full-attention layers only); a NoPE layer (Llama 4) has none (ValueError); any other layer is the model's.
    """
    inputs = rope_inputs(preset, seq_len=seq_len)
    if preset.n_layers is None:
        raise ValueError(f"preset {preset.name!r} does not describe its layers (no n_layers)")
    layer = check_int("layer", layer, minimum=0, maximum=preset.n_layers - 1)
    base = preset.layer_rope_bases()[layer]
    if base is None:
        raise ValueError(f"layer {layer} of {preset.name} has no RoPE (a NoPE layer)")
    kind = preset.layer_types[layer] if preset.layer_types else "full_attention"
    if kind == "sliding_attention" and preset.local_rope_theta is not None:
        inputs.update(base=base, scaling=None)
    return inputs
