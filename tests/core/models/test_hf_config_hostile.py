"""from_hf_config on hostile config.json text: whatever the file holds, the only way out is a ValueError that says
what is wrong (never a RecursionError, OverflowError or TypeError), and a number no model has is out of range.

The texts are built here, at test time: deep nesting, numbers with hundreds of digits, wrong types in every key the
reader uses, lists of the wrong length, a 20 MB text.
"""

from __future__ import annotations

import json

import pytest

from posenc_core._checks import check_choice, check_float, check_int
from posenc_core.models._hf_reader import LIMITS
from posenc_core.models.hf_config import MAX_CONFIG_BYTES, MAX_NESTING, from_hf_config
from tests.core.hf_config_helpers import LLAMA

YARN = {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 4096}
PHI3 = {
    **LLAMA,
    "hidden_size": 3072,
    "num_attention_heads": 32,
    "max_position_embeddings": 131072,
    "rope_scaling": {"type": "longrope", "short_factor": [1.0] * 48, "long_factor": [2.0] * 48},
    "original_max_position_embeddings": 4096,
}
GEMMA3 = {"model_type": "gemma3_text", "hidden_size": 64, "num_attention_heads": 4, "num_hidden_layers": 6}
LLAMA4 = {"model_type": "llama4_text", "hidden_size": 64, "num_attention_heads": 4, "num_hidden_layers": 4}


def _with(key: str, text: str) -> str:
    """LLAMA as JSON text with ``key`` set to the raw JSON ``text`` (numbers JSON can hold but Python cannot float)."""
    return json.dumps(LLAMA)[:-1] + f', "{key}": {text}}}'


def _scaled(**block) -> dict:
    return {**LLAMA, "max_position_embeddings": 131072, "rope_scaling": {**YARN, **block}}


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("[" * 100_000 + "]" * 100_000, "nested too deeply"),
        ('{"a": ' * 5000 + "1" + "}" * 5000, "nested too deeply"),
        (_with("extra", "[" * (MAX_NESTING + 1) + "]" * (MAX_NESTING + 1)), "nested too deeply"),
        ('{"a": "' + "[" * 5000 + '"}', "no hidden size"),  # brackets inside a string are text, not nesting
    ],
)
def test_deep_nesting_is_refused_with_a_message(text, words):
    with pytest.raises(ValueError, match=words):
        from_hf_config(text)


def test_a_text_over_the_size_limit_is_refused_before_it_is_parsed():
    text = json.dumps({**LLAMA, "padding": "x" * (20 * 1024 * 1024)})  # 20 MB: valid JSON, far over the limit
    with pytest.raises(ValueError, match=r"larger than .* a config.json is a few KB") as error:
        from_hf_config(text)
    assert "MB" in str(error.value) and len(str(error.value)) < 300
    with pytest.raises(ValueError, match="larger than"):
        from_hf_config(text.encode())
    assert len(json.dumps(LLAMA)) < MAX_CONFIG_BYTES


@pytest.mark.parametrize(
    ("text", "words"),
    [
        (_with("max_position_embeddings", "9" * 400), r"max_position_embeddings must be an integer >= 1 and <= "),
        (_with("rope_theta", "9" * 400), r"rope_theta must be a finite number"),
        (_with("rope_theta", "1e400"), r"rope_theta must be a finite number"),
        (_with("rope_theta", "NaN"), r"rope_theta must be a finite number"),
        (_with("max_position_embeddings", "Infinity"), r"max_position_embeddings must be an integer"),
        (_with("num_key_value_heads", "-Infinity"), r"num_key_value_heads must be an integer"),
        (_with("unread_key", "9" * 5000), r"whole number with 5000 digits"),
    ],
)
def test_giant_numbers_and_non_finite_literals_are_messages(text, words):
    with pytest.raises(ValueError, match=words) as error:
        from_hf_config(text)
    assert len(str(error.value)) < 300, "the message does not repeat a 400-digit number"


@pytest.mark.parametrize(
    ("config", "words"),
    [
        ({**LLAMA, "hidden_size": 10**40}, r"hidden_size must be an integer >= 1 and <= [\d,]+ \(got a 41-digit"),
        ({**LLAMA, "num_attention_heads": 10**9}, r"num_attention_heads must be an integer >= 1 and <= "),
        ({**LLAMA, "head_dim": 10**9}, r"head_dim must be an integer >= 1 and <= "),
        ({**GEMMA3, "num_hidden_layers": 10**9}, r"num_hidden_layers must be an integer >= 1 and <= "),
        ({**GEMMA3, "sliding_window": 10**30}, r"sliding_window must be an integer >= 1 and <= "),
        ({**LLAMA, "rope_theta": 1e308}, r"rope_theta must be a finite number > 1 and <= "),
        (_scaled(factor=1e308), r"rope_scaling.factor must be a finite number > 0 and <= "),
        (_scaled(original_max_position_embeddings=10**12), r"original_max_position_embeddings must be .* <= "),
        ({"model_type": "t5", "d_model": 64, "num_heads": 4, "relative_attention_num_buckets": 10**30},
         r"relative_attention_num_buckets must be an integer >= 1 and <= "),
    ],
)  # fmt: skip
def test_numbers_no_model_has_are_out_of_range_with_the_range_said(config, words):
    with pytest.raises(ValueError, match=words):
        from_hf_config(config)


@pytest.mark.parametrize(
    ("config", "words"),
    [
        ({**LLAMA, "rope_scaling": {**YARN, "rope_type": ["yarn"]}}, r"rope_scaling.rope_type must be a name"),
        ({**LLAMA, "rope_scaling": {"type": {"a": 1}, "factor": 2.0}}, r"rope_scaling.type must be a name"),
        ({**LLAMA, "rope_scaling": {"rope_type": "default", "mrope_section": ["a", "b"]}},
         r"rope_scaling.mrope_section\[0\] must be an integer"),
        ({**LLAMA, "rope_scaling": {"rope_type": "default", "mrope_section": [True, 16, 16]}},
         r"rope_scaling.mrope_section\[0\] must be an integer"),
        ({**LLAMA, "rope_scaling": {"rope_type": "default", "mrope_section": [1] * 100}},
         r"rope_scaling.mrope_section must be a list of 1 to \d+ "),
        (_scaled(original_max_position_embeddings="4096"), r"original_max_position_embeddings must be an integer"),
        (_scaled(original_max_position_embeddings=[1]), r"original_max_position_embeddings must be an integer"),
        (_scaled(original_max_position_embeddings=True), r"original_max_position_embeddings must be an integer"),
        (_scaled(factor=True), r"rope_scaling.factor must be a finite number"),
        (_scaled(truncate="no"), r"rope_scaling.truncate must be true or false"),
        ({**PHI3, "rope_scaling": {**PHI3["rope_scaling"], "long_factor": ["1"] * 48}},
         r"rope_scaling.long_factor\[0\] must be a finite number"),
        ({**PHI3, "rope_scaling": {**PHI3["rope_scaling"], "short_factor": "1111"}},
         r"rope_scaling.short_factor must be a list of 1 to [\d,]+ numbers"),
        ({**PHI3, "original_max_position_embeddings": "4096"}, r"original_max_position_embeddings must be an integer"),
        ({**LLAMA, "num_attention_heads": True}, r"num_attention_heads must be an integer"),
        ({**LLAMA, "hidden_size": 4096.5}, r"hidden_size must be an integer"),
        ({**LLAMA, "rope_interleave": [1]}, r"rope_interleave must be true or false"),
        ({**LLAMA, "model_type": ["llama"]}, r"model_type must be a name"),
        ({**LLAMA, "text_config": [1]}, r"text_config must be a JSON object"),
        ({**LLAMA, "rope_parameters": [1]}, r"rope_parameters must be a JSON object"),
        ({**GEMMA3, "layer_types": "full_attention"}, r"layer_types must list one of"),
        ({**GEMMA3, "layer_types": ["full_attention"] * 5}, r"layer_types must list one of"),
        ({**GEMMA3, "rope_local_base_freq": "10000"}, r"rope_local_base_freq must be a finite number"),
        ({**LLAMA4, "no_rope_layers": [1, 1]}, r"no_rope_layers"),
        ({**LLAMA4, "attn_temperature_tuning": True, "attn_scale": [0.1]}, r"attn_scale must be a finite number"),
        ({**LLAMA4, "floor_scale": 1e300}, r"floor_scale must be an integer >= 1 and <= "),
        ({"model_type": "mpt", "d_model": 64, "n_heads": 4, "attn_config": {"alibi": True, "kv_n_heads": "2"}},
         r"attn_config.kv_n_heads must be an integer"),
        ({"model_type": "mpt", "d_model": 64, "n_heads": 4, "attn_config": [1]}, r"attn_config must be a JSON object"),
    ],
)  # fmt: skip
def test_wrong_types_and_wrong_lengths_name_the_key_and_what_is_allowed(config, words):
    with pytest.raises(ValueError, match=words):
        from_hf_config(config)
    with pytest.raises(ValueError, match=words):  # and the same as text
        from_hf_config(json.dumps(config))


@pytest.mark.parametrize(
    ("config", "words"),
    [
        ({**PHI3, "rope_scaling": {**PHI3["rope_scaling"], "long_factor": [2.0] * 47}},
         "rope_scaling.long_factor has 47 factors; rotary dim 96 has 48 pairs"),
        ({**LLAMA, "rope_scaling": {"rope_type": "default", "mrope_section": [1, 2]}},
         r"rope_scaling.mrope_section \[1, 2\] adds up to 3; it must add up to the 64 pairs of rotary dim 128"),
        (_scaled(beta_fast=1.0, beta_slow=1.0), r"rope_scaling.beta_fast \(1\) must be greater than beta_slow \(1\)"),
        (_scaled(beta_slow=40.0), r"rope_scaling.beta_fast \(32\) must be greater than beta_slow \(40\)"),  # HF's 32
        ({**LLAMA, "rope_scaling": {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 4.0,
                                    "high_freq_factor": 4.0, "original_max_position_embeddings": 8192}},
         r"rope_scaling.low_freq_factor \(4\) must be less than high_freq_factor \(4\)"),
    ],
)  # fmt: skip
def test_a_block_the_formulas_cannot_draw_is_refused_with_its_key_named(config, words):
    """Lists of the wrong length, sections of the wrong sum and ramps whose bounds are equal or reversed were
    accepted (the lists as a note) and then broke the figures: they are refused where the config is read."""
    with pytest.raises(ValueError, match=words):
        from_hf_config(config)


def test_a_hostile_value_in_a_message_is_shortened():
    with pytest.raises(ValueError) as error:
        from_hf_config({**PHI3, "rope_scaling": {**PHI3["rope_scaling"], "long_factor": ["x" * 100] * 100_000}})
    assert "long_factor" in str(error.value) and len(str(error.value)) < 300


def test_the_values_of_a_hostile_but_valid_config_are_the_ones_read():
    """Bounds are wide enough for real models: a 10M context (Llama 4 Scout) and a 1e7 base are read."""
    reading = from_hf_config({**LLAMA, "max_position_embeddings": 10_485_760, "rope_theta": 1e7})
    assert reading.preset.max_position_embeddings == 10_485_760
    assert reading.preset.rope_theta == 1e7
    assert reading.preset.context_length == 10_485_760


BAD_VALUES = (True, "4096", ["x"], [1], {"a": 1}, 10**30, -1, 0, 1e308, float("nan"), [[1]], "", [True] * 3)
BASES = {
    "llama": LLAMA,
    "yarn": _scaled(),
    "phi3": PHI3,
    "gemma3": GEMMA3,
    "llama4": LLAMA4,
    "mpt": {"model_type": "mpt", "d_model": 64, "n_heads": 4, "attn_config": {"alibi": True}},
    "t5": {"model_type": "t5", "d_model": 64, "num_heads": 4, "relative_attention_num_buckets": 32},
}
EXTRA_KEYS = ("no_rope_layers", "layer_types", "architectures", "_name_or_path", "position_embedding_type")


def test_every_key_the_reader_uses_with_every_wrong_type_is_read_or_a_value_error():
    """Each key of the reader's LIMITS (and the list keys it checks itself), set to each hostile value, at the top
    level of configs of every family, in the scaling block of YaRN and LongRoPE, in MPT's attn_config: a reading or
    a ValueError with a short message, never another exception."""
    for name, base in BASES.items():
        for key in (*LIMITS, *EXTRA_KEYS):
            for bad in BAD_VALUES:
                configs = [{**base, key: bad}]
                if "rope_scaling" in base:
                    configs.append({**base, "rope_scaling": {**base["rope_scaling"], key: bad}})
                if name == "mpt":
                    configs.append({**base, "attn_config": {**base["attn_config"], key: bad}})
                for config in configs:
                    try:
                        from_hf_config(config)
                    except ValueError as error:
                        assert len(str(error)) < 400, str(error)


def test_shared_checks_shorten_what_they_quote():
    """The core's checks quote a value in their message: a hostile one (100 KB of text, a 2M-item list, a 400-digit
    number) is quoted shortened, so no message grows with its input."""
    for check in (
        lambda value: check_choice("rope_type", value, ("yarn", "linear")),
        lambda value: check_int("seq_len", value, minimum=1, maximum=10),
        lambda value: check_float("base", value, greater_than=1.0, maximum=1e18),
    ):
        for value in ("x" * 100_000, list(range(2_000_000)), 10**400, -(10**400)):
            with pytest.raises(ValueError) as error:
                check(value)
            assert len(str(error.value)) < 200, str(error.value)[:300]


@pytest.mark.parametrize(
    ("text", "key"),
    [
        (_with("_name_or_path", '"\\ud800"'), "'_name_or_path'"),
        (_with("model_type", '"llama\\udfff"'), "'model_type'"),
        (_with("architectures", '["\\ud800ForCausalLM"]'), "'architectures[0]'"),
        (_with("rope_scaling", '{"\\ud800": 1}'), r"'rope_scaling.\ud800'"),
    ],
)
def test_an_unpaired_surrogate_anywhere_is_refused_with_its_key_named(text, key):
    """JSON may escape a lone surrogate; no UTF-8 page can show it, so the config is refused before a name is made
    of it (it used to break every page of the session from the sidebar)."""
    with pytest.raises(ValueError, match=r"holds text that is not Unicode") as refused:
        from_hf_config(text)
    assert str(refused.value).startswith(f"config key {key} ") and str(refused.value).encode("utf-8")
    with pytest.raises(ValueError, match="not Unicode"):
        from_hf_config(json.loads(text))  # a mapping (the notebook API) is checked alike


def test_a_byte_order_mark_is_read_alike_from_text_and_from_bytes():
    text = "\ufeff" + json.dumps(LLAMA)
    from_text, from_bytes = from_hf_config(text), from_hf_config(text.encode("utf-8"))
    assert from_text.preset == from_bytes.preset == from_hf_config(json.dumps(LLAMA)).preset
