"""Learned absolute position tables: random, built-in (all-MiniLM-L6-v2) or uploaded; the table, its similarity,
and sinusoidal vs learned vs none.

Importing :mod:`figures` registers every module of this package (its ``params`` first)."""
