"""``nap serve``: the app under waitress, with limits fit for a table and for the internet.

One place for the server's settings, used by ``nap serve`` and ``./scripts/serve``:

- ``connection_limit`` 1000 (waitress: 100): idle or slow connections (a phone that
  opened a socket and went quiet, or 110 connections each sending a header line every
  5 s) cannot fill the server; each costs a socket, not a thread.
- ``channel_timeout`` 30 s (waitress: 120 s): a connection that sends nothing for 30 s
  is closed.
- ``max_request_body_size`` just over the app's 1 MB ``MAX_CONTENT_LENGTH``: a larger
  body is refused (413) as it arrives, never written to a temporary file first.
- ``threads`` 8: pages are short; PDFs run in a render worker process, one at a time
  (:mod:`scorer.pdf`), so a thread is never held by a render queue.

On the open internet the app belongs behind a reverse proxy that buffers slow clients
(README, "Deploy").
"""

from __future__ import annotations

import io
import os
import sys
from typing import Any, TextIO
from urllib.parse import urlsplit

#: The app's largest request body (an evening file of about 2000 hands): see ``scorer.app``.
MAX_BODY = 1024 * 1024

#: waitress's settings (``waitress.serve(app, **SERVER_LIMITS)``).
SERVER_LIMITS: dict[str, Any] = {
    "threads": 8,
    "connection_limit": 1000,
    "channel_timeout": 30,
    "cleanup_interval": 10,
    # the multipart wrapping of an evening file adds a little to the file itself
    "max_request_body_size": MAX_BODY + 64 * 1024,
}


def server_settings(app: Any) -> dict[str, Any]:
    """waitress's settings for ``app``: :data:`SERVER_LIMITS`, and, when the app trusts a
    proxy (``NAP_PROXY_HOPS``), the ``X-Forwarded-*`` headers left for werkzeug's ProxyFix
    to read (waitress removes them by default, so behind nginx every link said ``http``)."""
    settings = dict(SERVER_LIMITS)
    if app.config.get("NAP_PROXY_HOPS"):
        settings["clear_untrusted_proxy_headers"] = False
    return settings


def serve(host: str = "0.0.0.0", port: int = 5000, *, upgrade: bool = True) -> None:  # noqa: S104 - the table's phones
    """Build the app (``DATABASE_URL``, SQLite in ``instance/`` by default), bring the
    database up to the newest migration if ``upgrade``, and serve it until stopped."""
    import waitress

    from . import create_app

    app = create_app()
    if upgrade:
        from flask_migrate import upgrade as migrate_up

        with app.app_context():
            migrate_up()
    from .pdf import warm_workers

    with app.app_context():
        warm_workers()  # WeasyPrint loads in the render worker while the server starts
    from . import lan

    # listening on a loopback address only: the Share page must not offer the LAN address,
    # which this server does not answer on
    app.config["LISTENING_LOCAL_ONLY"] = host not in ("0.0.0.0", "::", "") and lan.is_local_name(host)  # noqa: S104
    print(f"Nap scorer: serving on http://{host}:{port}/ (Ctrl-C stops it)", flush=True)
    public_url = app.config.get("PUBLIC_URL") or ""
    if app.config.get("NAP_PROXY_HOPS") and not public_url:
        # behind a proxy the phones open the proxy's public address, which only the proxy knows
        print("Behind a reverse proxy: the phones open its public https address "
              "(set PUBLIC_URL to have it printed here).", flush=True)
    else:
        announce(host, port, public_url=public_url)
    waitress.serve(app, host=host, port=port, **server_settings(app))


def table_url(host: str, port: int, public_url: str = "") -> str:
    """The address the other phones must open: ``PUBLIC_URL`` if set; this machine's LAN
    address when listening on every interface (``0.0.0.0``, ``::``); else the address
    listened on (``127.0.0.1``: only this machine can open it)."""
    from . import lan

    if public_url:
        return public_url.rstrip("/") + "/"
    name = host
    if host in ("0.0.0.0", "::", ""):  # noqa: S104
        name = lan.lan_address()
    if ":" in name:
        name = f"[{name}]"
    return f"http://{name}:{port}/"


def announce(host: str, port: int, public_url: str = "", out: TextIO | None = None) -> str:
    """Print the address the phones at the table must open, and its QR code as text."""
    import segno

    from . import lan

    out = out or sys.stdout
    url = table_url(host, port, public_url or os.environ.get("PUBLIC_URL", ""))
    code = io.StringIO()
    segno.make(url, error="m").terminal(out=code, compact=True)
    print(f"Phones at the table: open {url} (or point the camera at this code)", file=out)
    print(code.getvalue(), file=out, flush=True)
    if lan.is_local_name(urlsplit(url).hostname or ""):
        print("(Only this machine can open it: no network, or listening on a local address.)", file=out, flush=True)
    return url
