"""Attention sinks (StreamingLLM): what a streaming model's key/value cache holds, and the positions it sees.

A model trained on L tokens breaks when a plain sliding window drops the first tokens: softmax must put its
mass somewhere, and the model learned to dump it on the first few tokens ("sinks"), whatever they say.
StreamingLLM keeps those ``n_sink`` first tokens plus the ``window`` most recent ones, and gives the cached
tokens the positions they have *in the cache* (0, 1, 2, ...), not their original ones: the model never sees
a position past n_sink + window - 1, however long the stream.

Cache after seq_len tokens (token indices 0..seq_len-1):
    seq_len <= n_sink + window: every token, positions 0..seq_len-1;
    otherwise: tokens 0..n_sink-1 and seq_len-window..seq_len-1, positions 0..n_sink+window-1.

Ref: Xiao et al. 2023, arXiv 2309.17453 §3.2 (rolling cache with attention sinks, positions within the
cache); mit-han-lab/streaming-llm ``kv_cache.py`` (``StartRecentKVCache``: start_size + recent_size) and
``pos_shift`` (keys re-rotated at arange(cache length)).
"""

from __future__ import annotations

import torch

from posenc_core._checks import check_int
from posenc_core.device import resolve_device


def cache_positions(seq_len: int, *, n_sink: int = 4, window: int, device=None) -> tuple[torch.Tensor, torch.Tensor]:
    """(token indices kept, positions the model gives them) after ``seq_len`` tokens. Both int64, shape (K,),
    K = min(seq_len, n_sink + window); the positions are 0..K-1 in cache order.

    ``n_sink`` = 0 is a plain sliding window (the case StreamingLLM shows failing); ``window`` >= 1.
    """
    device = resolve_device(device)
    seq_len = check_int("seq_len", seq_len, minimum=0)
    n_sink = check_int("n_sink", n_sink, minimum=0)
    window = check_int("window", window, minimum=1)
    if seq_len <= n_sink + window:
        kept = torch.arange(seq_len, dtype=torch.int64, device=device)
    else:
        sinks = torch.arange(n_sink, dtype=torch.int64, device=device)
        recent = torch.arange(seq_len - window, seq_len, dtype=torch.int64, device=device)
        kept = torch.cat([sinks, recent])
    return kept, torch.arange(kept.numel(), dtype=torch.int64, device=device)


def evicted_count(seq_len: int, *, n_sink: int = 4, window: int) -> int:
    """How many tokens the cache has dropped after ``seq_len`` tokens: max(0, seq_len - n_sink - window)."""
    seq_len = check_int("seq_len", seq_len, minimum=0)
    n_sink = check_int("n_sink", n_sink, minimum=0)
    window = check_int("window", window, minimum=1)
    return max(0, seq_len - n_sink - window)
