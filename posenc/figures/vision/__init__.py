"""Vision (2-D): a ViT's patch grid with [CLS], MAE's 2-D sin-cos table and its similarity on the grid, a learned
patch table resized to a new grid (timm), and the axial 2-D RoPE of vision towers (Qwen2-VL).

Importing :mod:`figures` registers every module of this package (its ``params`` first)."""
