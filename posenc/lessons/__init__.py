"""The lessons: one TOML file each (the format in README.md), read and checked by :mod:`lessons.reader`; the
numbers an answer may quote, computed by the core, in :mod:`lessons.answers`."""
