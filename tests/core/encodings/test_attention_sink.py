"""StreamingLLM's cache: a loop that streams tokens into a cache and evicts as the paper does, properties,
and bad arguments by name."""

from __future__ import annotations

import pytest
import torch

from posenc_core.encodings import attention_sink


def _streamed_cache(seq_len: int, n_sink: int, window: int) -> list[int]:
    """Oracle: append tokens one at a time; once the cache is over n_sink + window, drop the oldest token that
    is not one of the first n_sink (StartRecentKVCache: keep [:start_size] and the last recent_size)."""
    cache: list[int] = []
    for token in range(seq_len):
        cache.append(token)
        if len(cache) > n_sink + window:
            del cache[n_sink]
    return cache


@pytest.mark.parametrize("n_sink", [0, 1, 4])
@pytest.mark.parametrize("window", [1, 3, 8])
def test_the_cache_equals_a_token_by_token_stream(n_sink, window, device):
    for seq_len in range(0, 30):
        kept, positions = attention_sink.cache_positions(seq_len, n_sink=n_sink, window=window, device=device)
        assert kept.device.type == device.type and kept.dtype == positions.dtype == torch.int64
        assert kept.tolist() == _streamed_cache(seq_len, n_sink, window), (seq_len, n_sink, window)
        assert positions.tolist() == list(range(len(kept)))


def test_streaming_llm_defaults_keep_four_sinks_and_the_window():
    kept, positions = attention_sink.cache_positions(1000, window=1020)  # fits: everything, original positions
    assert torch.equal(kept, torch.arange(1000)) and torch.equal(positions, torch.arange(1000))
    kept, positions = attention_sink.cache_positions(100_000, window=1020)
    assert kept[:4].tolist() == [0, 1, 2, 3] and kept[4].item() == 100_000 - 1020 and kept[-1].item() == 99_999
    assert positions.max().item() == 1023  # never past n_sink + window - 1, however long the stream


@pytest.mark.parametrize(("seq_len", "n_sink", "window"), [(50, 4, 10), (14, 4, 10), (15, 4, 10), (7, 0, 3)])
def test_properties_of_the_cache(seq_len, n_sink, window):
    kept, positions = attention_sink.cache_positions(seq_len, n_sink=n_sink, window=window)
    assert len(kept) == min(seq_len, n_sink + window)
    assert bool((kept.diff() > 0).all())  # in stream order, no repeats
    assert kept[-1].item() == seq_len - 1  # the newest token is always there
    assert len(kept) + attention_sink.evicted_count(seq_len, n_sink=n_sink, window=window) == seq_len
    assert bool((positions <= kept).all())  # re-assigned positions never exceed the original ones


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"seq_len": -1, "window": 4}, "seq_len"),
        ({"seq_len": 2.5, "window": 4}, "seq_len"),
        ({"seq_len": 10, "n_sink": -1, "window": 4}, "n_sink"),
        ({"seq_len": 10, "window": 0}, "window"),
        ({"seq_len": 10, "window": True}, "window"),
    ],
)
def test_bad_arguments_name_themselves(kwargs, name):
    with pytest.raises(ValueError, match=name):
        attention_sink.cache_positions(**kwargs)
    with pytest.raises(ValueError, match=name):
        attention_sink.evicted_count(**kwargs)


def test_window_is_required():
    with pytest.raises(TypeError, match="window"):
        attention_sink.cache_positions(10)  # type: ignore[call-arg]
