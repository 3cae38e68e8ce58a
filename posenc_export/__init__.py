"""Batch export of posenc figures from the command line: ``python -m posenc_export --help``."""
