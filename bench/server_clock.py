"""``posenc app`` with a clock on the server's side of the websocket, for bench/first_figure.py.

    python -m bench.server_clock LOG [--three-point-figures] [posenc app arguments]

Serves the app as ``posenc app`` does, and for each session appends one JSON line to LOG once its first figure's
message is handed to the websocket: ``{"figure_ms": ..., "before": ...}``, the milliseconds since the session's
first message (``new_session``) was handed over, and how many messages went before the figure. The browser's own
clock (bench/first_figure.py's ``msg1`` and ``fig_msg``) says when the page took the same two messages in; the two
apart tell the server's part from the browser's. With ``--three-point-figures``, every page's figures are swapped
for three points (bench/three_point_figures.py).
"""

from __future__ import annotations

import json
import sys
import threading
import time
from pathlib import Path

from streamlit.proto.ForwardMsg_pb2 import ForwardMsg


class FigureClock:
    """Per websocket client: when its first message and its first ``plotly_chart`` were handed over."""

    def __init__(self, log: Path) -> None:
        self.log = log
        self._lock = threading.Lock()
        self._started: dict[int, tuple[float, int]] = {}  # client -> (first message's time, messages so far)
        self._done: set[int] = set()

    def saw(self, client: int, msg: ForwardMsg, now: float) -> None:
        """Note ``msg``, handed to ``client``'s websocket at ``now`` (seconds, a monotonic clock)."""
        with self._lock:
            if client in self._done:
                return
            started, count = self._started.setdefault(client, (now, 0))
            self._started[client] = (started, count + 1)
            if is_figure(msg):
                self._done.add(client)
                line = {"figure_ms": round(1000 * (now - started), 2), "before": count}
                with self.log.open("a") as out:
                    out.write(json.dumps(line) + "\n")


def is_figure(msg: ForwardMsg) -> bool:
    """The message draws a Plotly chart."""
    delta = msg.delta if msg.WhichOneof("type") == "delta" else None
    return (
        delta is not None
        and delta.WhichOneof("type") == "new_element"
        and (delta.new_element.WhichOneof("type") == "plotly_chart")
    )


def install(clock: FigureClock) -> None:
    """Wrap Streamlit's websocket client so that every message it is handed passes ``clock`` first."""
    from streamlit.web.server.starlette.starlette_websocket import StarletteSessionClient

    write = StarletteSessionClient.write_forward_msg

    def write_forward_msg(self, msg: ForwardMsg) -> None:
        clock.saw(id(self), msg, time.monotonic())
        write(self, msg)

    StarletteSessionClient.write_forward_msg = write_forward_msg


def main(argv: list[str]) -> int:
    if not argv:
        print(__doc__, file=sys.stderr)
        return 2
    install(FigureClock(Path(argv[0])))
    rest = argv[1:]
    if rest[:1] == ["--three-point-figures"]:
        from bench import three_point_figures

        three_point_figures.install()
        rest = rest[1:]
    from posenc.commands import app
    from posenc.commands.router import version

    return app.main(rest, version())


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
