"""The live-update poll: what one ``GET /e/<key>/revision`` costs the server, against the
trivial ``/healthz`` route, measured in the same run.

Serves the app under waitress on loopback (a throwaway SQLite database, or
``--database URL``), then ``--clients`` threads each send ``--requests`` polls over a
kept-alive connection, as phones do every 1.5 s, once for ``/healthz`` and once for the
revision (with a phone's cookies). Prints requests/s and the ratio to ``/healthz``;
nothing is asserted.

    .venv/bin/python benchmarks/poll.py [--clients 4] [--requests 500] [--database URL]
"""

from __future__ import annotations

import argparse
import http.client
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from serving import serve  # noqa: E402 - benchmarks/serving.py

from scorer import create_app  # noqa: E402
from scorer.cli.serve import SERVER_LIMITS  # noqa: E402
from scorer.storage import evening_writes  # noqa: E402


def hammer(port: int, path: str, clients: int, requests: int, headers: dict[str, str]) -> float:
    """Requests per second of ``clients`` kept-alive connections asking for ``path``."""
    def run() -> None:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        for _ in range(requests):
            conn.request("GET", path, headers=headers)
            response = conn.getresponse()
            response.read()
            assert response.status in (200, 304), (path, response.status)
        conn.close()

    threads = [threading.Thread(target=run) for _ in range(clients)]
    started = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return clients * requests / (time.perf_counter() - started)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--requests", type=int, default=500)
    parser.add_argument("--database", default="")
    args = parser.parse_args()
    url = args.database or f"sqlite:///{Path(tempfile.mkdtemp()) / 'poll.sqlite3'}"
    app = create_app({"SECRET_KEY": "bench", "SQLALCHEMY_DATABASE_URI": url})
    with app.app_context():
        from flask_migrate import upgrade

        upgrade()
        key = evening_writes.create_evening(variant="pagat", players=["Ann", "Bob", "Cat", "Dan"], first_dealer=0,
                                      options={}, stake=None).key
    server, port = serve(app, **SERVER_LIMITS)
    # a phone's cookies: its device id and a session, as a browser sends them with every poll
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    jar: dict[str, str] = {}
    for _ in range(2):  # the first visit is given a device id; the second comes back with it
        conn.request("GET", f"/e/{key}", headers={"Cookie": "; ".join(f"{k}={v}" for k, v in jar.items())})
        response = conn.getresponse()
        response.read()
        for raw in response.msg.get_all("Set-Cookie") or []:
            name, _, value = raw.split(";", 1)[0].partition("=")
            jar[name] = value
    cookie = {"Cookie": "; ".join(f"{k}={v}" for k, v in jar.items())}
    conn.close()
    hammer(port, "/healthz", args.clients, 50, {})  # warm up
    trivial = hammer(port, "/healthz", args.clients, args.requests, {})
    poll = hammer(port, f"/e/{key}/revision", args.clients, args.requests, cookie)
    print(f"poll benchmark: {args.clients} clients × {args.requests} requests, kept-alive, {url.split(':')[0]}")
    print(f"  /healthz                       {trivial:8.0f} requests/s")
    print(f"  /e/<key>/revision              {poll:8.0f} requests/s  cost ×{trivial / poll:.2f} of /healthz")
    server.close()


if __name__ == "__main__":
    main()
