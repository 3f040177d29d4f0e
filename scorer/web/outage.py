"""The database away: every request answers 503 with ``Retry-After`` (JSON under ``/api/``,
a short page elsewhere), never a 500 with a traceback; the outage is logged once, and its
end once; and the first request after it is back is served (the engine's settings below).

- PostgreSQL: the pool tests a connection before lending it (``pool_pre_ping``), so the
  connections pooled before a restart are replaced instead of failing one request each;
  connecting gives up after :data:`CONNECT_TIMEOUT` seconds, so a server that does not
  answer costs a phone seconds, not minutes.
- SQLite: a write waits for another's lock at most ``SQLITE_BUSY_TIMEOUT`` seconds
  (``NAP_SQLITE_BUSY_TIMEOUT``, default 10), then "database is locked" answers 503.

The phone's outbox sends a refused change again by itself (``static/outbox-send.js``).
"""

from __future__ import annotations

import logging
import threading
from typing import Any

from flask import Flask, Response, g, jsonify, render_template, request
from flask_babel import gettext as _
from sqlalchemy import exc
from sqlalchemy.engine import make_url

log = logging.getLogger("scorer")

#: What a phone is told to wait before asking again, in seconds.
RETRY_AFTER = "5"

#: Seconds PostgreSQL's connect may take before the request answers 503.
CONNECT_TIMEOUT = 5

#: Seconds a write on SQLite waits for another's lock, unless configured.
SQLITE_BUSY_TIMEOUT = 10.0

#: The errors that mean "the database cannot answer now", not "this request is wrong":
#: unreachable, restarted, a pooled connection gone stale, no connection free in time, locked.
UNAVAILABLE = (exc.OperationalError, exc.InterfaceError, exc.DisconnectionError, exc.TimeoutError)


def engine_options(url: str, configured: dict[str, Any] | None, busy_timeout: float) -> dict[str, Any]:
    """``SQLALCHEMY_ENGINE_OPTIONS`` for ``url``: ``configured`` (left as it is where it says
    something) with what an outage needs (see the module's text). A new dict."""
    options = dict(configured or {})
    connect_args = dict(options.get("connect_args") or {})
    parsed = make_url(url)
    if parsed.get_backend_name() == "postgresql":
        options.setdefault("pool_pre_ping", True)
        if "connect_timeout" not in parsed.query:
            connect_args.setdefault("connect_timeout", CONNECT_TIMEOUT)
    elif parsed.get_backend_name() == "sqlite" and "timeout" not in parsed.query:
        connect_args.setdefault("timeout", busy_timeout)
    if connect_args:
        options["connect_args"] = connect_args
    return options


class Outage:
    """Whether this process is in an outage, so that it is logged once when it starts and
    once when it ends, not a line (and a traceback) per request."""

    def __init__(self) -> None:
        self.down = False
        self._lock = threading.Lock()

    def started(self, error: BaseException) -> None:
        with self._lock:
            first, self.down = not self.down, True
        if first:
            said = str(getattr(error, "orig", None) or error).strip().splitlines()
            log.error("database unavailable (%s: %s); answering 503 until it is back",
                      type(error).__name__, said[0] if said else "")

    def ended(self) -> None:
        with self._lock:
            was, self.down = self.down, False
        if was:
            log.warning("database reachable again")


def init_app(app: Flask) -> None:
    """503 for :data:`UNAVAILABLE`; the end of an outage noticed on the next good answer."""
    outage = app.extensions["nap_outage"] = Outage()

    def unavailable(error: Exception) -> Any:
        outage.started(error)
        g.error_logged = True  # logged by the line above, once per outage (scorer.web.logs)
        message = _("The scores cannot be reached just now; nothing was lost. Try again in a moment.")
        headers = {"Retry-After": RETRY_AFTER, "Cache-Control": "no-store"}
        if request.path.startswith("/api/"):
            return jsonify(error={"code": "unavailable", "message": message}), 503, headers
        return render_template("error.html", code=503, message=message), 503, headers

    for error in UNAVAILABLE:
        app.register_error_handler(error, unavailable)

    @app.after_request
    def back(response: Response) -> Response:
        if outage.down and response.status_code < 500 and request.endpoint not in (None, "static"):
            outage.ended()
        return response
