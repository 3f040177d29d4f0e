"""What the benchmarks share: a free loopback port, and the app under waitress in a thread."""

from __future__ import annotations

import socket
import threading
from typing import Any

from waitress.server import create_server


def free_port() -> int:
    """A port nothing listens on at 127.0.0.1 now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def serve(app: Any, **settings: Any) -> tuple[Any, int]:
    """``app`` under waitress on a free loopback port, in a daemon thread: ``(server, port)``.
    ``server.close()`` stops it (a closed socket under waitress's loop is not an error here)."""
    server = create_server(app, host="127.0.0.1", port=0, **settings)

    def run() -> None:
        try:
            server.run()
        except OSError:
            pass

    threading.Thread(target=run, daemon=True).start()
    return server, server.effective_port
