"""Relative positions: Shaw et al.'s clipped index matrix and T5's buckets.

Importing :mod:`figures` registers every module of this package (its ``params`` first)."""
