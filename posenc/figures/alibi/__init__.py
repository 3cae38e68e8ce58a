"""ALiBi (Press et al. 2022): slopes per head, bias matrices, attention decay and span per head.

Importing :mod:`figures` registers every module of this package (its ``params`` first)."""
