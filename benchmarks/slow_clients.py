"""Slow clients: can connections that trickle headers make the server unreachable?

Serves the app twice on loopback (a throwaway SQLite database), once with waitress's
default limits (the baseline) and once with ``scorer.cli.serve.SERVER_LIMITS``. Each time,
``--slow`` connections send one header line every ``--every`` seconds (no link or cookie
needed, only the port), and a normal phone then asks for the start page ``--tries``
times. Prints how many of those answered, and their latencies; nothing is asserted.

    .venv/bin/python benchmarks/slow_clients.py [--slow 110] [--every 5] [--tries 5]
"""

from __future__ import annotations

import argparse
import http.client
import socket
import statistics
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


def run(settings: dict, slow: int, every: float, tries: int) -> tuple[int, list[float]]:
    db = Path(tempfile.mkdtemp()) / "slow.sqlite3"
    app = create_app({"SECRET_KEY": "bench", "SQLALCHEMY_DATABASE_URI": f"sqlite:///{db}"})
    with app.app_context():
        from flask_migrate import upgrade

        upgrade()
    server, port = serve(app, **settings)
    stop = threading.Event()
    sockets: list[socket.socket] = []
    for _ in range(slow):
        s = socket.create_connection(("127.0.0.1", port))
        s.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n")
        sockets.append(s)

    def trickle() -> None:
        n = 0
        while not stop.wait(every):
            n += 1
            for s in sockets:
                try:
                    s.sendall(b"X-Slow-%d: 1\r\n" % n)
                except OSError:
                    pass

    threading.Thread(target=trickle, daemon=True).start()
    time.sleep(1)
    answered, times = 0, []
    for _ in range(tries):
        started = time.perf_counter()
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
            conn.request("GET", "/healthz")
            if conn.getresponse().status == 200:
                answered += 1
                times.append(time.perf_counter() - started)
            conn.close()
        except OSError:
            pass
    stop.set()
    for s in sockets:
        s.close()
    server.close()
    return answered, times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--slow", type=int, default=110)
    parser.add_argument("--every", type=float, default=5.0)
    parser.add_argument("--tries", type=int, default=5)
    args = parser.parse_args()
    print(f"Slow clients: {args.slow} connections sending a header line every {args.every:g} s; "
          f"{args.tries} normal requests (10 s timeout each):")
    for label, settings in (("waitress defaults", {"threads": 8}), ("scorer.cli.serve limits", SERVER_LIMITS)):
        answered, times = run(settings, args.slow, args.every, args.tries)
        median = f"p50 {1000 * statistics.median(times):.1f} ms" if times else "—"
        print(f"  {label:20s} answered {answered}/{args.tries}  {median}")


if __name__ == "__main__":
    main()
