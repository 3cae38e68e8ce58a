"""posenc_core.models.hub's messages are read by learners on a shared server: they say what failed, never a server
path."""

from __future__ import annotations

from huggingface_hub import errors

from posenc_core.models import hub as hub_core


def test_hub_unreachable_says_nothing_is_cached_without_the_cache_path(tmp_path, monkeypatch):
    cache = tmp_path / "srv-secret-cache"
    monkeypatch.setenv("HF_HUB_CACHE", str(cache))
    error = hub_core.explain(errors.LocalEntryNotFoundError("offline"), hub_core.parse_model_id("org/m"), "config.json")
    assert isinstance(error, hub_core.HubUnreachable)
    assert "nothing cached on the server" in str(error) and "HF_ENDPOINT" in str(error)
    assert "srv-secret-cache" not in str(error) and str(tmp_path) not in str(error)


def test_a_file_system_error_is_said_without_its_path(tmp_path):
    failure = PermissionError(13, "Permission denied", str(tmp_path / "srv-secret-cache" / "lock"))
    error = hub_core.explain(failure, hub_core.parse_model_id("org/m"), "config.json")
    assert isinstance(error, hub_core.HubError) and "Permission denied" in str(error)
    assert "srv-secret-cache" not in str(error)
