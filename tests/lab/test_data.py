"""The lab's data: the generator's bytes depend only on the seed (SplitMix64 against its reference outputs), the
held-out text is the pinned one and a changed one is refused, the text has structure past a short trained length
(a value repeated far after its definition), and copy and passkey examples are exact."""

from __future__ import annotations

import re

import pytest

from posenc_lab import data


def test_splitmix64_gives_the_reference_outputs():
    rng = data.SplitMix64(0)  # Vigna's splitmix64.c from state 0: e220a8397b1dcdaf 6e789e6aa1b965f4 06c45d188009454f
    assert [rng.next() for _ in range(3)] == [0xE220A8397B1DCDAF, 0x6E789E6AA1B965F4, 0x06C45D188009454F]


def test_the_evaluation_text_is_the_pinned_one_and_another_is_refused(monkeypatch):
    text = data.evaluation_text()
    assert len(text) == data.EVAL_BYTES and text.isascii()
    assert data.generated_text(1000, data.EVAL_SEED) == text[:1000]  # a seed, not a machine, decides the bytes
    assert data.generated_text(1000, data.EVAL_SEED + 1) != text[:1000]
    monkeypatch.setattr(data, "EVAL_SEED", data.EVAL_SEED + 1)
    with pytest.raises(RuntimeError, match="not the pinned one"):
        data.evaluation_text()


def test_values_come_back_far_past_their_definition():
    """Each "so NAME is VALUE again." repeats the value its record's latest "let NAME = VALUE." gave, and many of
    them sit more than 128 bytes after that definition: structure a model trained on 64 bytes never spans."""
    text = data.generated_text(20_000, 7).decode()
    gaps = []
    for record in text.split("\n"):
        defined = {}
        for match in re.finditer(r"let (\w+) = (\d+)\.|so (\w+) is (\d+) again\.", record):
            if match.group(1):
                defined[match.group(1)] = (match.group(2), match.start())
            else:
                value, where = defined[match.group(3)]
                assert match.group(4) == value
                gaps.append(match.start() - where)
    assert len(gaps) > 50 and sum(gap > 128 for gap in gaps) > len(gaps) / 3, gaps[:20]


def test_a_copy_example_is_the_letters_twice():
    example, start = data.copy_example(data.SplitMix64(3), 12)
    letters, copy = example.decode().rstrip("\n").split("|")
    assert len(letters) == 12 and copy == letters and start == 13 and example[start:-1] == letters.encode()


def test_filler_is_the_grammars_sentences_cut_to_size_with_no_digit():
    text = data.filler(data.SplitMix64(8), 500)
    assert len(text) == 500 and text.isascii() and not any(char.isdigit() for char in text)
    assert text == data.filler(data.SplitMix64(8), 500) and text != data.filler(data.SplitMix64(9), 500)
    assert text.count(". ") > 10 and data.filler(data.SplitMix64(8), 0) == ""


@pytest.mark.parametrize(("length", "before"), [(21, 0), (40, 0), (40, 7), (40, 19), (300, 150)])
def test_a_passkey_example_asks_for_the_digits_it_set_and_nothing_else_holds_a_digit(length, before):
    example, start = data.passkey_example(data.SplitMix64(length + before), length, before)
    text = example.decode("ascii")
    assert len(example) == length + 1 and text.endswith("\n")
    match = re.fullmatch(r"([^\d]*)key (\d{5})\. ([^\d]*)key\? (\d{5})\n", text)
    assert match is not None, text
    lead, set_digits, _, asked = match.groups()
    assert len(lead) == before and asked == set_digits  # the only digits are the passkey, set once, asked once
    assert example[start : start + data.PASSKEY_DIGITS] == asked.encode() and start == length - data.PASSKEY_DIGITS
    set_at = match.start(2)
    assert data.passkey_distance(length, before) == start - set_at == length - before - 9


def test_passkeys_differ_between_draws():
    rng = data.SplitMix64(11)
    keys = {data.passkey_example(rng, 30, 2)[0][6:11] for _ in range(20)}
    assert len(keys) > 15


@pytest.mark.parametrize(
    ("call", "words"),
    [
        (lambda: data.generated_text(0, 1), "n_bytes must be a whole number of at least 1"),
        (lambda: data.copy_example(data.SplitMix64(1), 0), "length must be a whole number of at least 1"),
        (lambda: data.passkey_example(data.SplitMix64(1), 20, 0), "length must be a whole number of at least 21"),
        (lambda: data.passkey_example(data.SplitMix64(1), 30.0, 0), "length must be a whole number"),
        (lambda: data.passkey_example(data.SplitMix64(1), 30, 10), "before must be a whole number from 0 to 9"),
        (lambda: data.passkey_example(data.SplitMix64(1), 30, -1), "before must be a whole number from 0 to 9"),
        (lambda: data.passkey_example(data.SplitMix64(1), 30, True), "before must be a whole number"),
    ],
)
def test_bad_sizes_name_the_argument(call, words):
    with pytest.raises(ValueError, match=words):
        call()
