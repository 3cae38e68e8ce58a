"""posenc_core.models.hub: a model's config.json by Hugging Face id, against the loopback Hub stub
(tests/hub_stub.py)."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from posenc_core.models import hub as hub_core
from posenc_core.models.hf_config import from_hf_config
from tests.hub_fixture import serve_hub
from tests.hub_stub import commit_of

CONFIGS = Path(__file__).resolve().parents[2] / "fixtures" / "configs"
LLAMA = "meta-llama/Llama-3.1-8B"


@pytest.fixture
def hub(tmp_path, monkeypatch):
    yield from serve_hub(tmp_path, monkeypatch)


@pytest.mark.parametrize(
    ("text", "repo_id", "revision"),
    [
        ("gpt2", "gpt2", None),
        (" meta-llama/Llama-3.1-8B ", "meta-llama/Llama-3.1-8B", None),
        ("Qwen/Qwen2.5-7B-Instruct@main", "Qwen/Qwen2.5-7B-Instruct", "main"),
        ("org/model@refs/pr/3", "org/model", "refs/pr/3"),
        ("https://huggingface.co/Qwen/Qwen2.5-7B-Instruct", "Qwen/Qwen2.5-7B-Instruct", None),
        ("https://huggingface.co/org/model/tree/v1.0", "org/model", "v1.0"),
    ],
)
def test_a_model_id_is_a_repo_and_an_optional_revision(text, repo_id, revision):
    ref = hub_core.parse_model_id(text)
    assert (ref.repo_id, ref.revision) == (repo_id, revision)
    assert str(ref) == repo_id + (f"@{revision}" if revision else "")


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("", "empty"),
        ("a/b/c", "more than one '/'"),
        ("meta llama/Llama", "letters, digits"),
        ("org/-model", "letters, digits"),
        ("org--x/model", "'--'"),
        ("org/model.", "end with"),
        ("org/model@", "revision ''"),
        ("org/model@../x", "revision '../x'"),
    ],
)
def test_a_malformed_id_is_a_message_naming_it(text, words):
    with pytest.raises(hub_core.ModelIdError, match=words) as caught:
        hub_core.parse_model_id(text)
    assert repr(text.strip()) in str(caught.value) and "org/name" in str(caught.value)
    assert isinstance(caught.value, ValueError)


def test_the_fetched_config_reads_as_the_file_does(hub):
    text = (CONFIGS / "llama-3.1-8b.json").read_text()
    hub.add(LLAMA, "config.json", text)
    fetched = hub_core.read_model_config(LLAMA)
    from_file = from_hf_config(text)
    assert fetched.preset.name == LLAMA and fetched.preset.name != from_file.preset.name
    assert dataclasses.replace(fetched.preset, name=from_file.preset.name, source=from_file.preset.source) == (
        from_file.preset
    )
    assert (fetched.read, fetched.unread) == (from_file.read, from_file.unread)
    assert fetched.preset.source.startswith(f"{hub.url}/{LLAMA} config.json (revision main")
    assert commit_of(LLAMA, "main")[:12] in fetched.preset.source


def test_a_revision_reads_that_revision(hub):
    hub.add(LLAMA, "config.json", (CONFIGS / "llama-3.1-8b.json").read_text())
    hub.add(LLAMA, "config.json", (CONFIGS / "llama-2-7b.json").read_text(), revision="v2")
    assert hub_core.read_model_config(LLAMA).preset.rope_theta == 500000.0
    old = hub_core.read_model_config(f"{LLAMA}@v2")
    assert old.preset == dataclasses.replace(
        from_hf_config((CONFIGS / "llama-2-7b.json").read_text()).preset, name=LLAMA, source=old.preset.source
    )
    assert "revision v2" in old.preset.source and commit_of(LLAMA, "v2")[:12] in old.preset.source
    fetched = hub_core.fetch_config(hub_core.parse_model_id(f"{LLAMA}@{commit_of(LLAMA, 'v2')}"))
    assert fetched.commit == commit_of(LLAMA, "v2") and json.loads(fetched.text) == json.loads(
        (CONFIGS / "llama-2-7b.json").read_text()
    )


def test_the_second_fetch_comes_from_the_cache(hub):
    hub.add(LLAMA, "config.json", (CONFIGS / "llama-3.1-8b.json").read_text())
    first = hub_core.fetch_config(LLAMA)
    second = hub_core.fetch_config(LLAMA)
    assert hub.stub.gets("config.json") == 1, hub.stub.requests
    assert first.path == second.path and str(first.path).startswith(str(hub.cache))
    hub.stub.stop()  # offline now: the cached file still reads
    assert hub_core.read_model_config(LLAMA).preset.hidden_size == 4096


@pytest.mark.parametrize(
    ("model_id", "error", "words"),
    [
        ("nobody/nothing", hub_core.RepoNotFound, "model 'nobody/nothing' was not found on"),
        (f"{LLAMA}@v9", hub_core.RevisionNotFound, f"model '{LLAMA}' has no revision 'v9'"),
        ("org/weights-only", hub_core.EntryNotFound, "model 'org/weights-only' has no file 'config.json'"),
    ],
)
def test_what_is_missing_is_said_with_the_id(hub, model_id, error, words):
    hub.add(LLAMA, "config.json", "{}")
    hub.add("org/weights-only", "model.safetensors", b"\0" * 16)
    with pytest.raises(error, match=words):
        hub_core.read_model_config(model_id)


def test_a_gated_model_needs_a_token_that_opens_it(hub, monkeypatch):
    hub.add("meta-llama/Gated", "config.json", (CONFIGS / "llama-3.1-8b.json").read_text())
    hub.gate("meta-llama/Gated", "hf_right")
    with pytest.raises(hub_core.GatedRepo, match="'meta-llama/Gated' is gated: accept its terms on .* set HF_TOKEN"):
        hub_core.read_model_config("meta-llama/Gated")
    monkeypatch.setenv("HF_TOKEN", "hf_wrong")
    with pytest.raises(hub_core.GatedRepo, match=r"the token in use \(HF_TOKEN\) has no access"):
        hub_core.read_model_config("meta-llama/Gated")
    assert [status for *_, status, _ in hub.stub.requests[-1:]] == [403]
    monkeypatch.setenv("HF_TOKEN", "hf_right")  # read at call time
    assert hub_core.read_model_config("meta-llama/Gated").preset.hidden_size == 4096


def test_no_network_and_nothing_cached_is_a_message(hub):
    hub.stub.stop()
    with pytest.raises(hub_core.HubUnreachable, match=f"model '{LLAMA}'.*could not be reached.*HF_ENDPOINT"):
        hub_core.read_model_config(LLAMA)


def test_the_environment_is_read_at_call_time(monkeypatch, tmp_path):
    monkeypatch.setenv("HF_ENDPOINT", "http://127.0.0.1:9/")
    monkeypatch.setenv("HF_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("HF_HUB_CACHE", raising=False)
    assert hub_core.endpoint() == "http://127.0.0.1:9"
    assert hub_core.cache_dir() == str(tmp_path / "home" / "hub")
    assert hub_core.parse_model_id("org/m").page == "http://127.0.0.1:9/org/m"


def test_a_config_the_reader_rejects_names_the_model(hub):
    hub.add("org/odd", "config.json", {"model_type": "llama", "hidden_size": 64})
    with pytest.raises(hub_core.HubError, match="config.json of model 'org/odd': config has no number of attention"):
        hub_core.read_model_config("org/odd")
    hub.add("org/huge", "config.json", b" " * (hub_core.MAX_CONFIG_BYTES + 1))
    with pytest.raises(hub_core.HubError, match="larger than"):
        hub_core.read_model_config("org/huge")


def test_a_failing_server_is_said_as_such(hub):
    hub.add("org/down", "config.json", "{}")
    (hub.root / "org" / "down" / ".status").write_text("503")
    with pytest.raises(hub_core.HubUnreachable, match=r"'config.json' of model 'org/down'.*could not be reached"):
        hub_core.read_model_config("org/down")
    (hub.root / "org" / "down" / ".status").write_text("418")
    with pytest.raises(hub_core.HubError, match=r"refused 'config.json' of model 'org/down' \(HTTP 418\)"):
        hub_core.read_model_config("org/down")


def test_odd_inputs_are_messages(hub, monkeypatch):
    with pytest.raises(hub_core.ModelIdError, match="must be text like 'org/name' \\(got int\\)"):
        hub_core.parse_model_id(42)
    hub.add("org/latin1", "config.json", '{"name": "caf\xe9"}'.encode("latin-1"))
    with pytest.raises(hub_core.HubError, match="config.json of model 'org/latin1' is not UTF-8"):
        hub_core.read_model_config("org/latin1")
    monkeypatch.delenv("HF_HUB_CACHE")
    monkeypatch.delenv("HF_HOME")
    assert hub_core.cache_dir() == hub_core.constants.HF_HUB_CACHE
