"""RoPE context extension: linear, NTK, dynamic NTK, YaRN, Llama 3.1 and LongRoPE side by side, YaRN's ramp and
attention factor, dynamic NTK's base, angles past the trained length, and the base calculator.

Importing :mod:`figures` registers every module of this package (its ``params`` first)."""
