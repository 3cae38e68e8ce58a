"""Plan a context extension: the figure of a plan's wavelengths (original, the chosen method's, the regimes it puts
each pair in), the plan's parameters, and the translated words the Plan page shows around ``posenc_core.plan``.

Importing :mod:`figures` registers every module of this package (its ``params`` first)."""
