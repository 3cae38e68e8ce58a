"""A class served by two replicas of the real app behind HAProxy (`make class`, bench/replicas.py), driven by the
load test's protocol-level client: health checks, cookie affinity for the websocket and for an upload, and a
replica killed mid-class whose learners are served by the other one from their link.

One cluster for the whole file (starting the app twice is most of its time), so one test walks through a class in
order; the configuration's own checks are separate and need no running app."""

from __future__ import annotations

import http.client
import io
import selectors
import socket
import subprocess
import time
import urllib.parse
import urllib.request

import numpy as np

from bench.replicas import COMPOSE_CFG, COMPOSE_REPLICAS, compose_config, render_config, running_replicas
from posenc.serve.stream_client import (
    SessionResult,
    StreamSession,
    fetch_page,
    http_request,
    open_link,
    run,
    upload_file,
)
from tests.deploy.conftest import require_haproxy

LINK = "/rope?seq_len=96&base=20000"


def _open(url: str, link: str, cookies: dict | None = None) -> SessionResult:
    return run(open_link(url, link, timeout=90, cookies=cookies))


async def _holders(cluster, session_id: str, cookies: dict) -> list[str]:
    """The live replicas that hold ``session_id``: an (empty) PUT to its upload URL with the XSRF token, asked of
    each replica directly, is refused as "Invalid session_id" by every other replica."""
    xsrf = cookies["_streamlit_xsrf"]
    headers = {"Cookie": f"_streamlit_xsrf={xsrf}", "X-Xsrftoken": xsrf}
    holders = []
    for replica in cluster.replicas:
        if replica.process.poll() is None:
            url = f"{replica.url}/_stcore/upload_file/{session_id}/probe"
            status, _, body = await http_request(url, method="PUT", headers=headers)
            assert status in (400, 403), (status, body)
            assert status == 400, body  # the XSRF token is valid on every replica
            if b"Invalid session_id" not in body:
                holders.append(replica.name)
    return holders


async def _affine_session_and_upload(cluster, cookies: dict) -> tuple[str, list[str], SessionResult, SessionResult]:
    """Open the Learned page on its upload source through HAProxy, keep the websocket open, upload a table through
    HAProxy, rerun with the uploader holding it. Returns the affinity cookie, the replicas holding the session while
    it is open, and the two runs."""
    url, link = cluster.url, "/learned?table_source=upload"
    cookies = await fetch_page(url + link, cookies)
    async with StreamSession(url, cookies, 90) as session:
        before = await session.run(link, SessionResult(url=url + link), time.monotonic())
        holders = await _holders(cluster, session.session_id, cookies)
        uploader = next(
            m.delta.new_element.file_uploader.id
            for m in session.forward
            if m.WhichOneof("type") == "delta" and m.delta.new_element.WhichOneof("type") == "file_uploader"
        )
        buffer = io.BytesIO()
        np.save(buffer, np.random.default_rng(0).normal(size=(48, 16)).astype(np.float32))
        states = await upload_file(session, "table.npy", buffer.getvalue(), uploader)
        after = await session.run(link, SessionResult(url=url + link), time.monotonic(), widget_states=states)
        return cookies.get("SERVERID", ""), holders, before, after


def test_a_class_behind_haproxy(tmp_path):
    require_haproxy()
    with running_replicas(2, log_dir=tmp_path) as cluster:
        try:
            _a_class(cluster)
        except AssertionError as error:  # what HAProxy and the replicas said, for a failure seen only in CI
            raise AssertionError(f"{error}\n{_log_tails(cluster)}") from error


def _log_tails(cluster, lines: int = 15) -> str:
    tails = []
    for path in cluster.logs:
        text = path.read_text(errors="replace").splitlines()[-lines:] if path.exists() else []
        tails.append(f"--- {path.name}\n" + "\n".join(text))
    return "\n".join(tails)


def _a_class(cluster) -> None:
    # Health checks: HAProxy sees both replicas up, and the health URL answers through it.
    states = cluster.servers_up()
    assert sorted(states) == ["app1", "app2"] and all(state.startswith("UP") for state in states.values()), states
    with urllib.request.urlopen(f"{cluster.url}/_stcore/health", timeout=5) as answer:
        assert answer.read() == b"ok"

    # Affinity: the first answer sets SERVERID; the session lives on that replica, and a second session with
    # the cookie goes to the same one (HAProxy does not set the cookie again: "indirect").
    first = _open(cluster.url, LINK)
    assert first.served, first.errors
    home = first.cookies.get("SERVERID")
    assert home in ("app1", "app2"), first.cookies
    again = _open(cluster.url, LINK, cookies={"SERVERID": home})
    assert again.served and again.cookies["SERVERID"] == home

    # An upload through HAProxy reaches the replica holding the session, and the page draws the table.
    server_id, holders, before, after = run(_affine_session_and_upload(cluster, {"SERVERID": home}))
    assert server_id == home
    assert holders == [server_id]  # the websocket went to the replica the cookie names, and only there
    assert before.figures == 0 and not before.errors  # the upload source, waiting for a table
    assert after.served, after.errors
    assert after.figures > 0
    digest = urllib.parse.parse_qs(after.query_string).get("upload_sha256", [""])[0]
    assert len(digest) == 64, after.query_string  # the link names the uploaded table by its SHA-256

    # A replica killed mid-class: a learner coming back with its cookie is served by the other replica, which
    # rebuilds the view from the link (state lives in the URL) and sets a new affinity cookie.
    cluster.kill(home)
    other = "app2" if home == "app1" else "app1"
    back = _open(cluster.url, LINK, cookies=first.cookies)
    assert back.served, back.errors
    assert back.cookies["SERVERID"] == other
    assert back.drawn == first.drawn  # the same page, drawn the same way (each replica's cache aside)

    # The learner who had uploaded a table comes back on its link: the table is lost with the replica, and
    # the page says so in place (the link names the table; the file itself must be given again).
    lost = _open(cluster.url, f"/learned?{after.query_string}", cookies={"SERVERID": server_id})
    assert lost.cookies["SERVERID"] == other
    announced = [a for a in lost.alerts if digest[:12] in a and a.startswith(("warning", "error"))]
    assert announced, lost.alerts

    # And the health checks take the dead replica out (3 failed checks, 3 s apart).
    deadline = time.monotonic() + 40
    while not cluster.servers_up()[home].startswith("DOWN") and time.monotonic() < deadline:
        time.sleep(0.5)
    states = cluster.servers_up()
    assert states[home] == "DOWN" and states[other].startswith("UP"), states

    # Streamlit's metrics are not open through the class's address (a replica's own port still has them).
    assert _status(f"{cluster.url}/_stcore/metrics") == 404
    assert _status(f"{cluster.replicas[1 if home == 'app1' else 0].url}/_stcore/metrics") == 200

    # One client opening far more connections than a class needs is refused at HAProxy past 400; another client
    # address (127.0.0.2, loopback too) is still served. Last: this client's address stays refused for 10 s.
    flood, reset = _flood(cluster.url, 440)
    try:
        refused = reset + _refused_within(flood, at_least=40 - reset, seconds=20)
        assert refused >= 40, f"only {refused} of 440 connections from one address were refused"
        assert _status(cluster.url + "/_stcore/health", source="127.0.0.2") == 200
    finally:
        for sock in flood:
            sock.close()


def _status(url: str, *, source: str | None = None) -> int:
    """The HTTP status of a GET (from the loopback address ``source`` when given)."""
    parts = urllib.parse.urlsplit(url)
    connection = http.client.HTTPConnection(
        parts.hostname, parts.port, timeout=10, source_address=(source, 0) if source else None
    )
    try:
        connection.request("GET", parts.path)
        return connection.getresponse().status
    finally:
        connection.close()


def _flood(url: str, count: int) -> tuple[list[socket.socket], int]:
    """``count`` idle TCP connections to ``url`` from 127.0.0.1, as a client opening websockets it never uses: the
    sockets connected, and how many were reset while connecting (refused at once)."""
    parts = urllib.parse.urlsplit(url)
    sockets, reset = [], 0
    for _ in range(count):
        try:
            sockets.append(socket.create_connection((parts.hostname, parts.port), timeout=10))
        except ConnectionResetError:
            reset += 1
    return sockets, reset


def _refused_within(sockets: list[socket.socket], *, at_least: int, seconds: float) -> int:
    """How many of ``sockets`` HAProxy closed without a word, waiting (up to ``seconds``) until at least
    ``at_least`` were."""
    closed: set[int] = set()
    deadline = time.monotonic() + seconds
    with selectors.DefaultSelector() as selector:
        for index, sock in enumerate(sockets):
            selector.register(sock, selectors.EVENT_READ, index)
        while len(closed) < at_least and time.monotonic() < deadline:
            for key, _ in selector.select(timeout=max(0.0, deadline - time.monotonic())):
                try:
                    data = key.fileobj.recv(1)
                except ConnectionError:
                    data = b""
                if data == b"":  # closed unanswered: refused (an accepted idle one gets a 408 at its timeout)
                    closed.add(key.data)
                selector.unregister(key.fileobj)
    return len(closed)


def test_the_rendered_configuration_is_valid_haproxy(tmp_path):
    haproxy = require_haproxy()
    config = render_config(
        "127.0.0.1:18501", [("app1", "127.0.0.1:18601"), ("app2", "127.0.0.1:18602")], "127.0.0.1:18404"
    )
    assert "cookie SERVERID insert indirect nocache" in config
    assert "option redispatch" in config and "option httpchk GET /_stcore/health" in config
    assert "timeout tunnel" in config
    assert "server app2 127.0.0.1:18602 cookie app2" in config
    path = tmp_path / "haproxy.cfg"
    path.write_text(config)
    checked = subprocess.run([haproxy, "-c", "-f", str(path)], capture_output=True, text=True, timeout=30)
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_the_compose_configuration_is_the_template_rendered():
    assert COMPOSE_CFG.read_text() == compose_config(), (
        "run: python -m bench.replicas --compose-config > deploy/haproxy.compose.cfg"
    )


def test_the_compose_file_has_the_replicas_the_haproxy_configuration_names():
    import yaml

    compose = yaml.safe_load((COMPOSE_CFG.parent / "compose.yaml").read_text())
    services = compose["services"]
    apps = sorted(name for name in services if name.startswith("app"))
    assert apps == [f"app{i}" for i in range(1, COMPOSE_REPLICAS + 1)]
    for name in apps:
        assert f"server {name} {name}:8501 cookie {name}" in COMPOSE_CFG.read_text()
        assert "STREAMLIT_SERVER_COOKIE_SECRET" in services[name]["environment"]
        assert services[name]["build"]["dockerfile"] == "Dockerfile"
    haproxy = services["haproxy"]
    assert haproxy["image"].startswith("haproxy:2.6")
    assert "./haproxy.compose.cfg:/usr/local/etc/haproxy/haproxy.cfg:ro" in haproxy["volumes"]
    assert set(haproxy["depends_on"]) == set(apps)


def test_without_haproxy_the_tests_skip_locally_and_fail_in_ci(monkeypatch):
    import pytest

    from tests.deploy import conftest

    monkeypatch.setattr(conftest, "find_haproxy", lambda: None)
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match="no haproxy found"):
        conftest.require_haproxy()
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="no haproxy found"):
        conftest.require_haproxy()
