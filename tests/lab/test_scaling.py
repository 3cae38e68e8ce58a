"""RoPE scaling for a lab model: the dict is what the config reader makes of the config.json it writes, every
rope_type the core knows runs on a model and changes nothing inside the trained length where it should not, a
block is read back as the config reader reads it, LongRoPE's searched factors must be given, and bad values name the
key."""

from __future__ import annotations

import math

import pytest
import torch

from posenc_core.rope import scaling as core_scaling
from posenc_lab import scaling
from posenc_lab.evaluate import evaluate
from posenc_lab.model import LabConfig, LabModel

CONFIG = LabConfig(scheme="rope", d_model=32, n_heads=2, n_layers=1, d_ff=32, max_len=16)
SEARCHED = [1.0, 1.2, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0]  # a long_factor as a search finds one: 8 pairs, non-decreasing


def test_every_rope_type_the_core_knows_is_offered():
    assert scaling.SCALING_TYPES[0] == "default" and set(scaling.SCALING_TYPES) == set(
        core_scaling.ROPE_SCALING_FUNCTIONS
    )
    assert scaling.rope_scaling(CONFIG, "default") is None


@pytest.mark.parametrize("rope_type", [kind for kind in scaling.SCALING_TYPES if kind != "default"])
def test_the_dict_names_the_trained_length_and_gives_finite_losses_on_a_model(rope_type):
    keys = {"long_factor": SEARCHED} if rope_type == "longrope" else {}
    made = scaling.rope_scaling(CONFIG, rope_type, 4.0, **keys)
    assert made["rope_type"] == rope_type and made["factor"] == 4.0
    assert made["original_max_position_embeddings"] == CONFIG.max_len
    torch.manual_seed(0)
    model = LabModel(CONFIG)
    model.scheme.scaling = made
    results = evaluate(model, "lm", [8, 64], "sliding", scored_tokens=1024)
    assert all(math.isfinite(result.loss) for result in results)


def test_published_keys_fill_what_a_person_need_not_give():
    llama3 = scaling.rope_scaling(CONFIG, "llama3", 8.0)
    assert (llama3["low_freq_factor"], llama3["high_freq_factor"]) == (1.0, 4.0)
    longrope = scaling.rope_scaling(CONFIG, "longrope", 8.0, long_factor=SEARCHED)
    assert longrope["short_factor"] == [1.0] * (CONFIG.head_dim // 2) and longrope["long_factor"] == SEARCHED
    short = [1.0, 1.0, 1.0, 1.0, 1.1, 1.1, 1.2, 1.2]
    assert (
        scaling.rope_scaling(CONFIG, "longrope", 8.0, long_factor=SEARCHED, short_factor=short)["short_factor"] == short
    )
    assert scaling.rope_scaling(CONFIG, "yarn", 4.0, beta_fast=16.0)["beta_fast"] == 16.0


@pytest.mark.parametrize("keys", [{}, {"long_factor": None}, {"short_factor": [1.0] * 8}])
def test_longrope_without_its_searched_long_factor_is_refused(keys):
    """LongRoPE has no published long_factor: it is searched per model, so none is made up."""
    assert not hasattr(scaling, "longrope_ramp")
    with pytest.raises(ValueError, match="long_factor must be given for longrope"):
        scaling.rope_scaling(CONFIG, "longrope", 4.0, **keys)
    with pytest.raises(ValueError, match="long_factor must be given for longrope"):
        scaling.scaling_block(CONFIG, "longrope", 4.0, **keys)


@pytest.mark.parametrize("rope_type", [kind for kind in scaling.SCALING_TYPES if kind != "default"])
def test_a_read_block_reads_back_as_it_was_made(rope_type):
    keys = {"long_factor": SEARCHED} if rope_type == "longrope" else {}
    made = scaling.rope_scaling(CONFIG, rope_type, 4.0, **keys)
    assert scaling.read_block(CONFIG, scaling.scaling_block(CONFIG, rope_type, 4.0, **keys)) == made
    assert scaling.read_block(CONFIG, dict(made)) == made  # what a checkpoint saves loads back the same
    assert scaling.read_block(CONFIG, None) is None
    assert scaling.read_block(CONFIG, {"rope_type": "default"}) is None and scaling.read_block(CONFIG, {}) is None


@pytest.mark.parametrize(
    ("block", "message"),
    [
        ([("rope_type", "linear")], "rope_scaling must be a dict or None .got list"),
        ("linear", "rope_scaling must be a dict or None .got str"),
        ({"rope_type": "linear", "factor": -1.0}, "rope_scaling.factor must be"),
        ({"rope_type": "xpos", "factor": 2.0}, "rope_scaling.rope_type must be one of default, linear.* .got 'xpos'"),
        ({"factor": 2.0}, "rope_scaling.rope_type must be one of default, linear.* .got None"),
        ({"rope_type": "longrope", "factor": 4.0, "short_factor": [1.0] * 8, "long_factor": [2.0] * 3}, "long_factor"),
    ],
)
def test_a_bad_block_is_refused_naming_what_is_wrong(block, message):
    with pytest.raises(ValueError, match=message):
        scaling.read_block(CONFIG, block)


def test_the_config_json_is_a_llama_of_the_lab_models_size():
    text = scaling.config_json(CONFIG, {"rope_type": "linear", "factor": 2.0})
    assert text["hidden_size"] == 32 and text["num_attention_heads"] == 2 and text["head_dim"] == 16
    assert text["max_position_embeddings"] == 16 and text["rope_scaling"]["factor"] == 2.0


def test_linear_scaling_divides_every_frequency_by_the_factor():
    model = LabModel(CONFIG)
    plain, _ = model.scheme.frequencies(16)
    model.scheme.scaling = scaling.rope_scaling(CONFIG, "linear", 4.0)
    scaled, factor = model.scheme.frequencies(64)
    assert torch.allclose(scaled, plain / 4) and factor == 1.0


def test_dynamic_ntk_is_the_plain_model_inside_the_trained_length():
    torch.manual_seed(1)
    model = LabModel(CONFIG)
    plain = evaluate(model, "lm", [16, 64], "nonoverlapping", scored_tokens=1024)
    model.scheme.scaling = scaling.rope_scaling(CONFIG, "dynamic", 4.0)
    inside, past = evaluate(model, "lm", [16, 64], "nonoverlapping", scored_tokens=1024)
    assert inside == plain[0] and past != plain[1]  # past the trained length the base grows


@pytest.mark.parametrize(
    ("rope_type", "factor", "keys", "message"),
    [
        ("yarn", 0, {}, "rope_scaling.factor must be a finite number > 0"),
        ("linear", -2.0, {}, "rope_scaling.factor must be"),
        ("linear", None, {}, "factor is required"),
        ("yarn", 4.0, {"beta_fast": 0}, "rope_scaling.beta_fast must be"),
        ("longrope", 4.0, {"long_factor": [1.0, 2.0]}, "long_factor"),
        ("longrope", 4.0, {"long_factor": [1.0] * 7 + [-2.0]}, "long_factor"),
        ("xpos", 4.0, {}, "scaling must be one of default, linear"),
    ],
)
def test_bad_values_name_the_key(rope_type, factor, keys, message):
    with pytest.raises(ValueError, match=message):
        scaling.rope_scaling(CONFIG, rope_type, factor, **keys)
