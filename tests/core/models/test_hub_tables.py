"""posenc_core.models.hub_tables: a position table by model id reads the safetensors header and that one tensor only."""

from __future__ import annotations

import json
import struct

import pytest
import torch
from safetensors.torch import save

from posenc_core.models import hub as hub_core
from posenc_core.models import hub_tables
from tests.hub_fixture import serve_hub

GPT = "openai-community/gpt2-tiny"


@pytest.fixture
def hub(tmp_path, monkeypatch):
    yield from serve_hub(tmp_path, monkeypatch)


def checkpoint(tensors: dict[str, torch.Tensor]) -> tuple[bytes, int]:
    """A real safetensors file and its header length."""
    data = save(tensors)
    return data, struct.unpack("<Q", data[:8])[0]


def gpt_like(generator_seed: int = 0) -> dict[str, torch.Tensor]:
    generator = torch.Generator().manual_seed(generator_seed)
    return {
        "transformer.wte.weight": torch.randn(1024, 1024, generator=generator),  # 4 MiB never to be read
        "transformer.wpe.weight": torch.randn(96, 40, generator=generator),
        "transformer.h.0.ln_1.bias": torch.zeros(40),
    }


def test_only_the_header_and_the_table_are_read(hub):
    tensors = gpt_like()
    data, header_length = checkpoint(tensors)
    hub.add(GPT, "model.safetensors", data)
    fetched = hub_tables.fetch_position_table(GPT, device="cpu")
    assert torch.equal(fetched.table, tensors["transformer.wpe.weight"])
    assert (fetched.tensor, fetched.filename, fetched.dtype) == ("transformer.wpe.weight", "model.safetensors", "F32")
    table_bytes = 96 * 40 * 4
    assert hub.stub.sent_for("model.safetensors") == 8 + header_length + table_bytes
    assert hub.stub.sent_for("model.safetensors") < len(data) // 100
    ranges = [rng for method, _, rng, *_ in hub.stub.requests if method == "GET"]
    assert len(ranges) == 3 and all(rng and rng.startswith("bytes=") for rng in ranges)
    assert fetched.label == f"{GPT}:transformer.wpe.weight"


def test_half_precision_and_vit_style_tables(hub):
    table = torch.randn(17, 8)
    hub.add("org/vit", "model.safetensors", checkpoint({"vit.embeddings.position_embeddings": table[None]})[0])
    assert torch.equal(hub_tables.fetch_position_table("org/vit").table, table)
    half = {"bert.embeddings.position_embeddings.weight": table.to(torch.bfloat16), "x": torch.randn(3, 3)}
    hub.add("org/bert", "model.safetensors", checkpoint(half)[0])
    fetched = hub_tables.fetch_position_table("org/bert")
    assert fetched.dtype == "BF16" and fetched.table.dtype == torch.float32
    assert torch.equal(fetched.table, table.to(torch.bfloat16).float())


def test_a_sharded_checkpoint_reads_the_one_shard_that_holds_the_table(hub):
    first = {"model.layers.0.weight": torch.randn(512, 512)}
    second = {"model.decoder.embed_positions.weight": torch.randn(34, 16)}
    hub.add("facebook/opt-tiny", "model-00001-of-00002.safetensors", checkpoint(first)[0])
    data, header_length = checkpoint(second)
    hub.add("facebook/opt-tiny", "model-00002-of-00002.safetensors", data)
    weight_map = {"model.layers.0.weight": "model-00001-of-00002.safetensors"}
    weight_map["model.decoder.embed_positions.weight"] = "model-00002-of-00002.safetensors"
    hub.add("facebook/opt-tiny", "model.safetensors.index.json", {"metadata": {}, "weight_map": weight_map})
    fetched = hub_tables.fetch_position_table("facebook/opt-tiny")
    assert torch.equal(fetched.table, second["model.decoder.embed_positions.weight"])
    assert fetched.filename == "model-00002-of-00002.safetensors"
    assert hub.stub.sent_for("model-00001-of-00002.safetensors") == 0
    assert hub.stub.sent_for("model-00002-of-00002.safetensors") == 8 + header_length + 34 * 16 * 4


def test_several_tables_are_listed_and_one_can_be_named(hub):
    tensors = {
        "model.encoder.embed_positions.weight": torch.randn(20, 8),
        "model.decoder.embed_positions.weight": torch.randn(22, 8),
    }
    hub.add("facebook/bart-tiny", "model.safetensors", checkpoint(tensors)[0])
    several = "several position tables; name one: 'model.decoder.embed_positions.weight', 'model.encoder"
    with pytest.raises(hub_core.HubError, match=several):
        hub_tables.fetch_position_table("facebook/bart-tiny")
    named = hub_tables.fetch_position_table("facebook/bart-tiny", tensor="model.decoder.embed_positions.weight")
    assert torch.equal(named.table, tensors["model.decoder.embed_positions.weight"])
    with pytest.raises(hub_core.HubError, match="has no tensor 'wpe.weight'; its position tables: 'model.decoder"):
        hub_tables.fetch_position_table("facebook/bart-tiny", tensor="wpe.weight")


def test_a_model_without_a_position_table_lists_its_tensors(hub):
    hub.add("org/rope-model", "model.safetensors", checkpoint({"q.weight": torch.randn(4, 4)})[0])
    with pytest.raises(hub_core.HubError, match="no tensor named like a position table .*its tensors: 'q.weight'"):
        hub_tables.fetch_position_table("org/rope-model")


def test_a_table_too_large_is_refused_before_its_bytes_are_fetched(hub):
    data, header_length = checkpoint(gpt_like())
    hub.add(GPT, "model.safetensors", data)
    with pytest.raises(hub_core.HubError, match="96 x 40 = 3840 values is more than max_elements = 1000"):
        hub_tables.fetch_position_table(GPT, max_elements=1000)
    assert hub.stub.sent_for("model.safetensors") == 8 + header_length


def test_a_table_that_is_not_finite_or_not_2d_is_refused(hub):
    hub.add("org/nan", "model.safetensors", checkpoint({"wpe.weight": torch.full((4, 4), float("nan"))})[0])
    with pytest.raises(hub_core.HubError, match="model 'org/nan'.*NaN or inf"):
        hub_tables.fetch_position_table("org/nan")
    hub.add("org/flat", "model.safetensors", checkpoint({"wpe.weight": torch.randn(16)})[0])
    with pytest.raises(hub_core.HubError, match="must be 2-D"):
        hub_tables.fetch_position_table("org/flat")


def test_a_model_without_safetensors_or_with_a_broken_header_is_a_message(hub):
    hub.add("org/old", "pytorch_model.bin", b"\0" * 64)
    with pytest.raises(hub_core.HubError, match="neither model.safetensors nor model.safetensors.index.json"):
        hub_tables.fetch_position_table("org/old")
    hub.add("org/junk", "model.safetensors", struct.pack("<Q", 10**12) + b"{}")
    with pytest.raises(hub_core.HubError, match="not a safetensors file"):
        hub_tables.fetch_position_table("org/junk")
    hub.add("org/badjson", "model.safetensors", struct.pack("<Q", 4) + b"{no}")
    with pytest.raises(hub_core.HubError, match="not valid JSON"):
        hub_tables.fetch_position_table("org/badjson")
    header = json.dumps({"wpe.weight": {"dtype": "F32", "shape": [4, 4], "data_offsets": [0, 8]}}).encode()
    hub.add("org/lying", "model.safetensors", struct.pack("<Q", len(header)) + header + b"\0" * 8)
    with pytest.raises(hub_core.HubError, match="byte range that does not fit its shape"):
        hub_tables.fetch_position_table("org/lying")


def test_errors_name_the_model_as_for_a_config(hub, monkeypatch):
    hub.add("org/gated", "model.safetensors", checkpoint({"wpe.weight": torch.randn(4, 4)})[0])
    hub.gate("org/gated", "hf_ok")
    with pytest.raises(hub_core.GatedRepo, match="'org/gated' is gated"):
        hub_tables.fetch_position_table("org/gated")
    monkeypatch.setenv("HF_TOKEN", "hf_ok")
    assert hub_tables.fetch_position_table("org/gated").table.shape == (4, 4)
    with pytest.raises(hub_core.RepoNotFound, match="'org/absent' was not found"):
        hub_tables.fetch_position_table("org/absent")
    with pytest.raises(hub_core.RevisionNotFound, match="no revision 'v3'"):
        hub_tables.fetch_position_table("org/gated@v3")
    with pytest.raises(hub_core.HubError, match="tensor must be a tensor name"):
        hub_tables.fetch_position_table("org/gated", tensor="  ")


def test_a_broken_index_or_header_entry_is_a_message(hub):
    hub.add("org/bad-index", "model.safetensors.index.json", {"weight_map": ["not", "a", "mapping"]})
    with pytest.raises(hub_core.HubError, match="model.safetensors.index.json is not a safetensors index"):
        hub_tables.fetch_position_table("org/bad-index")
    hub.add("org/stale-index", "model-1.safetensors", checkpoint({"other.weight": torch.randn(2, 2)})[0])
    hub.add("org/stale-index", "model.safetensors.index.json", {"weight_map": {"wpe.weight": "model-1.safetensors"}})
    with pytest.raises(hub_core.HubError, match="puts 'wpe.weight' in 'model-1.safetensors', whose header lacks it"):
        hub_tables.fetch_position_table("org/stale-index")
    for repo, header, words in [
        ("org/list-header", [], "not a JSON object"),
        ("org/no-shape", {"wpe.weight": {"dtype": "F32", "data_offsets": [0, 4]}}, "entry of 'wpe.weight' is malfor"),
        ("org/ints", {"wpe.weight": {"dtype": "I64", "shape": [2, 2], "data_offsets": [0, 32]}}, "has dtype I64"),
    ]:
        text = json.dumps(header).encode()
        hub.add(repo, "model.safetensors", struct.pack("<Q", len(text)) + text + b"\0" * 32)
        with pytest.raises(hub_core.HubError, match=words):
            hub_tables.fetch_position_table(repo)


def test_a_server_that_ignores_range_or_fails_is_a_message(hub):
    data, _ = checkpoint(gpt_like())
    hub.add("org/no-range", "model.safetensors", data)
    (hub.root / "org" / "no-range" / ".no-range").touch()
    with pytest.raises(hub_core.HubError, match="ignored a Range request for model.safetensors of model 'org/no-ra"):
        hub_tables.fetch_position_table("org/no-range")
    hub.add("org/down", "model.safetensors", data)
    (hub.root / "org" / "down" / ".status").write_text("502")
    with pytest.raises(hub_core.HubUnreachable, match="'model.safetensors' of model 'org/down'"):
        hub_tables.fetch_position_table("org/down")
