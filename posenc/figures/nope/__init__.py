"""NoPE and attention sinks: the position a causal mask alone leaves in attention's output, Llama 4's NoPE layers
and their query scale, and StreamingLLM's cache with the positions it gives.

Importing :mod:`figures` registers every module of this package (its ``params`` first)."""
