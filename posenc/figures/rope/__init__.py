"""RoPE (Su et al. 2021): rotation angles and wavelengths, one pair turning, the channel layouts, the relative
property and the long-term decay.

Importing :mod:`figures` registers every module of this package (its ``params`` first)."""
