"""RoPE and everything built on it, one package.

- :mod:`posenc_core.rope.rotary`        angles, cos/sin tables, the two channel layouts, partial rotary, scores
                                        (its names are re-exported here: ``posenc_core.rope.apply``)
- :mod:`posenc_core.rope.scaling`       inverse frequencies and their context extensions (HF's ``rope_type``s);
                                        :mod:`~posenc_core.rope.yarn` YaRN's ramp and attention factor,
                                        :mod:`~posenc_core.rope.scaling_keys` the keys each type reads,
                                        ``_params`` the reader of a ``rope_scaling`` dict
- :mod:`posenc_core.rope.bounds`        RoFormer's long-term decay and the base a context needs (Men et al.)
- :mod:`posenc_core.rope.methods`       the context-extension methods side by side (their facts in
                                        :mod:`~posenc_core.rope.method_facts`)
- :mod:`posenc_core.rope.mrope`         Qwen2-VL's multimodal RoPE (three position ids per token)
- :mod:`posenc_core.rope.vision`        axial 2-D RoPE for vision towers
"""

from posenc_core.rope.rotary import *  # noqa: F403  (the basics, as ``posenc_core.rope.<name>``)
from posenc_core.rope.rotary import __all__  # noqa: F401
