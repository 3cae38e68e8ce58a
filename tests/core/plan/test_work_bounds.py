"""Issue 35 defect 5: a plan's work is bounded by the numbers it accepts (rotary dim, pairs × target, base, YaRN
betas), refused past them in one ValueError naming the bound, and no plan waits on another's."""

from __future__ import annotations

import dataclasses
import threading
import time

import pytest
import torch

from posenc_core.models.hf_config import from_hf_config
from posenc_core.models.presets import PRESETS
from posenc_core.plan import MAX_PLAN_WORK, MAX_ROTARY_DIM, plan_config, plan_extension
from posenc_core.rope import bounds

LLAMA = PRESETS["llama-2-7b"]


def _wide(head_dim: int):
    return dataclasses.replace(LLAMA, head_dim=head_dim, rope_head_dim=head_dim, hidden_size=head_dim * 32)


def test_a_head_dim_of_65536_is_refused_at_once_naming_the_bound():
    start = time.process_time()  # this process's CPU: what a busy machine does not stretch
    with pytest.raises(ValueError, match=f"at most {MAX_ROTARY_DIM:,}"):
        plan_extension(_wide(65536), 8192)
    assert time.process_time() - start < 1.0


def test_pairs_times_target_past_the_bound_is_refused_and_says_the_longest_target():
    with pytest.raises(ValueError, match=f"at most {MAX_PLAN_WORK:,} \\(target at most 2,097,152"):
        plan_extension(_wide(1024), 2**22)


def test_a_base_past_1e12_is_refused():
    with pytest.raises(ValueError, match="at most 1e12"):
        plan_extension(dataclasses.replace(LLAMA, rope_theta=1e15), 8192)


@pytest.mark.parametrize("beta_slow", [1e-320, 1e-4])
def test_a_yarn_beta_outside_its_range_is_refused_cleanly(beta_slow):
    config = {
        "model_type": "llama",
        "hidden_size": 4096,
        "num_attention_heads": 32,
        "max_position_embeddings": 16384,
        "rope_theta": 10000.0,
        "rope_scaling": {
            "rope_type": "yarn",
            "factor": 4.0,
            "original_max_position_embeddings": 4096,
            "beta_fast": 32.0,
            "beta_slow": beta_slow,
        },
    }
    assert from_hf_config(config).preset.rope_scaling["beta_slow"] == beta_slow  # the reader lets it through
    with pytest.raises(ValueError, match=r"rope_scaling\.beta_slow must be"):
        plan_config(config, 65536, "yarn")


def test_a_factor_past_the_longest_target_is_refused():
    with pytest.raises(ValueError, match="factor"):
        plan_extension(LLAMA, 8192, "linear", factor=1e300)


def test_one_search_does_not_wait_for_another():
    """Men et al.'s search sets one intra-op thread for its run; a second search running meanwhile must not queue
    behind the first (the old lock was held for the whole search)."""
    before = torch.get_num_threads()
    inside, release, finished = threading.Event(), threading.Event(), threading.Event()

    def holder():
        with bounds._one_intra_op_thread():
            inside.set()
            release.wait(10)

    def other():
        bounds.min_base_for_context(512, 64)
        finished.set()

    first = threading.Thread(target=holder)
    first.start()
    assert inside.wait(5)
    second = threading.Thread(target=other)
    second.start()
    try:
        assert finished.wait(5), "the second search queued behind the first"
    finally:
        release.set()
        first.join(5)
        second.join(5)
    assert torch.get_num_threads() == before  # the last search out restores the count


def test_an_original_length_derived_past_the_longest_target_is_refused_in_a_short_line():
    """A linear factor of 1e-300 made L a 300-digit number in the message."""
    model = dataclasses.replace(LLAMA, rope_scaling={"rope_type": "linear", "factor": 1e-300})
    with pytest.raises(ValueError, match="is past 16,777,216 tokens") as raised:
        plan_extension(model, 16384)
    assert len(str(raised.value)) < 200
