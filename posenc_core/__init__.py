"""posenc_core: positional encodings of transformers, exact to their reference implementations.

Every tensor-producing function takes ``device=None, dtype=torch.float32`` (None =
:func:`posenc_core.device.resolve_device`'s default) and returns torch tensors. The modules live in four rooms:

- :mod:`posenc_core.encodings`  the formulas of each family: sinusoidal, learned, relative (Shaw, T5), ALiBi, NoPE,
                                attention sinks, 2-D patch positions, and the statistics of any position table
- :mod:`posenc_core.rope`       RoPE and everything built on it: rotary basics, the context extensions (HF's
                                ``rope_type``s, YaRN, their keys), the bounds, the methods table, M-RoPE, 2-D RoPE
- :mod:`posenc_core.models`     reading real models: config.json, the Hugging Face Hub, weight files, the presets
- :mod:`posenc_core.teaching`   the small models the lessons run: a self-attention, an RNN, a tokenizer, a BERT
                                encoder's attention, the binary counter

and beside them :mod:`posenc_core.schemes` (the registry of every scheme), :mod:`posenc_core.sampling`
(display-resolution views: compute only what a screen shows), :mod:`posenc_core.device` (cuda > mps > cpu) and the
argument checks every public function shares (``_checks``). The flat names of version 0.1
(``posenc_core.rope_scaling``, ``posenc_core.hf_config``, ...) still import, with a warning that names the new place
(``_moved``).
"""

from posenc_core import _moved


def __getattr__(name: str):
    """``posenc_core.__version__``: the project's (``_version``), read when asked."""
    if name == "__version__":
        from posenc_core._version import project_version

        return project_version()
    raise AttributeError(f"module 'posenc_core' has no attribute {name!r}")


_moved.install()
