"""posenc_core.rope.scaling_keys: the one typed list of RoPE-scaling keys, checked against the registry of
variants, against what ``rope.scaling.inv_freq`` does with each key, and against the installed HF transformers.

What is compared with transformers (v5 ``RotaryEmbeddingConfigMixin``):
- its ``_validate_<type>_rope_parameters`` hands ``_check_received_keys`` a ``required_keys`` and an
  ``optional_keys`` set (``_check_received_keys`` itself adds ``partial_rotary_factor`` to the optional ones);
  they are recorded by calling each validator on a complete dict with ``_check_received_keys`` wrapped.
  Our required keys must be among theirs; their required keys we do not require must be ones our ``inv_freq``
  takes as an argument (``rope_theta``: the ``base``); our required ∪ optional must equal their allowed keys
  (required ∪ optional ∪ {partial_rotary_factor}) minus "rope_type" / "type". A type without a validator
  (our ``ntk``, removed from HF) is skipped with that reason.
- every optional key with a constant default: HF's ``ROPE_INIT_FUNCTIONS[type]`` with the key left out gives the
  same (inv_freq, attention_factor) as ours with the default passed explicitly, so the default is HF's fallback.
"""

from __future__ import annotations

import copy
import dataclasses
import math

import pytest
import torch

from posenc_core.rope.scaling import ROPE_SCALING_FUNCTIONS, inv_freq
from posenc_core.rope.scaling_keys import (
    ALL_SCALING_KEYS,
    KINDS,
    ROPE_TYPE_KEYS,
    SCALING_KEYS,
    ScalingKey,
    key,
    keys_of,
)

HEAD_DIM, BASE = 128, 10000.0
PAIRS = HEAD_DIM // 2
COMPLETE = {  # every required key of each type, and nothing else (longrope also needs factor: see below)
    "default": {},
    "linear": {"factor": 4.0},
    "ntk": {"factor": 4.0},
    "dynamic": {"factor": 4.0},
    "yarn": {"factor": 4.0, "original_max_position_embeddings": 4096},
    "longrope": {
        "short_factor": [1.0 + 0.01 * i for i in range(PAIRS)],
        "long_factor": [1.0 + 0.5 * i for i in range(PAIRS)],
        "original_max_position_embeddings": 4096,
        "factor": 32.0,  # optional (HF: max_position_embeddings / original), but nothing to derive it from here
    },
    "llama3": {
        "factor": 8.0,
        "original_max_position_embeddings": 8192,
        "low_freq_factor": 1.0,
        "high_freq_factor": 4.0,
    },
}
MAX_POSITIONS = {"dynamic": 16384}  # dynamic NTK needs max_position_embeddings (an argument, not a key)
WITH_DEFAULTS = [
    (rope_type, scaling_key.name, scaling_key.default)
    for rope_type, keys in ROPE_TYPE_KEYS.items()
    for scaling_key in keys.optional
    if scaling_key.default is not None
]


def ours(rope_type: str, scaling: dict, *, max_position_embeddings: int | None = None, device=None):
    return inv_freq(
        HEAD_DIM,
        BASE,
        {"rope_type": rope_type, **scaling},
        max_position_embeddings=max_position_embeddings or MAX_POSITIONS.get(rope_type),
        device=device,
    )


# --- the registry ----------------------------------------------------------------------------------------------


def test_the_registry_covers_exactly_the_scaling_functions():
    assert list(ROPE_TYPE_KEYS) == list(ROPE_SCALING_FUNCTIONS)
    assert all(keys.rope_type == rope_type for rope_type, keys in ROPE_TYPE_KEYS.items())
    assert set(COMPLETE) == set(ROPE_TYPE_KEYS)  # input sanity: the tests below see every type


def test_all_scaling_keys_is_the_ordered_union_without_rope_type():
    union = [name for rope_type in ROPE_TYPE_KEYS for name in keys_of(rope_type)]
    assert set(ALL_SCALING_KEYS) == set(union) == set(SCALING_KEYS)
    assert len(ALL_SCALING_KEYS) == len(set(ALL_SCALING_KEYS)) and "rope_type" not in ALL_SCALING_KEYS
    assert list(ALL_SCALING_KEYS) == [name for name in SCALING_KEYS if name in union]


@pytest.mark.parametrize("rope_type", list(ROPE_TYPE_KEYS))
def test_keys_of_lists_required_then_optional_once_each(rope_type):
    keys = ROPE_TYPE_KEYS[rope_type]
    names = keys_of(rope_type)
    assert names == tuple(k.name for k in keys.required) + tuple(k.name for k in keys.optional)
    assert len(names) == len(set(names)) and "rope_type" not in names
    assert all(key(name) is SCALING_KEYS[name] for name in names)
    assert {"rope_theta", "partial_rotary_factor"} <= set(names)  # v5 rope_parameters may carry them for every type
    assert keys.summary and "\n" not in keys.summary


@pytest.mark.parametrize("name", list(SCALING_KEYS))
def test_each_key_is_typed_described_and_its_default_passes_its_own_check(name):
    scaling_key = key(name)
    assert isinstance(scaling_key, ScalingKey) and scaling_key.name == name and scaling_key.kind in KINDS
    meaning = scaling_key.meaning
    assert meaning and "\n" not in meaning and ". " not in meaning and not meaning.endswith(".")  # one sentence
    if scaling_key.default is not None:
        assert scaling_key.check(scaling_key.default) == scaling_key.default
    with pytest.raises(dataclasses.FrozenInstanceError):
        scaling_key.default = 0  # type: ignore[misc]


@pytest.mark.parametrize(
    ("name", "value", "expected"),
    [
        ("factor", 2, 2.0),
        ("original_max_position_embeddings", 4096.0, 4096),
        ("truncate", False, False),
        ("long_factor", (1, 2.5), [1.0, 2.5]),
        ("mscale", 0, 0.0),  # DeepSeek: 0 means "not set", so it is allowed
    ],
)
def test_check_accepts_and_converts(name, value, expected):
    got = key(name).check(value)
    assert got == expected and type(got) is type(expected)


@pytest.mark.parametrize(
    ("name", "value", "message"),
    [
        ("factor", 0.0, r"rope_scaling\.factor must be a finite number > 0"),
        ("factor", "2", r"rope_scaling\.factor must be a finite number"),
        ("factor", True, r"rope_scaling\.factor must be a finite number"),
        ("mscale", -0.1, r"rope_scaling\.mscale must be a finite number >= 0"),
        ("rope_theta", 1.0, r"rope_scaling\.rope_theta must be a finite number > 1"),
        ("partial_rotary_factor", 1.5, r"rope_scaling\.partial_rotary_factor must be a finite number > 0 and <= 1"),
        ("original_max_position_embeddings", 0, r"rope_scaling\.original_max_position_embeddings must be an integer"),
        ("original_max_position_embeddings", 1.5, r"rope_scaling\.original_max_position_embeddings must be"),
        ("truncate", "no", r"rope_scaling\.truncate must be true or false"),
        ("long_factor", [], r"rope_scaling\.long_factor must be a non-empty list of numbers"),
        ("long_factor", "1,2", r"rope_scaling\.long_factor must be a non-empty list of numbers"),
        ("long_factor", [1.0, "x"], r"rope_scaling\.long_factor must be a non-empty list of numbers"),
        ("short_factor", [1.0, 0.0], r"rope_scaling\.short_factor\[1\] must be a finite number > 0"),
        ("short_factor", [1.0, math.nan], r"rope_scaling\.short_factor\[1\] must be a finite number"),
    ],
)
def test_check_rejects_naming_the_label(name, value, message):
    with pytest.raises(ValueError, match=message):
        key(name).check(value, f"rope_scaling.{name}")


@pytest.mark.parametrize(("call", "name"), [(lambda: key("factr"), "name"), (lambda: keys_of("su"), "rope_type")])
def test_unknown_names_raise_naming_the_argument(call, name):
    with pytest.raises(ValueError, match=f"{name} must be one of"):
        call()


# --- what inv_freq does with each key ----------------------------------------------------------------------------


@pytest.mark.parametrize("rope_type", list(ROPE_TYPE_KEYS))
def test_every_required_key_is_needed(device, rope_type):
    """Without max_position_embeddings (HF's source for the fallbacks of original_max_position_embeddings and,
    v5 yarn/longrope, of factor), removing a required key raises a ValueError naming it."""
    inv, _ = ours(rope_type, COMPLETE[rope_type], device=device)  # input sanity: the complete dict works
    assert inv.shape == (PAIRS,)
    for scaling_key in ROPE_TYPE_KEYS[rope_type].required:
        scaling = {k: v for k, v in COMPLETE[rope_type].items() if k != scaling_key.name}
        with pytest.raises(ValueError, match=scaling_key.name):
            ours(rope_type, scaling, device=device)
        with pytest.raises(ValueError, match=scaling_key.name):  # null counts as absent, as in HF
            ours(rope_type, {**scaling, scaling_key.name: None}, device=device)


@pytest.mark.parametrize("rope_type", ["yarn", "longrope", "llama3"])
def test_the_original_length_falls_back_to_max_position_embeddings(device, rope_type):
    """HF's standardize_rope_params fills original_max_position_embeddings from max_position_embeddings."""
    complete = COMPLETE[rope_type]
    scaling = {k: v for k, v in complete.items() if k != "original_max_position_embeddings"}
    length = complete["original_max_position_embeddings"]
    got = ours(rope_type, scaling, max_position_embeddings=length, device=device)
    expected = ours(rope_type, complete, max_position_embeddings=length, device=device)
    torch.testing.assert_close(got[0], expected[0], rtol=0, atol=0)
    assert got[1] == expected[1]


@pytest.mark.parametrize(("rope_type", "name", "default"), WITH_DEFAULTS)
def test_passing_an_optional_default_changes_nothing(device, rope_type, name, default):
    left_out = ours(rope_type, COMPLETE[rope_type], device=device)
    explicit = ours(rope_type, {**COMPLETE[rope_type], name: default}, device=device)
    torch.testing.assert_close(explicit[0], left_out[0], rtol=0, atol=0)
    assert explicit[1] == left_out[1]


@pytest.mark.parametrize(
    ("rope_type", "name"),
    [(t, k.name) for t, keys in ROPE_TYPE_KEYS.items() for k in keys.required + keys.optional if k.kind == "float"],
)
def test_a_negative_float_key_is_rejected_naming_it(device, rope_type, name):
    with pytest.raises(ValueError, match=name):
        ours(rope_type, {**COMPLETE[rope_type], name: -1.0}, device=device)


# --- against the installed transformers --------------------------------------------------------------------------


@pytest.fixture
def hf():
    """transformers' rope utilities, quiet (HF logs warnings for legal-but-odd values)."""
    transformers = pytest.importorskip("transformers")
    from transformers import modeling_rope_utils

    verbosity = transformers.logging.get_verbosity()
    transformers.logging.set_verbosity_error()
    yield modeling_rope_utils
    transformers.logging.set_verbosity(verbosity)


def hf_config(rope_parameters: dict, max_position_embeddings: int):
    from transformers import LlamaConfig

    return LlamaConfig(
        hidden_size=2 * HEAD_DIM,
        num_attention_heads=2,
        head_dim=HEAD_DIM,
        max_position_embeddings=max_position_embeddings,
        rope_parameters=copy.deepcopy(rope_parameters),
    )


def hf_key_sets(hf, monkeypatch, rope_type: str) -> tuple[set[str], set[str]]:
    """(required, allowed) keys of HF's validator for ``rope_type``, minus "rope_type" / "type"."""
    mixin = getattr(hf, "RotaryEmbeddingConfigMixin", None)
    validator = getattr(mixin, f"_validate_{rope_type}_rope_parameters", None)
    if validator is None:
        pytest.skip(f"the installed transformers has no _validate_{rope_type}_rope_parameters (HF dropped the type)")
    seen: dict[str, set[str]] = {}
    check = mixin._check_received_keys

    def record(rope_type, received_keys, required_keys, optional_keys=None, ignore_keys=None):
        seen["required"], seen["optional"] = set(required_keys), set(optional_keys or ())
        return check(rope_type, received_keys, required_keys, optional_keys, ignore_keys)

    monkeypatch.setattr(mixin, "_check_received_keys", staticmethod(record))
    parameters = {"rope_type": rope_type, "rope_theta": BASE, **copy.deepcopy(COMPLETE[rope_type])}
    validator(hf_config({"rope_type": "default", "rope_theta": BASE}, 32768), parameters)
    assert seen, f"_validate_{rope_type}_rope_parameters did not call _check_received_keys"
    allowed = seen["required"] | seen["optional"] | {"partial_rotary_factor"}  # _check_received_keys adds it
    return seen["required"] - {"rope_type", "type"}, allowed - {"rope_type", "type"}


@pytest.mark.parametrize("rope_type", list(ROPE_TYPE_KEYS))
def test_the_keys_match_transformers_validators(hf, monkeypatch, rope_type):
    theirs_required, theirs_allowed = hf_key_sets(hf, monkeypatch, rope_type)
    required = {k.name for k in ROPE_TYPE_KEYS[rope_type].required}
    assert required <= theirs_required
    assert theirs_required - required <= {"rope_theta"}  # ours: the base argument, checked against the dict
    assert set(keys_of(rope_type)) == theirs_allowed


@pytest.mark.parametrize(("rope_type", "name", "default"), WITH_DEFAULTS)
def test_each_default_is_transformers_fallback(hf, rope_type, name, default):
    if rope_type not in hf.ROPE_INIT_FUNCTIONS:
        pytest.skip(f"transformers' ROPE_INIT_FUNCTIONS has no {rope_type!r}")
    left_out = {k: v for k, v in COMPLETE[rope_type].items() if k != name}
    parameters = {"rope_type": rope_type, **left_out}
    if name != "rope_theta":
        parameters["rope_theta"] = BASE
    max_positions = 32768
    expected = hf.ROPE_INIT_FUNCTIONS[rope_type](hf_config(parameters, max_positions), "cpu")
    got = ours(rope_type, {**left_out, name: default}, max_position_embeddings=max_positions, device="cpu")
    torch.testing.assert_close(got[0], expected[0], rtol=1e-6, atol=0)
    assert got[1] == pytest.approx(expected[1], rel=1e-6)
