"""Models by Hugging Face id in the app: the sidebar's model-id box (bound to ``?model=``) and the Learned page's
position table by id (bound to ``?table_model=`` and ``?table_tensor=``).

Fetches go through :mod:`posenc_core.models.hub` and :mod:`posenc_core.models.hub_tables` (HF_ENDPOINT, HF_TOKEN and the
Hugging Face cache apply) and are cached per id, revision and endpoint with ``st.cache_data``; a failure is never
cached, so a retry after fixing the network or the token fetches again. Every error shows in place as a message.
"""

from __future__ import annotations

from typing import NamedTuple

import streamlit as st
import torch

from posenc import i18n
from posenc.drawing.plain_text import shorten
from posenc.i18n import N_, _
from posenc.ui import echo, link, tables
from posenc_core.models import hub, hub_tables
from posenc_core.models.hf_config import ConfigReading

CONFIG_KEY, CONFIG_QUERY = "config_model", "model"
TABLE_KEY, TABLE_QUERY, TENSOR_KEY, TENSOR_QUERY = "table_model", "table_model", "table_tensor", "table_tensor"
EXAMPLE = "meta-llama/Llama-3.1-8B"

# In Korean and Chinese a fetch error is said in the reader's language by its kind; English shows the core's own
# message, which also names the endpoint, the status or the file.
SUMMARIES: dict[type[hub.HubError], str] = {
    hub.ModelIdError: N_("{model!r} is not a model id: write it as org/name, with @revision for a branch or tag."),
    hub.RepoNotFound: N_("The Hub has no model {model!r} (a private one needs HF_TOKEN on the server)."),
    hub.RevisionNotFound: N_("Model {model!r} has no such revision (branch, tag or commit)."),
    hub.EntryNotFound: N_("Model {model!r} has no such file at this revision."),
    hub.GatedRepo: N_(
        "Model {model!r} is gated: the server needs the HF_TOKEN of an account that accepted its licence."
    ),
    hub.HubUnreachable: N_(
        "The Hugging Face Hub could not be reached and {model!r} is not in the cache: check the connection, "
        "or HF_ENDPOINT."
    ),
}


def show_error(error: ValueError, model_id: str) -> None:
    """The fetch error in place: by its kind in the reader's language, or the core's message in English."""
    if i18n.current() != i18n.DEFAULT:
        for kind, summary in SUMMARIES.items():
            if isinstance(error, kind):
                st.error(echo.plain(_(summary).format(model=shorten(model_id))), icon="🚫")
                return
    st.error(echo.plain(for_readers(str(error))), icon="🚫")  # the id may come from a link: plain text, shortened


def for_readers(message: str) -> str:
    """A Hub message as any reader may see it: the server's ``HF_ENDPOINT`` (a private mirror's address) is
    named "the Hub", never shown (the command line, run by the operator, shows it)."""
    where = hub.endpoint()
    return message.replace(f"{where}/", "the Hub's page ").replace(where, "the Hub")


@st.cache_data(max_entries=64, ttl=3600, show_spinner=False)
def _fetched_config(repo_id: str, revision: str | None, endpoint: str) -> hub.HubConfig:
    """The config.json of a model (``endpoint`` keys the cache: HF_ENDPOINT may change between runs)."""
    return hub.fetch_config(hub.ModelRef(repo_id, revision))


@st.cache_data(max_entries=4, ttl=3600, show_spinner=False)
def _fetched_table(repo_id: str, revision: str | None, tensor: str | None, endpoint: str) -> tuple[str, torch.Tensor]:
    """(tensor name, CPU table) of a model's position table."""
    fetched = hub_tables.fetch_position_table(hub.ModelRef(repo_id, revision), tensor=tensor, device="cpu")
    return fetched.tensor, fetched.table


MAX_ID_CHARS = 200
"""Longest model id, revision or tensor name a box takes (a Hub repo id is at most 96 characters)."""


def _restore(key: str, query: str) -> None:
    """Fill the box from the link once, when the session opens on a shared link (at most :data:`MAX_ID_CHARS`)."""
    if key not in st.session_state and query in st.query_params:
        st.session_state[key] = st.query_params[query][:MAX_ID_CHARS]


def _bind(query: str, value: str) -> None:
    if value:
        link.put(query, value)
    else:
        link.drop(query)


def config_model_box() -> str:
    """The sidebar's model-id box; the id typed (stripped), kept in ``?model=``."""
    _restore(CONFIG_KEY, CONFIG_QUERY)
    value = st.text_input(
        _("…or a model id on the Hugging Face Hub"),
        key=CONFIG_KEY,
        placeholder=EXAMPLE,
        max_chars=MAX_ID_CHARS,
        help=_(
            "org/name, optionally @revision (a branch, tag or commit). Its config.json is fetched once and cached; "
            "a gated model needs HF_TOKEN set where the app runs."
        ),
    ).strip()
    _bind(CONFIG_QUERY, value)
    return value


def forget_config_model() -> None:
    """Take ``?model=`` out of the link (another source of config is in use)."""
    _bind(CONFIG_QUERY, "")


def read_config_model(model_id: str) -> ConfigReading | None:
    """What the config reader makes of the model's config.json, or None after showing why it could not be read."""
    try:
        ref = hub.parse_model_id(model_id)
        with st.spinner(_("Fetching the config.json of {model}…").format(model=ref.repo_id)):
            fetched = _fetched_config(ref.repo_id, ref.revision, hub.endpoint())
        return hub.read_config(fetched)
    except ValueError as error:
        show_error(error, model_id)
        return None


def open_table_link() -> None:
    """A link naming a model's table (``?table_model=``) and no table source opens on the upload source, where the
    model-id box is."""
    if TABLE_QUERY in st.query_params and "table_source" not in st.query_params:
        st.query_params["table_source"] = "upload"


def forget_table_model() -> None:
    """Take ``?table_model=`` and ``?table_tensor=`` out of the link (another table source is in use)."""
    _bind(TABLE_QUERY, "")
    _bind(TENSOR_QUERY, "")


class FetchedTable(NamedTuple):
    sha256: str  # the ``upload_sha256`` parameter the figures read the table by
    name: str  # org/name:tensor
    shape: tuple[int, int]


def table_box() -> FetchedTable | None:
    """The Learned page's model-id box (and tensor name); the table it names, kept in this session's tables like an
    upload (the fetch itself is cached for every session: it is public), or None (with a message in place when the id
    or tensor cannot be read)."""
    _restore(TABLE_KEY, TABLE_QUERY)
    _restore(TENSOR_KEY, TENSOR_QUERY)
    left, right = st.columns([3, 2])
    model_id = left.text_input(
        _("…or the position table of a model on the Hugging Face Hub"),
        key=TABLE_KEY,
        placeholder="openai-community/gpt2",
        max_chars=MAX_ID_CHARS,
        help=_(
            "Only the table is fetched (a few MB), never the whole checkpoint: the safetensors header, then that "
            "one tensor."
        ),
    ).strip()
    tensor = right.text_input(
        _("Tensor (optional)"),
        key=TENSOR_KEY,
        placeholder="transformer.wpe.weight",
        max_chars=MAX_ID_CHARS,
        help=_("Empty: the one tensor named like a position table (wpe.weight, position_embeddings.weight, …)."),
    ).strip()
    _bind(TABLE_QUERY, model_id)
    _bind(TENSOR_QUERY, tensor)
    if not model_id:
        return None
    try:
        ref = hub.parse_model_id(model_id)
        with st.spinner(_("Fetching the position table of {model}…").format(model=ref.repo_id)):
            name, table = _fetched_table(ref.repo_id, ref.revision, tensor or None, hub.endpoint())
    except ValueError as error:
        show_error(error, model_id)
        return None
    label = f"{ref}:{name}"
    kept = tables.session_tables().add_table(table, label)
    return FetchedTable(kept.sha256, label, kept.shape)
