"""Compare two to four schemes on one footing: similarity against distance, the decay bound, a metrics table.

Importing :mod:`figures` registers every module of this package (its ``params`` first)."""
