"""Sinusoidal position encoding (Vaswani et al. 2017): the table, its waves and wavelengths, PE(p)·PE(q) as a
relative code, the linear map M_k, and adding vs concatenating.

Importing :mod:`figures` registers every module of this package (its ``params`` first)."""
