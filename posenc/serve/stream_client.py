"""A protocol-level Streamlit client (no browser): what one learner's tab does when it opens a link. The server
opens its own pages with it to warm its figure cache (posenc.ui.warmup); the load test opens many at once.

It does what Streamlit 1.6x's frontend does (``frontend/connection/src/WebsocketConnection.tsx`` and
``App.tsx``'s ``sendRerunBackMsg``): GET the page (behind HAProxy this sets the affinity cookie) and the health
check (which sets the XSRF cookie), open the websocket ``/_stcore/stream`` with the subprotocols
``["streamlit", <xsrf cookie>]``, then send a ``BackMsg`` holding ``rerun_script`` =
``ClientState(query_string, page_name, context_info)``: ``page_name`` is the URL path of a page of
``st.navigation`` (``""`` for the home page), which the server matches to the page
(``streamlit/runtime/pages_manager.py``). The server answers with ``ForwardMsg`` protobufs (``streamlit.proto``):
``new_session``, deltas (one per element), ``script_finished``. Time to first figure is measured from the GET to
the first delta holding a ``plotly_chart``; an ``exception`` element or an ``st.error`` alert counts as an error.

Loopback only; every step is bounded by the caller's timeout.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import http.cookies
import time
import urllib.parse
from dataclasses import dataclass, field

from streamlit.proto.Alert_pb2 import Alert
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from websockets.asyncio.client import connect

XSRF_COOKIE = "_streamlit_xsrf"  # streamlit/web/server/server_util.py XSRF_COOKIE_NAME
FINISHED = (ForwardMsg.FINISHED_SUCCESSFULLY, ForwardMsg.FINISHED_WITH_COMPILE_ERROR)


@dataclass
class SessionResult:
    """What one session saw: seconds to the first figure and to the end of the first complete script run (None if
    never), the number of figures, the errors (messages), the cookies the server set, and Streamlit's session id."""

    url: str
    first_figure_s: float | None = None
    finished_s: float | None = None
    figures: int = 0
    errors: list[str] = field(default_factory=list)
    cookies: dict[str, str] = field(default_factory=dict)
    session_id: str = ""
    elements: list[str] = field(default_factory=list)  # the kinds of element sent, in the order sent
    final: dict[tuple[int, ...], str] = field(default_factory=dict)  # delta path -> the kind drawn there last
    alerts: list[str] = field(default_factory=list)  # "error: ...", "warning: ...", "info: ...", "success: ..."
    query_string: str = ""  # the link's query as the page last set it (``page_info_changed``)

    @property
    def drawn(self) -> list[str]:
        """The kinds of element on the page once the run ended, in page order: a figure's placeholder, sent first
        where the figure was not built yet and then replaced in its slot, is not there (``elements`` has both)."""
        return [self.final[path] for path in sorted(self.final)]

    @property
    def served(self) -> bool:
        """The page ran to its end, drew a figure and showed no error."""
        return self.finished_s is not None and self.figures > 0 and not self.errors


def run(coroutine):
    """Run ``coroutine`` to its end from synchronous code: in this thread, or in a fresh thread when this one already
    runs an event loop (a notebook's kernel, or a library that left one running), where ``asyncio.run`` refuses."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coroutine)
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coroutine).result()


def split_link(link: str) -> tuple[str, str]:
    """``"/rope?seq_len=64"`` -> ``("rope", "seq_len=64")``: the page name the server expects and the query."""
    parsed = urllib.parse.urlsplit(link)
    return parsed.path.strip("/"), parsed.query


def back_rerun(page_name: str, query: str, url: str, *, widget_states=None) -> bytes:
    """The ``BackMsg`` a browser sends to run a page: its name and query string, and the browser's context."""
    msg = BackMsg()
    state = msg.rerun_script
    state.query_string = query
    state.page_name = page_name
    state.page_script_hash = ""
    if widget_states is not None:
        state.widget_states.CopyFrom(widget_states)
    context = state.context_info
    context.timezone = "UTC"
    context.timezone_offset = 0
    context.locale = "en-US"
    context.url = url
    context.is_embedded = False
    context.color_scheme = "light"
    return msg.SerializeToString()


def element_errors(element) -> list[str]:
    """The error an element shows, if it is one: an exception, or an ``st.error`` alert."""
    kind = element.WhichOneof("type")
    if kind == "exception":
        return [f"exception {element.exception.type}: {element.exception.message[:200]}"]
    if kind == "alert" and element.alert.format == Alert.ERROR:
        return [f"st.error: {element.alert.body[:200]}"]
    return []


def _cookie_header(cookies: dict[str, str]) -> str:
    return "; ".join(f"{name}={value}" for name, value in cookies.items())


async def http_request(
    url: str, *, method: str = "GET", headers: dict[str, str] | None = None, body: bytes = b""
) -> tuple[int, list[tuple[str, str]], bytes]:
    """One HTTP/1.1 request over a fresh loopback connection (``Connection: close``): status, headers, body."""
    parsed = urllib.parse.urlsplit(url)
    target = parsed.path or "/"
    if parsed.query:
        target += "?" + parsed.query
    lines = [f"{method} {target} HTTP/1.1", f"Host: {parsed.netloc}", "Connection: close"]
    lines += [f"{name}: {value}" for name, value in (headers or {}).items()]
    if body or method in ("PUT", "POST"):
        lines.append(f"Content-Length: {len(body)}")
    reader, writer = await asyncio.open_connection(parsed.hostname, parsed.port or 80)
    try:
        writer.write(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body)
        await writer.drain()
        raw = await reader.read()  # the server closes the connection after its answer
    finally:
        writer.close()
    head, _, content = raw.partition(b"\r\n\r\n")
    status_line, *header_lines = head.decode("latin-1").split("\r\n")
    status = int(status_line.split()[1])
    parsed_headers = [tuple(part.strip() for part in line.split(":", 1)) for line in header_lines if ":" in line]
    return status, parsed_headers, content


def set_cookies(headers: list[tuple[str, str]], cookies: dict[str, str]) -> dict[str, str]:
    """``cookies`` updated with the ``Set-Cookie`` headers of an answer."""
    merged = dict(cookies)
    for name, value in headers:
        if name.lower() == "set-cookie":
            jar = http.cookies.SimpleCookie()
            jar.load(value)
            merged.update({key: morsel.value for key, morsel in jar.items()})
    return merged


async def fetch_page(url: str, cookies: dict[str, str]) -> dict[str, str]:
    """GET the page, then its server's health check, as the frontend does before it opens the stream (the health
    answer sets the XSRF cookie); return the cookies, updated with those the server set."""
    base = urllib.parse.urlsplit(url)
    for target in (url, f"{base.scheme}://{base.netloc}/_stcore/health"):
        status, headers, _ = await http_request(
            target, headers={"Cookie": _cookie_header(cookies)} if cookies else None
        )
        if status != 200:
            raise ConnectionError(f"GET {target} answered HTTP {status}")
        cookies = set_cookies(headers, cookies)
    return cookies


class StreamSession:
    """One open websocket to ``/_stcore/stream``: ``await run(link)`` runs a page and waits for it to finish."""

    def __init__(self, base_url: str, cookies: dict[str, str], timeout: float):
        self.base_url = base_url.rstrip("/")
        self.cookies = cookies
        self.timeout = timeout
        self.websocket = None
        self.session_id = ""
        self.forward: list[ForwardMsg] = []  # every message of the last run, for callers that look further

    async def __aenter__(self) -> StreamSession:
        ws_url = self.base_url.replace("http://", "ws://", 1) + "/_stcore/stream"
        protocols = ["streamlit", self.cookies.get(XSRF_COOKIE, "")]
        self.websocket = await asyncio.wait_for(
            connect(
                ws_url,
                subprotocols=[p for p in protocols if p],
                origin=self.base_url,
                additional_headers={"Cookie": _cookie_header(self.cookies)},
                max_size=None,
                open_timeout=self.timeout,
                ping_interval=None,
            ),
            self.timeout,
        )
        return self

    async def __aexit__(self, *exc) -> None:
        if self.websocket is not None:
            await asyncio.wait_for(self.websocket.close(), 5)

    async def send(self, payload: bytes) -> None:
        await self.websocket.send(payload)

    async def run(self, link: str, result: SessionResult, started: float, *, widget_states=None) -> SessionResult:
        """Run the page of ``link`` (``/rope?seq_len=64``) and read until its script run finishes (or a timeout)."""
        page_name, query = split_link(link)
        self.forward = []
        await self.send(back_rerun(page_name, query, self.base_url + link, widget_states=widget_states))
        await self.read_until_finished(result, started)
        return result

    async def read_until_finished(self, result: SessionResult, started: float) -> None:
        """Read ForwardMsgs into ``result`` until a script run ends (early ends for a rerun do not count)."""
        deadline = time.monotonic() + self.timeout
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError(f"no finished script run within {self.timeout:.0f} s")
            data = await asyncio.wait_for(self.websocket.recv(), remaining)
            msg = ForwardMsg()
            msg.ParseFromString(data)
            self.forward.append(msg)
            kind = msg.WhichOneof("type")
            if kind == "new_session":
                self.session_id = msg.new_session.initialize.session_id
            elif kind == "page_info_changed":
                result.query_string = msg.page_info_changed.query_string
            elif kind == "delta" and msg.delta.WhichOneof("type") == "new_element":
                element = msg.delta.new_element
                result.elements.append(element.WhichOneof("type"))
                result.final[tuple(msg.metadata.delta_path)] = element.WhichOneof("type")
                result.errors.extend(element_errors(element))
                if element.WhichOneof("type") == "alert":
                    level = Alert.Format.Name(element.alert.format).lower()
                    result.alerts.append(f"{level}: {element.alert.body}")
                if element.WhichOneof("type") == "plotly_chart":
                    result.figures += 1
                    if result.first_figure_s is None:
                        result.first_figure_s = time.monotonic() - started
            elif kind == "script_finished" and msg.script_finished in FINISHED:
                if msg.script_finished == ForwardMsg.FINISHED_WITH_COMPILE_ERROR:
                    result.errors.append("script finished with a compile error")
                result.finished_s = time.monotonic() - started
                return


async def open_link(
    base_url: str, link: str, *, timeout: float = 60.0, cookies: dict[str, str] | None = None
) -> SessionResult:
    """Open ``base_url + link`` as one learner: GET the page, open the stream, run the page until it finishes.

    Never raises for the server's sake: a refused connection, a closed stream or a timeout is an error in the
    result (the load test counts them)."""
    url = base_url.rstrip("/") + link
    result = SessionResult(url=url)
    started = time.monotonic()
    try:
        result.cookies = await asyncio.wait_for(fetch_page(url, dict(cookies or {})), timeout)
        remaining = max(1.0, timeout - (time.monotonic() - started))
        async with StreamSession(base_url, result.cookies, remaining) as session:
            session.timeout = max(1.0, timeout - (time.monotonic() - started))
            await session.run(link, result, started)
            result.session_id = session.session_id
    except Exception as error:  # every failure of a session is counted, none stops the load test
        result.errors.append(f"{type(error).__name__}: {error}"[:300])
    return result


async def upload_file(session: StreamSession, name: str, data: bytes, widget_id: str):
    """Upload ``data`` as the frontend's ``st.file_uploader`` does, over ``session``'s own server: ask for an
    upload URL (``BackMsg.file_urls_request``), PUT the file there as multipart form data with the XSRF token in
    ``X-Xsrftoken`` (the cookie's value), then return the ``WidgetStates`` that tell the next run the uploader
    ``widget_id`` holds the file. The PUT is refused unless it reaches the replica holding the session."""
    from streamlit.proto.BackMsg_pb2 import BackMsg as Back
    from streamlit.proto.WidgetStates_pb2 import WidgetStates

    request = Back()
    request.file_urls_request.request_id = "upload-1"
    request.file_urls_request.file_names.append(name)
    request.file_urls_request.session_id = session.session_id
    await session.send(request.SerializeToString())
    while True:
        msg = ForwardMsg()
        msg.ParseFromString(await asyncio.wait_for(session.websocket.recv(), session.timeout))
        if msg.WhichOneof("type") == "file_urls_response" and msg.file_urls_response.response_id == "upload-1":
            urls = msg.file_urls_response.file_urls[0]
            break
    boundary = "posencboundary7MA4YWxkTrZu0gW"
    body = (
        (
            f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="{name}"\r\n'
            "Content-Type: application/octet-stream\r\n\r\n"
        ).encode()
        + data
        + f"\r\n--{boundary}--\r\n".encode()
    )
    headers = {
        "Cookie": _cookie_header(session.cookies),
        "X-Xsrftoken": session.cookies.get(XSRF_COOKIE, ""),
        "Content-Type": f"multipart/form-data; boundary={boundary}",
        "Origin": session.base_url,
    }
    status, _, answer = await http_request(session.base_url + urls.upload_url, method="PUT", headers=headers, body=body)
    if status != 204:
        raise ConnectionError(f"upload of {name} answered HTTP {status}: {answer[:200]!r}")
    states = WidgetStates()
    widget = states.widgets.add()
    widget.id = widget_id
    info = widget.file_uploader_state_value.uploaded_file_info.add()
    info.name, info.size, info.file_id = name, len(data), urls.file_id
    info.file_urls.CopyFrom(urls)
    return states
