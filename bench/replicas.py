"""N Streamlit replicas of the app behind HAProxy, on one machine: `make class` (``python -m bench.replicas``).

Python's GIL keeps one Streamlit process on one core, so a class is served by one process per core behind a load
balancer. Each replica is ``posenc app`` on a loopback port, with the serving settings of ``.streamlit/config.toml``
and its figure cache warmed as it starts (``posenc.ui.warmup``), and one ``server.cookieSecret`` shared by all,
generated at each start (Streamlit signs its auth cookies with it: a cookie one replica signed is valid on all;
passed in the environment, as Streamlit 1.67 refuses it on the command line). HAProxy (Debian's package) listens on
HOST:PORT with the configuration ``deploy/haproxy.cfg.template`` rendered here: cookie affinity, websocket
tunnels, health checks on ``/_stcore/health``, redispatch away from a dead replica. Why each setting is there:
docs/DEPLOY.md, "A class on one machine".
"""

from __future__ import annotations

import argparse
import contextlib
import os
import secrets
import shutil
import signal
import string
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from bench.app_server import ROOT, free_port, wait_healthy
from posenc.ui import warmup

TEMPLATE = ROOT / "deploy" / "haproxy.cfg.template"
COMPOSE_CFG = ROOT / "deploy" / "haproxy.compose.cfg"
COMPOSE_REPLICAS = 2  # the app services deploy/compose.yaml defines (app1, app2)


def find_haproxy() -> str | None:
    """The haproxy executable (``HAPROXY`` or on PATH, Debian's /usr/sbin/haproxy), or None."""
    for candidate in (os.environ.get("HAPROXY"), shutil.which("haproxy"), "/usr/sbin/haproxy"):
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    return None


def render_config(bind: str, servers: list[tuple[str, str]], stats_bind: str) -> str:
    """The HAProxy configuration: ``bind`` the address learners open, ``servers`` (name, host:port) one per
    replica (the name is also its affinity cookie's value), ``stats_bind`` HAProxy's status page."""
    lines = "\n".join(f"    server {name} {address} cookie {name}" for name, address in servers)
    return string.Template(TEMPLATE.read_text()).substitute(bind=bind, servers=lines, stats_bind=stats_bind)


def compose_config() -> str:
    """The configuration deploy/compose.yaml mounts: the same template, its replicas named by service."""
    servers = [(f"app{i}", f"app{i}:8501") for i in range(1, COMPOSE_REPLICAS + 1)]
    return render_config("*:8501", servers, "*:8404")


@dataclass
class Replica:
    """One ``posenc app`` process: its name (the affinity cookie's value), port, process and log."""

    name: str
    port: int
    process: subprocess.Popen
    log_path: Path

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"


@dataclass
class Cluster:
    """Running replicas (and HAProxy in front of them, unless there is a single process without it)."""

    url: str
    replicas: list[Replica]
    cookie_secret: str
    haproxy: subprocess.Popen | None = None
    stats_url: str = ""
    config_path: Path | None = None
    logs: list[Path] = field(default_factory=list)

    def server_pids(self) -> list[int]:
        """The process ids of the live Streamlit replicas (what the load test measures)."""
        return [r.process.pid for r in self.replicas if r.process.poll() is None]

    def kill(self, name: str) -> None:
        """Kill one replica at once (SIGKILL), as a crash would."""
        replica = next(r for r in self.replicas if r.name == name)
        replica.process.kill()
        replica.process.wait(timeout=10)

    def servers_up(self) -> dict[str, str]:
        """HAProxy's view of each replica (``UP``, ``DOWN``, ...), from its status page's CSV."""
        with urllib.request.urlopen(f"{self.stats_url}/;csv", timeout=5) as answer:
            rows = answer.read().decode().splitlines()
        header = rows[0].lstrip("# ").split(",")
        states = {}
        for row in rows[1:]:
            cells = dict(zip(header, row.split(","), strict=False))
            if cells.get("pxname") == "streamlit" and cells.get("svname") not in ("FRONTEND", "BACKEND"):
                states[cells["svname"]] = cells["status"]
        return states


def _die_with_parent() -> None:
    """In the child before exec: Linux sends it SIGTERM when the process that started it dies (prctl(2),
    PR_SET_PDEATHSIG), so a killed load test or `make class` leaves no replica or HAProxy behind."""
    import ctypes

    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # 1 = PR_SET_PDEATHSIG


def start_replica(name: str, port: int, cookie_secret: str, log_dir: Path) -> Replica:
    """Start one replica on 127.0.0.1:port (not yet healthy: see ``wait_healthy``)."""
    # `posenc app`: the serving settings, and the figure cache warmed as the replica starts (posenc.ui.warmup)
    command = [sys.executable, "-m", "posenc", "app", "--host", "127.0.0.1", "--port", str(port)]
    # Streamlit 1.67 refuses --server.cookieSecret on the command line (it would show in `ps`): the environment.
    env = {**os.environ, "STREAMLIT_SERVER_COOKIE_SECRET": cookie_secret}
    log_path = log_dir / f"replica-{name}-{port}.log"
    with log_path.open("w") as log:
        process = subprocess.Popen(
            command, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, env=env, preexec_fn=_die_with_parent
        )
    return Replica(name, port, process, log_path)


def stop(process: subprocess.Popen | None) -> None:
    """Terminate a process, killing it if it does not exit within 10 s."""
    if process is None or process.poll() is not None:
        return
    process.terminate()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=10)


def wait_servers_up(cluster: Cluster, timeout: float) -> None:
    """Return once HAProxy's health checks see every replica up; RuntimeError after ``timeout`` s."""
    deadline = time.monotonic() + timeout
    states: dict[str, str] = {}
    while time.monotonic() < deadline:
        if cluster.haproxy.poll() is not None:
            raise RuntimeError(f"haproxy exited with status {cluster.haproxy.returncode}: see {cluster.logs[-1]}")
        with contextlib.suppress(OSError):
            states = cluster.servers_up()
            if states and all(state.startswith("UP") for state in states.values()):
                return
        time.sleep(0.3)
    raise RuntimeError(f"haproxy did not see every replica up within {timeout:.0f} s: {states}")


def wait_warmed(cluster: Cluster, timeout: float = 1800.0) -> float | None:
    """Seconds until every replica has warmed its figure cache (its log says the last phase is done, posenc.ui.warmup):
    a class meets a server started beforehand. None when the warm-up is off."""
    how_much = warmup.level()
    if how_much == "off":
        return None
    marker = "posenc: figure cache warmed:"  # printed once the last phase is done and the heap settled
    started = time.monotonic()
    while not all(marker in replica.log_path.read_text(errors="replace") for replica in cluster.replicas):
        if time.monotonic() - started > timeout:
            raise RuntimeError(f"the replicas did not finish warming within {timeout:.0f} s")
        time.sleep(2)
    return round(time.monotonic() - started, 1)


@contextlib.contextmanager
def running_replicas(
    replicas: int = 2,
    *,
    host: str = "127.0.0.1",
    port: int | None = None,
    balancer: bool = True,
    timeout: float = 120.0,
    log_dir: Path | None = None,
) -> Iterator[Cluster]:
    """Start ``replicas`` Streamlit processes and (``balancer``) HAProxy on ``host:port`` in front of them; yield
    the running cluster once every replica answers its health check through HAProxy; stop all of it afterwards.

    With ``balancer=False`` and one replica, the cluster is the single process itself (the load test's baseline)."""
    if replicas < 1:
        raise ValueError(f"replicas must be at least 1, got {replicas}")
    haproxy = find_haproxy() if balancer else None
    if balancer and haproxy is None:
        raise RuntimeError("haproxy not found: run scripts/ensure_haproxy.sh as root (apt-get install haproxy)")
    log_dir = log_dir or ROOT / "build"
    log_dir.mkdir(parents=True, exist_ok=True)
    secret = secrets.token_hex(32)
    started: list[Replica] = []
    cluster = Cluster(url="", replicas=started, cookie_secret=secret)
    try:
        for index in range(1, replicas + 1):
            started.append(start_replica(f"app{index}", free_port(), secret, log_dir))
        for replica in started:
            wait_healthy(replica.url, replica.process, timeout)
        cluster.logs = [r.log_path for r in started]
        if not balancer:
            cluster.url = started[0].url
            yield cluster
            return
        port = port or free_port()
        stats_port = free_port()
        config = render_config(
            f"{host}:{port}", [(r.name, f"127.0.0.1:{r.port}") for r in started], f"127.0.0.1:{stats_port}"
        )
        cluster.config_path = log_dir / f"haproxy-{port}.cfg"
        cluster.config_path.write_text(config)
        haproxy_log = log_dir / f"haproxy-{port}.log"
        cluster.logs.append(haproxy_log)
        with haproxy_log.open("w") as log:
            cluster.haproxy = subprocess.Popen(
                [haproxy, "-db", "-f", str(cluster.config_path)],
                stdout=log,
                stderr=subprocess.STDOUT,
                preexec_fn=_die_with_parent,
            )
        cluster.url = f"http://{'127.0.0.1' if host in ('0.0.0.0', '::', '*') else host}:{port}"
        cluster.stats_url = f"http://127.0.0.1:{stats_port}"
        wait_servers_up(cluster, timeout)
        yield cluster
    finally:
        stop(cluster.haproxy)
        for replica in started:
            stop(replica.process)


def main(argv: list[str] | None = None) -> int:
    """`make class`: serve the app as N replicas behind HAProxy until Ctrl-C."""
    parser = argparse.ArgumentParser(prog="python -m bench.replicas", description=__doc__.split("\n\n")[0])
    parser.add_argument("--host", default="127.0.0.1", help="address HAProxy listens on (0.0.0.0: the network)")
    parser.add_argument("--port", type=int, default=8501)
    parser.add_argument("--replicas", type=int, default=os.cpu_count() or 1, help="default: one per core")
    parser.add_argument("--compose-config", action="store_true", help="print deploy/haproxy.compose.cfg and exit")
    args = parser.parse_args(argv)
    if args.compose_config:
        print(compose_config(), end="")
        return 0
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))  # `kill` stops the replicas too (the finally blocks)
    with running_replicas(args.replicas, host=args.host, port=args.port) as cluster:
        print(f"posenc: {len(cluster.replicas)} replicas behind HAProxy on http://{args.host}:{args.port}")
        print(f"HAProxy status page: {cluster.stats_url}  logs: {cluster.logs[0].parent}  (Ctrl-C stops all)")
        with contextlib.suppress(KeyboardInterrupt):
            while cluster.haproxy.poll() is None:
                time.sleep(1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
