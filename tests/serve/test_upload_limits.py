"""The sidebar's config uploader refuses a file over its 1 MB limit on the server too: the browser refuses one
before sending it, but a client that speaks Streamlit's protocol itself can send it (the global upload limit, for
weight tables, is 65 MB). The file is refused by its size, unread, with a message in place."""

from __future__ import annotations

import asyncio
import time

from bench.app_server import running_app
from posenc.serve.stream_client import SessionResult, StreamSession, fetch_page, run, upload_file


async def _upload_config(url: str, data: bytes) -> SessionResult:
    link = "/glossary?preset=config"
    cookies = await fetch_page(url + link, {})
    async with StreamSession(url, cookies, 60) as session:
        await session.run(link, SessionResult(url=url + link), time.monotonic())
        uploader = next(
            m.delta.new_element.file_uploader.id
            for m in session.forward
            if m.WhichOneof("type") == "delta" and m.delta.new_element.WhichOneof("type") == "file_uploader"
        )
        states = await upload_file(session, "config.json", data, uploader)
        return await session.run(link, SessionResult(url=url + link), time.monotonic(), widget_states=states)


def test_a_config_over_the_limit_sent_past_the_browser_is_refused_by_the_server():
    big = b'{"hidden_size": 4096, "num_attention_heads": 32, "pad": "' + b"x" * 5_000_000 + b'"}'
    with running_app() as url:
        after = run(asyncio.wait_for(_upload_config(url, big), 120))
    refused = [alert for alert in after.alerts if alert.startswith("error: config.json: config.json is 5.0 MB")]
    assert refused and "at most 1 MB and is not read" in refused[0], after.alerts
    assert not any(alert.startswith("success:") for alert in after.alerts)  # nothing was read
