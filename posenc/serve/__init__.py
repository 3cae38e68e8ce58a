"""Serving the app to a class: a protocol-level client of its own pages."""
