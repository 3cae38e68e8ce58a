"""The length lab (issue 26): tiny decoder-only models that differ only in their positional encoding, trained at
L = 64 and tested at up to 8L. Loss against length, copy accuracy, passkey retrieval, loss along one long sequence,
RoPE scaling at evaluation (and on the passkey model), scaling with and without a fine-tune, training curves,
attention of one head at 1x and 4x L, RoPE's query/key norm per frequency pair. Every checkpoint is trained once
per seed: the figures of results draw the seeds' mean with their spread (:mod:`.seeds`), those that run a model
use the first seed's.

The numbers come from ``posenc_lab`` (its shipped checkpoints and ``results.json``, read by :mod:`.source`).
Refs: Press et al. 2022 (ALiBi, ICLR), Kazemnejad et al. 2023 (NeurIPS), Mohtashami and Jaggi 2023 (passkey),
Chen et al. 2023 (PI), Barbero et al. 2025 (ICLR)."""
