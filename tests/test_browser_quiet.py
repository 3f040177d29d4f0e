"""The stray "There is no hand to undo." (issue 25, item 5) in a real browser at 390×844:
a new evening's scoresheet, opened through the service worker, warms the table's pages
(in one answer, /e/<key>/kept), the undo page among them; the undo page of an evening with no hand flashes its message
and redirects. The warm-up says it is one (X-Nap-Warm, static/sw.js), so the message is
never left in the session, and the first hand's form opens without it.
Skipped when Chromium is not installed, unless ``NAP_REQUIRE_BROWSER=1``."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
from waitress.server import create_server

from tests import test_browser as shared
from tests.conftest import make_app
from tests.test_offline import _ready_offline
from tests.webhelpers import free_port

browser = shared.browser


@pytest.fixture
def watched(tmp_path: Any) -> Iterator[tuple[str, list[tuple[str, str, Any]]]]:
    """A server on loopback whose requests are noted once answered as (path, X-Nap-Warm,
    the messages in the session cookie the answer set: None when it set none)."""
    app = make_app(f"sqlite:///{tmp_path / 'quiet.sqlite3'}", WTF_CSRF_ENABLED=True)
    seen: list[tuple[str, str, Any]] = []
    inner = app.wsgi_app
    serializer = app.session_interface.get_signing_serializer(app)  # type: ignore[attr-defined]

    def noting(environ: dict[str, Any], start_response: Any) -> Any:
        left: list[Any] = [None]

        def starting(status: str, headers: list[tuple[str, str]], *rest: Any) -> Any:
            for name, value in headers:
                if name.lower() == "set-cookie" and value.startswith("session="):
                    left[0] = serializer.loads(value.split(";", 1)[0].removeprefix("session=")).get("_flashes", [])
            return start_response(status, headers, *rest)

        answer = inner(environ, starting)
        seen.append((environ.get("PATH_INFO", ""), environ.get("HTTP_X_NAP_WARM", ""), left[0]))
        return answer

    app.wsgi_app = noting  # type: ignore[method-assign]
    port = free_port()
    server = create_server(app, host="127.0.0.1", port=port, threads=4)
    threading.Thread(target=server.run, daemon=True).start()
    yield f"http://127.0.0.1:{port}", seen
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and (server.task_dispatcher.queue or server.task_dispatcher.active_count):
        time.sleep(0.05)
    time.sleep(0.2)
    server.close()


def test_the_service_workers_warm_up_of_undo_leaves_no_message_for_the_first_hand(
        browser: Any, watched: tuple[str, list[tuple[str, str, Any]]]) -> None:
    base, seen = watched
    context, page = shared._phone(browser)
    try:
        key = shared._start_table(page, base)
        _ready_offline(page, base, key)
        # the table's pages, the undo page among them, are warmed in one answer (/e/<key>/kept,
        # each page made by its own route inside it)
        kept = f"/e/{key}/kept"
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and not any(path == kept for path, _, _ in seen):
            time.sleep(0.05)
        # warmed, said so, and left no message in the session (not even for a moment: the
        # answers to other warm-ups come back in any order, and the last cookie stays)
        assert [(path, warm, bool(flashes)) for path, warm, flashes in seen if path == kept] == [(kept, "1", False)]
        assert [path for path, _, flashes in seen if flashes and path != "/new/pagat"] == [], seen
        time.sleep(0.5)  # the warm-up's answer reaches the phone's cookies
        page.goto(f"{base}/e/{key}/hand")
        assert page.locator("h1").first.is_visible()
        assert "There is no hand to undo." not in page.content()
        page.goto(f"{base}/e/{key}")
        assert "There is no hand to undo." not in page.content()
    finally:
        context.close()
