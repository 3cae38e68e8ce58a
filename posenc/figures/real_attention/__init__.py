"""Real attention on the first tokens: how much each layer and head of the built-in all-MiniLM-L6-v2 encoder
attends to [CLS] and to [SEP], measured on a sentence the user writes.

Importing :mod:`figures` registers every module of this package (its ``params`` first)."""
