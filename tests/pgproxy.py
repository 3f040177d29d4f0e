"""A small TCP proxy between a PostgreSQL client and the server, for the listener's
failures (tests/test_listen.py, benchmarks/listen_stale.py):

- :meth:`PgProxy.blackhole`: every connection through it goes silent, in both directions,
  without being closed (what a half-open connection looks like: a NAT or firewall forgot
  it, the server's box vanished); new connections are accepted and then hear nothing;
- :meth:`PgProxy.resume`: new connections go through again (the silent ones stay silent);
- :attr:`PgProxy.swallow_notifications`: the server's NotificationResponse messages
  (``'A'``) are dropped, as through a pooler in transaction mode, where the session that
  ran ``LISTEN`` is not the one the notification is delivered to.

Clients connect with :meth:`PgProxy.dsn` (no TLS, so the proxy can read the protocol).
"""

from __future__ import annotations

import contextlib
import socket
import threading


class PgProxy:
    """A proxy on a free loopback port to PostgreSQL at ``target``."""

    def __init__(self, target: tuple[str, int] = ("127.0.0.1", 5432)) -> None:
        self.target = target
        self.swallow_notifications = False
        self._silent = False
        self._lock = threading.Lock()
        self._links: list[_Link] = []
        self._server = socket.create_server(("127.0.0.1", 0))
        self.port: int = self._server.getsockname()[1]
        self._closed = False
        threading.Thread(target=self._accept, name="pgproxy", daemon=True).start()

    def dsn(self, url: str) -> str:
        """``url`` (a SQLAlchemy or libpq URL of ``target``) through this proxy, as a libpq URL."""
        from sqlalchemy.engine import make_url

        through = make_url(url).set(drivername="postgresql", host="127.0.0.1", port=self.port)
        through = through.update_query_dict({"sslmode": "disable", "gssencmode": "disable"})
        return through.render_as_string(hide_password=False)

    @property
    def connections(self) -> int:
        """Connections accepted so far."""
        return len(self._links)

    def blackhole(self) -> None:
        with self._lock:
            self._silent = True
            for link in self._links:
                link.silent = True

    def resume(self) -> None:
        with self._lock:
            self._silent = False

    def close(self) -> None:
        self._closed = True
        with contextlib.suppress(OSError):
            self._server.close()
        with self._lock:
            for link in self._links:
                link.close()

    def _accept(self) -> None:
        while not self._closed:
            try:
                client, _ = self._server.accept()
            except OSError:
                return
            with self._lock:
                link = _Link(self, client, silent=self._silent)
                self._links.append(link)
            link.start()


class _Link:
    """One client connection and its connection to the server, pumped both ways."""

    def __init__(self, proxy: PgProxy, client: socket.socket, silent: bool) -> None:
        self.proxy = proxy
        self.client = client
        self.silent = silent
        self.server: socket.socket | None = None

    def start(self) -> None:
        if not self.silent:
            try:
                self.server = socket.create_connection(self.proxy.target, timeout=5)
                self.server.settimeout(None)
            except OSError:
                self.client.close()
                return
            threading.Thread(target=self._pump, args=(self.server, self.client, True), daemon=True).start()
        threading.Thread(target=self._pump, args=(self.client, self.server, False), daemon=True).start()

    def _pump(self, source: socket.socket, sink: socket.socket | None, from_server: bool) -> None:
        pending = b""
        while True:
            try:
                data = source.recv(65536)
            except OSError:
                data = b""
            if not data:
                if not self.silent:  # a silent link never says that it ended
                    self.close()
                return
            if self.silent or sink is None:
                continue  # read and dropped: nothing goes through, nothing is closed
            if from_server and self.proxy.swallow_notifications:
                pending += data
                data = b""
                while len(pending) >= 5:
                    size = 1 + int.from_bytes(pending[1:5], "big")
                    if len(pending) < size:
                        break
                    message, pending = pending[:size], pending[size:]
                    if message[:1] != b"A":  # NotificationResponse
                        data += message
            try:
                sink.sendall(data)
            except OSError:
                self.close()
                return

    def close(self) -> None:
        for sock in (self.client, self.server):
            if sock is not None:
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)
                with contextlib.suppress(OSError):
                    sock.close()
