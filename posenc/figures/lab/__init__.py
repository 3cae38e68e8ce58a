"""The length lab (issue 26): tiny decoder-only models that differ only in their positional encoding, trained at
L = 64 and tested at up to 8L. Loss against length, copy accuracy, loss along one long sequence, RoPE scaling
at evaluation, attention of one head at 1x and 4x L, RoPE's query/key norm per frequency pair.

The numbers come from ``posenc_lab`` (its shipped checkpoints and ``results.json``, read by :mod:`.source`).
Refs: Press et al. 2022 (ALiBi, ICLR), Kazemnejad et al. 2023 (NeurIPS), Barbero et al. 2025 (ICLR)."""
