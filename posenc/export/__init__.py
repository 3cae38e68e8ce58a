"""Batch export of posenc figures from the command line: ``posenc export --help`` (or ``python -m posenc.export``)."""
