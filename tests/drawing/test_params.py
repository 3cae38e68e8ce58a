import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from posenc import figures  # noqa: F401  (registers every parameter)
from posenc.drawing import registry
from posenc.drawing.params import PARAMS, ParamSpec, coerce_all, defaults, register_param

SEQ_LEN, HEAD_DIM, BASE = PARAMS["seq_len"], PARAMS["head_dim"], PARAMS["base"]


def test_valid_values_pass_unchanged():
    assert SEQ_LEN.coerce("4096") == (4096, None)
    assert BASE.coerce("500000") == (500000.0, None)
    assert HEAD_DIM.coerce(64) == (64, None)
    assert PARAMS["rope_layout"].coerce("interleaved") == ("interleaved", None)


@pytest.mark.parametrize(
    ("spec_name", "raw", "expected", "words"),
    [
        ("seq_len", "99999999", 1_048_576, "outside the allowed range"),
        ("seq_len", "-5", 1, "outside the allowed range"),
        ("seq_len", "abc", 1024, "not a valid whole number"),
        ("seq_len", "12.5", 1024, "not a valid whole number"),
        ("head_dim", "127", 128, "even"),
        ("base", "nan", 10000.0, "not a valid number"),
        ("base", "0.5", 1.0001, "outside the allowed range"),
        ("factor", "1e9", 64.0, "outside"),
        ("rope_layout", "spiral", "half", "outside"),
        ("n_heads", "0", 1, "outside"),
    ],
)
def test_bad_values_become_the_nearest_valid_one_with_a_message(spec_name, raw, expected, words):
    value, message = PARAMS[spec_name].coerce(raw)
    assert value == expected
    assert spec_name in message and words in message


@given(st.integers(-(10**9), 10**9))
def test_coerced_ints_are_always_in_range_and_even_when_required(raw):
    value, _ = HEAD_DIM.coerce(str(raw))
    assert HEAD_DIM.minimum <= value <= HEAD_DIM.maximum and value % 2 == 0


@given(st.floats(allow_nan=True, allow_infinity=True))
def test_coerced_floats_are_always_finite_and_in_range(raw):
    value, _ = BASE.coerce(str(raw))
    assert math.isfinite(value) and BASE.minimum <= value <= BASE.maximum


def test_int_lists_and_bools_round_trip_through_the_url():
    spec = ParamSpec("dims_test", "ints", (0, 1), "dims", 0, 10, max_items=3)
    value, message = spec.coerce("3, 5,5,99")
    assert value == (3, 5, 10) and "outside" in message
    assert spec.to_url(value) == "3,5,10"
    flag = ParamSpec("flag_test", "bool", False, "flag")
    assert flag.coerce("1") == (True, None) and flag.coerce("off") == (False, None)
    assert flag.coerce("maybe")[1] is not None


def test_registry_refuses_a_conflicting_redefinition_and_reports_unknown_names():
    with pytest.raises(ValueError, match="seq_len"):
        register_param(ParamSpec("seq_len", "int", 5, "other", 1, 10))
    values, messages = coerce_all({"seq_len": "2048", "nonsense": "1"})
    assert values == {"seq_len": 2048} and messages == ["unknown parameter 'nonsense'"]
    assert defaults(["seq_len", "base"]) == {"seq_len": 1024, "base": 10000.0}


def test_int_lists_keep_repeats_when_asked():
    sections = ParamSpec("sections_test", "ints", (16, 24, 24), "sections", 1, 256, unique=False)
    assert sections.coerce("16,24,24") == ((16, 24, 24), None)
    assert PARAMS["mrope_section"].coerce("16,24,24") == ((16, 24, 24), None)


def test_a_range_that_depends_on_other_parameters_is_narrowed_and_says_why():
    pair = PARAMS["pair"].within({"head_dim": 96, "partial_rotary_factor": 0.25})
    assert (pair.minimum, pair.maximum) == (0, 11)
    value, message = pair.coerce(20)
    assert value == 11 and "rotary dim 24 has 12 pairs" in message
    assert PARAMS["pair"].within({}) is PARAMS["pair"]  # nothing to narrow by


def test_the_exporter_keeps_a_dependent_parameter_within_its_range():
    params, messages = registry.resolve_params(
        "alibi-bias", {"n_heads": 4, "heads": "1,9", "seq_len": 64, "start": 100}
    )
    assert params["heads"] == (1, 3) and params["start"] == 63
    assert any("the model has 4 heads" in m for m in messages)
    assert any("the sequence has 64 positions" in m for m in messages)


def test_parse_gives_the_value_or_refuses_saying_what_is_allowed():
    assert SEQ_LEN.parse("4096") == 4096
    with pytest.raises(ValueError, match=r"^seq_len='0' is outside the allowed range \(1 to 1048576\)$"):
        SEQ_LEN.parse("0")
    with pytest.raises(ValueError, match=r"^base='big' is not a valid number \(allowed: .* to .*\)$"):
        BASE.parse("big")


@pytest.mark.parametrize("name", ["seq_len", "base", "heads", "rope_layout", "shared_scale", "sentence_a"])
def test_a_long_value_is_echoed_shortened_with_its_length(name):
    raw = "9" * 100_000 if PARAMS[name].kind != "text" else "word " * 20_000
    _, message = PARAMS[name].coerce(raw)
    assert message is not None and name in message
    assert len(message) < 300, message
    assert "100,000 characters" in message
    assert raw[:40] in message and raw[:41] not in message


def test_text_parameters_are_bounded_and_say_so():
    texts = [spec for spec in PARAMS.values() if spec.kind == "text"]
    assert {"sentence_a", "sentence_b", "schemes", "segments", "attention_text"} <= {spec.name for spec in texts}
    for spec in texts:
        assert 1 <= spec.max_chars <= 1000, spec.name
        assert f"{spec.max_chars}" in spec.allowed(), spec.allowed()
        assert len(spec.default) <= spec.max_chars
    sentence = PARAMS["sentence_a"]
    raw = "the cat sat " * 100  # 1,200 characters
    value, message = sentence.coerce(raw)
    assert value == raw[: sentence.max_chars]
    assert "sentence_a=" in message and "1,200 characters" in message and raw[:41] not in message
    assert sentence.coerce(raw[: sentence.max_chars]) == (raw[: sentence.max_chars], None)


def test_an_empty_sentence_is_refused_for_the_default():
    value, message = PARAMS["sentence_a"].coerce("")
    assert value == PARAMS["sentence_a"].default and "sentence_a=''" in message


@pytest.mark.parametrize("raw", [10**40, 10**400, "1e40", 1e40, "1" + "0" * 40])
def test_a_huge_whole_number_is_out_of_range_not_malformed(raw):
    value, message = SEQ_LEN.coerce(raw)
    assert value == SEQ_LEN.maximum and "outside the allowed range" in message and len(message) < 200
