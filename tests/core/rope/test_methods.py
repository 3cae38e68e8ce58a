import math

import pytest

from posenc_core.rope import methods as rope_methods
from posenc_core.rope import scaling as rope_scaling
from posenc_core.rope.scaling_keys import ROPE_TYPE_KEYS

SETTINGS = [
    {"head_dim": 128, "base": 10000.0, "factor": 8.0, "original_max_position_embeddings": 4096},
    {"head_dim": 96, "base": 10000.0, "factor": 32.0, "original_max_position_embeddings": 4096},
    {"head_dim": 128, "base": 1e6, "factor": 4.0, "original_max_position_embeddings": 32768},
    {
        "head_dim": 64,
        "base": 500000.0,
        "factor": 2.5,
        "original_max_position_embeddings": 8192,
        "partial_rotary_factor": 0.5,
    },
]


def test_every_registered_rope_type_has_one_row_in_registry_order():
    rows = rope_methods.methods_table()
    assert [row["rope_type"] for row in rows] == list(rope_scaling.ROPE_SCALING_FUNCTIONS)
    assert all(tuple(row) == rope_methods.COLUMNS for row in rows)
    assert all(all(value.strip() for value in row.values()) for row in rows)


@pytest.mark.parametrize("setting", SETTINGS)
def test_the_attention_factor_column_agrees_with_each_types_function(setting):
    s, length = setting["factor"], setting["original_max_position_embeddings"]
    rotary_dim = int(setting["head_dim"] * setting.get("partial_rotary_factor", 1.0))
    for row in rope_methods.methods_table(**setting):
        rope_type = row["rope_type"]
        scaling = rope_methods.example_scaling(
            rope_type, rotary_dim=rotary_dim, factor=s, original_max_position_embeddings=length
        )
        _, returned = rope_scaling.ROPE_SCALING_FUNCTIONS[rope_type](
            rotary_dim, setting["base"], scaling, seq_len=math.ceil(s * length), max_position_embeddings=length
        )
        shown = row["attention factor"]
        if shown == "1":
            assert returned == 1.0, rope_type
        else:
            assert float(shown.rsplit("= ", 1)[1]) == pytest.approx(returned, rel=1e-3), rope_type
            assert returned > 1.0


@pytest.mark.parametrize("setting", SETTINGS)
def test_the_attention_factors_follow_the_papers_formulas(setting):
    s, length = setting["factor"], setting["original_max_position_embeddings"]
    rows = {row["rope_type"]: row["attention factor"] for row in rope_methods.methods_table(**setting)}
    assert rows["yarn"] == f"0.1·ln(s) + 1 = {0.1 * math.log(s) + 1:.4g}"  # Peng et al. 2023, sqrt(1/t)
    assert rows["longrope"] == f"√(1 + ln(s) / ln(L)) = {math.sqrt(1 + math.log(s) / math.log(length)):.4g}"


def test_longropes_factor_does_not_depend_on_its_per_pair_lists():
    scaling = rope_methods.example_scaling("longrope", rotary_dim=8, factor=8.0, original_max_position_embeddings=4096)
    other = scaling | {"short_factor": [1.0, 2.0, 3.0, 4.0], "long_factor": [5.0, 9.0, 17.0, 33.0]}
    kwargs = {"seq_len": 32768, "max_position_embeddings": 4096}
    assert (
        rope_scaling.longrope_rope(8, 1e4, scaling, **kwargs)[1]
        == rope_scaling.longrope_rope(8, 1e4, other, **kwargs)[1]
    )


def test_the_facts_sit_next_to_each_types_keys_and_a_type_without_them_is_refused(monkeypatch):
    assert set(ROPE_TYPE_KEYS) == set(rope_scaling.ROPE_SCALING_FUNCTIONS)
    assert ROPE_TYPE_KEYS["yarn"].facts.method == "YaRN" and "Llama 3.1" in ROPE_TYPE_KEYS["llama3"].facts.used_by
    monkeypatch.setitem(rope_scaling.ROPE_SCALING_FUNCTIONS, "toy", rope_scaling.default_rope)
    with pytest.raises(ValueError, match="toy"):
        rope_methods.methods_table()


@pytest.mark.parametrize(
    ("kwargs", "argument"),
    [({"head_dim": 1}, "head_dim"), ({"factor": 0}, "factor"), ({"original_max_position_embeddings": 0}, "original")],
)
def test_bad_arguments_name_the_argument(kwargs, argument):
    with pytest.raises(ValueError, match=argument):
        rope_methods.methods_table(**kwargs)
    with pytest.raises(ValueError, match="rope_type"):
        rope_methods.attention_factor_of("spiral")
