"""Models by Hugging Face id: fetch a model's ``config.json`` from the Hub and read it with
:func:`posenc_core.models.hf_config.from_hf_config`, the same reader as an uploaded file.

An id is ``name`` or ``org/name``, optionally ``@revision`` (a branch, tag or commit): ``gpt2``,
``meta-llama/Llama-3.1-8B``, ``Qwen/Qwen2.5-7B-Instruct@main``; a ``https://huggingface.co/org/name[/tree/rev]``
address is read the same way. Files come through ``huggingface_hub.hf_hub_download``, so they land in the Hugging
Face cache and a second fetch sends only a HEAD; offline, a cached file is used (and a file not cached fails at
once, after one HEAD, instead of after hf_hub_download's retries). The environment is read at each
call, not at import: ``HF_ENDPOINT`` (a mirror or a test server), ``HF_TOKEN`` (gated and private repos),
``HF_HUB_CACHE`` / ``HF_HOME`` (the cache).

Every failure is a :class:`HubError` (a ``ValueError``) that names the id and says what to do: a malformed id, a
missing repo, revision or file, a gated repo without a token that opens it, no network and nothing cached.

Ref: huggingface_hub ``file_download.hf_hub_download`` and ``utils._http.hf_raise_for_status`` (the
``X-Error-Code`` header: RepoNotFound, RevisionNotFound, EntryNotFound, GatedRepo).
"""

from __future__ import annotations

import dataclasses
import os
import re
from dataclasses import dataclass
from pathlib import Path

from huggingface_hub import (
    constants,
    errors,
    get_hf_file_metadata,
    get_token,
    hf_hub_download,
    hf_hub_url,
    try_to_load_from_cache,
)

from posenc_core.models.hf_config import ConfigReading, from_hf_config

MAX_CONFIG_BYTES = 1_000_000
"""A config.json larger than this is refused (real ones are a few kB)."""

_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,95}")  # one part of a repo id (the Hub's rule, 96 characters)
_REVISION = re.compile(r"[A-Za-z0-9][A-Za-z0-9._/-]{0,254}")


class HubError(ValueError):
    """A model id that could not be fetched; the message names the id and says why."""


class ModelIdError(HubError):
    """The text is not a model id."""


class RepoNotFound(HubError):
    """No such model repository (or a private one without a token)."""


class RevisionNotFound(HubError):
    """The repository has no such branch, tag or commit."""


class EntryNotFound(HubError):
    """The repository has no such file at that revision."""


class GatedRepo(HubError):
    """The repository is gated and the request carried no token that opens it."""


class HubUnreachable(HubError):
    """The Hub could not be reached (or answered with a server error) and nothing was cached."""


@dataclass(frozen=True)
class ModelRef:
    """A model on the Hub: ``repo_id`` and the ``revision`` asked for (None: the default branch, ``main``)."""

    repo_id: str
    revision: str | None = None

    def __str__(self) -> str:
        return self.repo_id + (f"@{self.revision}" if self.revision else "")

    @property
    def page(self) -> str:
        """The model's page on the endpoint in use."""
        return f"{endpoint()}/{self.repo_id}"


def parse_model_id(text: str) -> ModelRef:
    """``'org/name@revision'`` (or a Hub address) as a :class:`ModelRef`; a :class:`ModelIdError` says what is wrong."""
    if not isinstance(text, str):
        raise ModelIdError(f"model id must be text like 'org/name' (got {type(text).__name__})")
    raw = text.strip()
    spec = re.sub(r"^https?://[^/]+/", "", raw)
    if spec != raw and "/tree/" in spec:  # an address: .../org/name/tree/revision
        spec = "@".join(spec.split("/tree/", 1))
    repo_id, at, revision = spec.partition("@")
    repo_id = repo_id.strip("/")
    parts = repo_id.split("/")
    problem = None
    if not repo_id:
        problem = "it is empty"
    elif len(parts) > 2:
        problem = "it has more than one '/'"
    elif not all(_NAME.fullmatch(part) for part in parts):
        problem = "a name is 1 to 96 letters, digits, '.', '_' or '-', starting with a letter or digit"
    elif any("--" in part or ".." in part or part.endswith((".", "-")) for part in parts):
        problem = "a name may not hold '--' or '..' nor end with '.' or '-'"
    elif at and (not _REVISION.fullmatch(revision) or ".." in revision):
        problem = f"the revision {revision!r} after '@' is not a branch, tag or commit name"
    if problem is not None:
        raise ModelIdError(
            f"model id {raw!r} is not a Hugging Face model id ({problem}): expected 'name' or 'org/name', "
            "optionally followed by '@revision', e.g. 'Qwen/Qwen2.5-7B-Instruct@main'"
        )
    return ModelRef(repo_id, revision or None)


def endpoint() -> str:
    """The Hub in use: ``HF_ENDPOINT`` as set now, else huggingface_hub's (https://huggingface.co)."""
    return (os.environ.get("HF_ENDPOINT") or constants.ENDPOINT).rstrip("/")


def cache_dir() -> str:
    """The Hugging Face cache in use: ``HF_HUB_CACHE``, else ``$HF_HOME/hub``, else huggingface_hub's default."""
    if os.environ.get("HF_HUB_CACHE"):
        return os.environ["HF_HUB_CACHE"]
    if os.environ.get("HF_HOME"):
        return os.path.join(os.environ["HF_HOME"], "hub")
    return constants.HF_HUB_CACHE


def download(ref: ModelRef, filename: str) -> Path:
    """One file of the model, through the Hugging Face cache (``hf_hub_download``); errors as :class:`HubError`."""
    try:
        if try_to_load_from_cache(ref.repo_id, filename, cache_dir=cache_dir(), revision=ref.revision) is None:
            # nothing cached: one HEAD without retries first, so no network fails in a second, not after
            # hf_hub_download's five retries (about 25 s)
            get_hf_file_metadata(hf_hub_url(ref.repo_id, filename, revision=ref.revision, endpoint=endpoint()))
        return Path(
            hf_hub_download(ref.repo_id, filename, revision=ref.revision, endpoint=endpoint(), cache_dir=cache_dir())
        )
    except Exception as error:
        raise explain(error, ref, filename) from error


def explain(error: BaseException, ref: ModelRef, filename: str) -> BaseException:
    """The :class:`HubError` that says, in a user's words, why fetching ``filename`` of ``ref`` failed (an error
    that is not about the Hub is returned as it is)."""
    where = endpoint()
    revision = ref.revision or "main"
    if isinstance(error, HubError):
        return error
    if isinstance(error, errors.LocalEntryNotFoundError) and _status(error.__cause__) is not None:
        return explain(error.__cause__, ref, filename)  # the Hub answered, with an error: say which
    if isinstance(error, errors.HFValidationError):
        return ModelIdError(f"model id {str(ref)!r} is not a Hugging Face model id: {error}")
    if isinstance(error, errors.GatedRepoError) or _status(error) == 403:
        if get_token():
            return GatedRepo(
                f"model {ref.repo_id!r} is gated and the token in use (HF_TOKEN) has no access to it: accept its "
                f"terms on {ref.page} with that account"
            )
        return GatedRepo(
            f"model {ref.repo_id!r} is gated: accept its terms on {ref.page}, then set HF_TOKEN to an access token "
            "of that account"
        )
    if isinstance(error, errors.RepositoryNotFoundError) or _status(error) == 401:
        return RepoNotFound(
            f"model {ref.repo_id!r} was not found on {where} (check the spelling; a private model also needs HF_TOKEN)"
        )
    if isinstance(error, errors.RevisionNotFoundError):
        return RevisionNotFound(f"model {ref.repo_id!r} has no revision {revision!r} (a branch, tag or commit)")
    if isinstance(error, errors.LocalEntryNotFoundError | errors.OfflineModeIsEnabled) or _unreachable(error):
        return HubUnreachable(
            f"cannot fetch {filename!r} of model {str(ref)!r}: {where} could not be reached (or failed) and there is "
            "nothing cached on the server; check the connection, or HF_ENDPOINT"
        )
    if isinstance(error, errors.EntryNotFoundError):
        return EntryNotFound(f"model {ref.repo_id!r} has no file {filename!r} at revision {revision!r}")
    if _status(error) is not None:
        return HubError(f"{where} refused {filename!r} of model {str(ref)!r} (HTTP {_status(error)})")
    if isinstance(error, OSError):  # its text would name a server path: say what failed, not where
        return HubError(f"cannot fetch {filename!r} of model {str(ref)!r}: {error.strerror or type(error).__name__}")
    return error


def _unreachable(error: BaseException) -> bool:
    """A transport failure (no connection, a timeout) or a server-side one (429, 5xx), whatever the HTTP client."""
    status = _status(error)
    if status is not None:
        return status == 429 or status >= 500
    return type(error).__module__.split(".")[0] in ("httpx", "httpx2", "requests", "urllib3", "socket", "ssl") or (
        isinstance(error, ConnectionError | TimeoutError)
    )


def _status(error: BaseException) -> int | None:
    response = getattr(error, "response", None)
    return getattr(response, "status_code", None)


@dataclass(frozen=True)
class HubConfig:
    """A fetched ``config.json``: the model, the commit it was read at, the cached file and its text."""

    ref: ModelRef
    commit: str | None
    path: Path
    text: str


def fetch_config(model_id: str | ModelRef) -> HubConfig:
    """The ``config.json`` of a model id (see :func:`parse_model_id`), fetched or taken from the cache."""
    ref = model_id if isinstance(model_id, ModelRef) else parse_model_id(model_id)
    path = download(ref, "config.json")
    if path.stat().st_size > MAX_CONFIG_BYTES:
        raise HubError(f"config.json of model {str(ref)!r} is larger than {MAX_CONFIG_BYTES:,} bytes: not a config")
    commit = path.parent.name if re.fullmatch(r"[0-9a-f]{40}", path.parent.name) else None
    try:
        text = path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as error:
        raise HubError(f"config.json of model {str(ref)!r} is not UTF-8 text") from error
    return HubConfig(ref, commit, path, text)


def read_model_config(model_id: str | ModelRef) -> ConfigReading:
    """:func:`~posenc_core.models.hf_config.from_hf_config` of a model's ``config.json``, named by its id (see
    :func:`read_config`)."""
    return read_config(fetch_config(model_id))


def read_config(fetched: HubConfig) -> ConfigReading:
    """What the config reader makes of a fetched ``config.json``: the preset's ``name`` is the repo id and its
    ``source`` says where and at which commit it was read; every other field is what the reader makes of the file.
    A config the reader rejects raises a :class:`HubError` naming the id."""
    try:
        reading = from_hf_config(fetched.text)
    except ValueError as error:
        raise HubError(f"config.json of model {str(fetched.ref)!r}: {error}") from error
    commit = f", commit {fetched.commit[:12]}" if fetched.commit else ""
    source = f"{fetched.ref.page} config.json (revision {fetched.ref.revision or 'main'}{commit})"
    preset = dataclasses.replace(reading.preset, name=fetched.ref.repo_id, source=source)
    return dataclasses.replace(reading, preset=preset)
