"""Models whose layers differ in their positions: Gemma 3's local and global RoPE bases, Llama 4's NoPE layers,
drawn layer by layer (on the RoPE and context-extension pages).

Importing :mod:`figures` registers every module of this package (its ``params`` first)."""
