"""M-RoPE (Qwen2-VL): temporal, height and width position ids of text, image and video, and the channel split.

Importing :mod:`figures` registers every module of this package (its ``params`` first)."""
