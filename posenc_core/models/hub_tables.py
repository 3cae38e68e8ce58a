"""A learned position table by Hugging Face model id, read without downloading the checkpoint.

A ``.safetensors`` file starts with an 8-byte little-endian length n and an n-byte JSON header giving each
tensor's dtype, shape and byte range (``data_offsets``, counted from byte 8 + n). So the table of a model comes in
three HTTP Range reads: bytes 0-7, the header, then that one tensor's bytes; a 500 MB checkpoint costs the header
and 3 MB for GPT-2's ``wpe.weight``. A sharded checkpoint's ``model.safetensors.index.json`` (its ``weight_map``:
tensor name -> shard file) says which shard to read. The bytes are then checked by the same reader as an uploaded
file (:func:`posenc_core.encodings.learned.load_table`): 2-D, numeric, finite, at most ``max_elements`` values.

Ref: safetensors format (huggingface/safetensors README, "Format"); huggingface_hub
``HfApi.parse_safetensors_file_metadata`` (the same Range reads) and ``get_hf_file_metadata`` (the HEAD).
"""

from __future__ import annotations

import json
import math
import struct
from dataclasses import dataclass
from typing import Any

import torch
from huggingface_hub import get_hf_file_metadata, get_session, hf_hub_url
from huggingface_hub.utils import build_hf_headers, hf_raise_for_status

from posenc_core.encodings import learned
from posenc_core.models.hub import EntryNotFound, HubError, ModelRef, download, endpoint, explain, parse_model_id

SINGLE_FILE = "model.safetensors"
INDEX_FILE = "model.safetensors.index.json"
MAX_HEADER_BYTES = 25_000_000
"""The largest safetensors header read (the format allows 100 MB; real ones are a few hundred kB)."""
POSITION_NAMES = (
    "position_embeddings.weight",  # BERT, RoBERTa, ELECTRA: embeddings.position_embeddings.weight
    "wpe.weight",  # GPT-2, GPT-Neo: transformer.wpe.weight
    "embed_positions.weight",  # OPT, BART, Whisper
    "position_embedding.weight",  # CLIP, SigLIP
    "pos_emb.weight",
    "pos_embed",  # DINOv2 / timm ViT (1, patches, d)
    "position_embeddings",  # HF ViT: embeddings.position_embeddings (1, patches + 1, d)
)
"""How position tables are named in common checkpoints (a tensor name ends with one of these)."""
_ITEM_BYTES = {"F64": 8, "F32": 4, "F16": 2, "BF16": 2}


@dataclass(frozen=True)
class HubTable:
    """A position table fetched by model id: where it was read and the (L, d) table itself."""

    ref: ModelRef
    commit: str | None  # the commit the bytes were read at
    filename: str  # the safetensors file (a shard, for a sharded checkpoint)
    tensor: str  # the tensor's name in the checkpoint
    dtype: str  # as stored: F32, F16, BF16, F64
    table: torch.Tensor  # (L, d)

    @property
    def label(self) -> str:
        """``org/name:tensor`` (with ``@revision`` when one was asked for)."""
        return f"{self.ref}:{self.tensor}"


def position_tensors(names) -> list[str]:
    """The names in ``names`` that look like position tables (see :data:`POSITION_NAMES`)."""
    return [name for name in names if any(name == end or name.endswith("." + end) for end in POSITION_NAMES)]


def fetch_position_table(
    model_id: str | ModelRef,
    *,
    tensor: str | None = None,
    max_elements: int = learned.MAX_TABLE_ELEMENTS,
    device=None,
    dtype=torch.float32,
) -> HubTable:
    """The learned position table of a model on the Hub, reading only the safetensors header and that tensor.

    ``tensor`` names it; None takes the one tensor whose name says position (``wpe.weight``,
    ``embeddings.position_embeddings.weight``, ...). Raises a :class:`~posenc_core.models.hub.HubError` (a ValueError)
    naming the id for an unknown model, revision or tensor, a checkpoint without safetensors, a table larger than
    ``max_elements`` values (checked before its bytes are fetched) or one that is not 2-D, numeric and finite.
    """
    ref = model_id if isinstance(model_id, ModelRef) else parse_model_id(model_id)
    if tensor is not None and (not isinstance(tensor, str) or not tensor.strip()):
        raise HubError(f"tensor must be a tensor name such as 'wpe.weight' or None (got {tensor!r})")
    tensor = tensor.strip() if tensor else None
    filename, weight_map = SINGLE_FILE, None
    try:
        commit, size = _head(ref, SINGLE_FILE)
    except EntryNotFound:
        weight_map = _weight_map(ref)
        commit, size = None, None
    if weight_map is not None:
        name = _pick(ref, list(weight_map), tensor)
        filename = weight_map[name]
        commit, size = _head(ref, filename)
    length, header = _header(ref, filename, commit, size)
    if weight_map is None:
        name = _pick(ref, [key for key in header if key != "__metadata__"], tensor)
    elif name not in header:
        raise HubError(f"model {str(ref)!r}: {INDEX_FILE} puts {name!r} in {filename!r}, whose header lacks it")
    entry = header[name]
    shape, kind, begin, end = _entry(ref, name, entry)
    while len(shape) > 2 and shape[0] == 1:  # ViT-style (1, patches, d)
        shape = shape[1:]
    where = f"model {str(ref)!r} tensor {name!r}"
    if len(shape) != 2:
        raise HubError(f"{where}: a position table must be 2-D (positions, channels) (got shape {tuple(shape)})")
    if math.prod(shape) > max_elements:
        raise HubError(
            f"{where}: {shape[0]} x {shape[1]} = {math.prod(shape)} values is more than max_elements = "
            f"{max_elements} (default {learned.MAX_TABLE_ELEMENTS} = 1024 x 8192)"
        )
    start = 8 + length
    data = _range(ref, filename, commit, start + begin, start + end - 1)
    table = _as_table(ref, name, kind, shape, data, max_elements, device, dtype)
    return HubTable(ref, commit, filename, name, kind, table)


def _head(ref: ModelRef, filename: str) -> tuple[str | None, int | None]:
    """(commit, size) of a file, from one HEAD request (redirects to a CDN are not followed)."""
    url = hf_hub_url(ref.repo_id, filename, revision=ref.revision, endpoint=endpoint())
    try:
        metadata = get_hf_file_metadata(url, endpoint=endpoint())
    except Exception as error:
        raise explain(error, ref, filename) from error
    return metadata.commit_hash, metadata.size


def _weight_map(ref: ModelRef) -> dict[str, str]:
    try:
        path = download(ref, INDEX_FILE)
    except EntryNotFound as error:
        raise HubError(
            f"model {str(ref)!r} has neither {SINGLE_FILE} nor {INDEX_FILE}: only safetensors checkpoints are read "
            "by id (download its weights and upload the file instead)"
        ) from error
    try:
        weight_map = json.loads(path.read_text(encoding="utf-8"))["weight_map"]
        if not isinstance(weight_map, dict) or not all(isinstance(v, str) for v in weight_map.values()):
            raise TypeError("weight_map is not a mapping of names to files")
    except (ValueError, KeyError, TypeError) as error:
        raise HubError(f"model {str(ref)!r}: {INDEX_FILE} is not a safetensors index ({error})") from error
    return weight_map


def _pick(ref: ModelRef, names: list[str], tensor: str | None) -> str:
    """``tensor`` if the checkpoint has it, else the one name that says position; a HubError lists the choices."""
    found = position_tensors(names)
    if tensor is not None:
        if tensor in names:
            return tensor
        hint = f"its position tables: {', '.join(map(repr, found))}" if found else _choices(names[:20], len(names))
        raise HubError(f"model {str(ref)!r} has no tensor {tensor!r}; {hint}")
    if len(found) == 1:
        return found[0]
    if found:
        raise HubError(f"model {str(ref)!r} holds several position tables; name one: {', '.join(map(repr, found))}")
    raise HubError(
        f"model {str(ref)!r} has no tensor named like a position table (it may compute positions, e.g. RoPE); "
        + _choices(names[:20], len(names))
    )


def _choices(names: list[str], total: int) -> str:
    more = f", ... ({total} in all)" if total > len(names) else ""
    return f"its tensors: {', '.join(map(repr, names))}{more}"


def _header(ref: ModelRef, filename: str, commit: str | None, size: int | None) -> tuple[int, dict[str, Any]]:
    """(length, parsed JSON) of a safetensors header."""
    (length,) = struct.unpack("<Q", _range(ref, filename, commit, 0, 7))
    if length < 2 or length > MAX_HEADER_BYTES or (size is not None and 8 + length > size):
        raise HubError(
            f"model {str(ref)!r}: {filename} is not a safetensors file (header length {length}, at most "
            f"{MAX_HEADER_BYTES:,})"
        )
    try:
        header = json.loads(_range(ref, filename, commit, 8, 8 + length - 1))
        if not isinstance(header, dict):
            raise ValueError("the header is not a JSON object")
    except ValueError as error:
        raise HubError(f"model {str(ref)!r}: the header of {filename} is not valid JSON ({error})") from error
    return length, header


def _entry(ref: ModelRef, name: str, entry: Any) -> tuple[list[int], str, int, int]:
    """(shape, dtype, begin, end) of a header entry, checked: the byte range must hold exactly that tensor."""
    try:
        shape, kind = [int(n) for n in entry["shape"]], str(entry["dtype"])
        begin, end = (int(n) for n in entry["data_offsets"])
    except (TypeError, KeyError, ValueError) as error:
        raise HubError(f"model {str(ref)!r}: the header entry of {name!r} is malformed ({error})") from error
    if kind not in _ITEM_BYTES:
        raise HubError(
            f"model {str(ref)!r} tensor {name!r} has dtype {kind}; a position table is one of F32, F16, BF16, F64"
        )
    if begin < 0 or end - begin != math.prod(shape) * _ITEM_BYTES[kind]:
        raise HubError(f"model {str(ref)!r}: the header gives {name!r} a byte range that does not fit its shape")
    return shape, kind, begin, end


def _range(ref: ModelRef, filename: str, commit: str | None, first: int, last: int) -> bytes:
    """Bytes ``first..last`` (inclusive) of a file, by one Range request; never more than asked for."""
    url = hf_hub_url(ref.repo_id, filename, revision=commit or ref.revision, endpoint=endpoint())
    wanted = last - first + 1
    headers = {**build_hf_headers(), "Range": f"bytes={first}-{last}", "Accept-Encoding": "identity"}
    try:
        with get_session().stream("GET", url, headers=headers, timeout=30) as response:
            if response.status_code >= 400:
                response.read()
                hf_raise_for_status(response)
            if response.status_code != 206:
                raise HubError(f"{endpoint()} ignored a Range request for {filename} of model {str(ref)!r}")
            data = bytearray()
            for chunk in response.iter_bytes():
                data += chunk
                if len(data) > wanted:
                    break
    except Exception as error:
        raise explain(error, ref, filename) from error
    if len(data) != wanted:
        raise HubError(f"{endpoint()} sent {len(data)} bytes of {filename} of model {str(ref)!r} for {wanted} asked")
    return bytes(data)


def _as_table(ref, name, kind, shape, data, max_elements, device, dtype) -> torch.Tensor:
    """The bytes as a one-tensor safetensors file, read by :func:`posenc_core.encodings.learned.load_table`."""
    header = json.dumps({name: {"dtype": kind, "shape": shape, "data_offsets": [0, len(data)]}}).encode()
    header += b" " * (-len(header) % 8)
    packed = struct.pack("<Q", len(header)) + header + data
    try:
        return learned.load_table(
            (packed, f"{ref.repo_id.replace('/', '--')}.safetensors"),
            key=name,
            max_elements=max_elements,
            device=device,
            dtype=dtype,
        )
    except ValueError as error:
        raise HubError(f"model {str(ref)!r}: {error}") from error
