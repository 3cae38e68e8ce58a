"""posenc_core.schemes: the one registry of schemes that presets, the config reader and the tables read."""

import pytest

from posenc_core import schemes
from posenc_core.models.hf_config import from_hf_config
from posenc_core.schemes import FACT_COLUMNS, SCHEMES, Scheme, register_scheme


def _scheme(key: str, model_types=()) -> Scheme:
    return Scheme(key, key.title(), "no", "no", "no", "input", "nobody", frozenset(model_types))


@pytest.fixture
def empty_registry(monkeypatch):
    monkeypatch.setattr(schemes, "SCHEMES", {})
    return schemes.SCHEMES


def test_the_known_schemes_are_registered_in_the_lesson_order():
    known = ["sinusoidal", "learned", "shaw", "t5", "alibi", "rope", "mrope", "nope"]
    assert [key for key in SCHEMES if key in known] == known


def test_each_row_of_the_table_has_every_column_and_names_its_scheme():
    rows = schemes.facts_table()
    assert [row["scheme"] for row in rows] == [s.name for s in SCHEMES.values()]
    for row in rows:
        assert list(row) == list(FACT_COLUMNS.values())
        assert all(isinstance(value, str) and value for value in row.values())


def test_the_table_has_a_row_for_leaving_position_out():
    """NoPE is a scheme of its own (a layer in four of Llama 4 and SmolLM3): the table says what leaving position out
    does, next to the schemes that put it in."""
    (row,) = [row for row in schemes.facts_table() if row["scheme"].startswith("NoPE")]
    assert row["trainable"].startswith("no") and "causal mask" in row["where it acts"]
    assert "Llama 4" in row["used by"]


@pytest.mark.parametrize(
    ("model_type", "key"),
    [("llama", "rope"), ("bloom", "alibi"), ("t5", "t5"), ("gpt2", "learned"), ("marian", "sinusoidal")],
)
def test_a_model_type_maps_to_the_scheme_that_claims_it(model_type, key):
    assert schemes.scheme_for_model_type(model_type) == key


def test_an_unknown_model_type_maps_to_nothing():
    assert schemes.scheme_for_model_type("no-such-model") is None


def test_a_registered_scheme_is_found_and_a_new_one_is_picked_up(empty_registry):
    register_scheme(_scheme("toy", {"toy_model"}))
    assert schemes.get_scheme("toy").name == "Toy"
    assert schemes.scheme_for_model_type("toy_model") == "toy"
    assert [row["scheme"] for row in schemes.facts_table()] == ["Toy"]


def test_a_key_registered_twice_is_refused(empty_registry):
    register_scheme(_scheme("toy"))
    with pytest.raises(ValueError, match="'toy' is registered twice"):
        register_scheme(_scheme("toy"))


def test_a_model_type_claimed_by_two_schemes_is_refused(empty_registry):
    register_scheme(_scheme("one", {"shared_model"}))
    with pytest.raises(ValueError, match="shared_model"):
        register_scheme(_scheme("two", {"shared_model"}))


def test_an_unknown_key_names_the_argument_and_the_choices():
    with pytest.raises(ValueError, match="scheme") as error:
        schemes.get_scheme("wavelet")
    assert "rope" in str(error.value)


def test_the_config_reader_takes_the_scheme_registered_for_a_model_type():
    config = {"model_type": "toy_model", "hidden_size": 64, "num_attention_heads": 4, "max_position_embeddings": 128}
    assert from_hf_config(config).preset.scheme == "rope"  # unknown model type: RoPE, and it says so
    register_scheme(_scheme("toy", {"toy_model"}))
    try:
        assert from_hf_config(config).preset.scheme == "toy"
    finally:
        SCHEMES.pop("toy")
