"""The parameter sets every page is measured at: its defaults, and the largest the app accepts."""

from posenc.ui.navigation import EXPLORER_PAGE_NAMES

PAGES = EXPLORER_PAGE_NAMES  # every explorer page of the app (its controls draw figures), in sidebar order

SCENARIOS = {
    "default": {},
    "largest": {
        "seq_len": "1048576",
        "d_model": "8192",
        "head_dim": "512",
        "n_heads": "128",
        "factor": "64",
        "original_max_position_embeddings": "16384",
        "target_context": "1048576",
        "max_len": "1024",  # learned tables are capped at 1024 x 8192 values
        "view": "overview",
        "mrope_section": "64,96,96",
        "grid_h": "64",  # vision: a 64 x 64 patch grid, the widest sin-cos table, a 64 x 64 resize, head_dim 128
        "grid_w": "64",
        "embed_dim": "1280",
        "old_grid": "64",
        "new_grid": "64",
        "vision_head_dim": "128",
        "nope_length": "4096",  # NoPE and sinks: 64 sequences x 4096 values x 128 dims, 256 layers, 2^24 tokens,
        "value_dim": "128",  # a 256 x 256 cache grid
        "n_sequences": "64",
        "num_hidden_layers": "256",
        "temperature_context": "16777216",
        "stream_len": "256",
        "sink_window": "256",
        "n_sink": "32",
    },
}
