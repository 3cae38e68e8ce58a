"""The length lab: tiny decoder-only transformers that differ only in how they handle position, trained short and
tested long, so that what the course says (ALiBi extrapolates, RoPE breaks past its trained length, YaRN rescues
it) can be seen happening.

Every position formula comes from :mod:`posenc_core` (the functions the figures draw): this package builds models
around them and never changes them. It imports torch and the core only (no Streamlit, no Plotly); the core never
imports it.

- :mod:`posenc_lab.schemes`: the six position schemes (nope, sinusoidal, learned, t5, alibi, rope), one registry.
- :mod:`posenc_lab.model`: the model (pre-norm, causal, a few layers, a byte vocabulary) and its config.
- :mod:`posenc_lab.data`: the generated text (the `lm` task) and the copy task, the same bytes on every machine.
- :mod:`posenc_lab.train`: training, the same data and steps for every scheme, deterministic for a seed.
- :mod:`posenc_lab.limits`: every bound a model, a run, an evaluation and a checkpoint file are held to.
- :mod:`posenc_lab.targets`: where a checkpoint or results file may be written (never a device, link or folder).
"""
