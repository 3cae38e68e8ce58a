"""Why attention needs position: one attention head with and without a position encoding.

Importing :mod:`figures` registers every module of this package (its ``params`` first)."""
