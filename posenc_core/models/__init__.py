"""Reading real models: their ``config.json``, the Hugging Face Hub, weight files, and the presets.

- :mod:`posenc_core.models.hf_config`   a ``config.json`` read into a preset (every key's type and bounds:
                                        ``_hf_reader``; the RoPE block: ``_hf_rope``; per-layer bases: ``_hf_layers``)
- :mod:`posenc_core.models.hub`         a config.json by model id; :mod:`~posenc_core.models.hub_tables` a
                                        model's learned position table, without the whole checkpoint
- :mod:`posenc_core.models.table_files` the tensors of an untrusted weight file, declared sizes checked first
- :mod:`posenc_core.models.presets`     real models' parameters (their published configs); the type in
                                        :mod:`~posenc_core.models.preset_type`
"""
