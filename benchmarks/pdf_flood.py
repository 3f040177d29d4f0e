"""PDF flood: does a flood of PDF requests for one huge evening starve other tables?

Starts the app under waitress (8 threads, as ``./scripts/serve``) on a throwaway SQLite
database on loopback, imports an evening at the file format's size limit (500 hands,
6 players, an override with a 500-character reason on every hand) and a small table,
then measures the small table's pages (scoresheet and history) while idle, and again
while ``FLOOD`` clients ask for the huge evening's PDF over and over for ``SECONDS``.
Prints the latencies and their ratio to the idle ones (measured in the same run);
nothing is asserted about wall-clock time.

    .venv/bin/python benchmarks/pdf_flood.py [--flood 8] [--seconds 40] [--limit 10]
"""

from __future__ import annotations

import argparse
import http.client
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
from scorer.evening.file import EveningFile  # noqa: E402
from scorer.evening.ledger import Fold  # noqa: E402
from scorer.rules import EveningSetup, HandFacts, Override, get_variant  # noqa: E402
from scorer.storage import evening_writes, hand_writes  # noqa: E402


def huge_evening(hands: int = 500) -> EveningFile:
    """pagat, 6 players, every hand passed out and overruled with a long reason (legal:
    the table's figures sum to zero; all-pass hands do not count towards P-14)."""
    names = ("Anna", "Bjørn", "Carla", "Dmitri", "Elena", "Farid")
    setup = get_variant("pagat").check_setup(EveningSetup("pagat", names, 0, {"hands_per_dealer": 50}, None))
    fold = Fold(setup)
    reason = ("The table agreed after a long discussion about the deal, the cut and who saw which card; " * 6)[:500]
    for i in range(hands):
        units = tuple((i + s) % 5 - 2 for s in range(5))
        override = Override(units + (-sum(units),), reason)
        fold.add(HandFacts(fold.next_dealer, ("pass",) * 6, override=override))
    return EveningFile(setup=setup, hands=[row.facts for row in fold.rows], name="Flood")



def get(port: int, path: str, timeout: float = 120) -> tuple[int, float]:
    started = time.perf_counter()
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        conn.request("GET", path)
        response = conn.getresponse()
        response.read()
        return response.status, time.perf_counter() - started
    finally:
        conn.close()


def sample(port: int, paths: list[str], seconds: float, pause: float = 0.25) -> list[float]:
    out: list[float] = []
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        for path in paths:
            status, took = get(port, path)
            assert status == 200, (path, status)
            out.append(took)
        time.sleep(pause)
    return out


def describe(times: list[float]) -> str:
    q = statistics.quantiles(times, n=20) if len(times) > 1 else times * 19
    return f"n={len(times):4d}  p50 {1000 * statistics.median(times):8.1f} ms  p95 {1000 * q[18]:8.1f} ms  " \
           f"max {1000 * max(times):8.1f} ms"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--flood", type=int, default=8, help="clients asking for the PDF at once")
    parser.add_argument("--seconds", type=float, default=40.0, help="how long the flood lasts")
    parser.add_argument("--limit", type=float, default=10.0, help="PDF_TIME_LIMIT for the run (seconds)")
    args = parser.parse_args()

    db = Path(tempfile.mkdtemp()) / "flood.sqlite3"
    app = create_app({"SECRET_KEY": "bench", "SQLALCHEMY_DATABASE_URI": f"sqlite:///{db}",
                      "PDF_TIME_LIMIT": args.limit})
    with app.app_context():
        from flask_migrate import upgrade

        upgrade()
        big = evening_writes.import_evening(huge_evening()).key
        small = evening_writes.create_evening(variant="pagat", players=["Ann", "Bob", "Cat", "Dan"], first_dealer=0,
                                        options={}, stake=None)
        small_key = small.key
        hand_writes.record_hand(small, 1, HandFacts(0, ("three", "pass", "pass", "pass"), 3))
    server, port = serve(app, threads=8)
    pages = [f"/e/{small_key}", f"/e/{small_key}/history"]
    for path in pages:
        get(port, path)  # warm up
    idle = sample(port, pages, 8)

    statuses: dict[int, int] = {}
    lock = threading.Lock()
    stop = time.monotonic() + args.seconds

    def flood() -> None:
        while time.monotonic() < stop:
            status, _took = get(port, f"/e/{big}/evening.pdf")
            with lock:
                statuses[status] = statuses.get(status, 0) + 1

    threads = [threading.Thread(target=flood, daemon=True) for _ in range(args.flood)]
    for t in threads:
        t.start()
    time.sleep(1)
    loaded = sample(port, pages, max(1.0, args.seconds - 2))
    for t in threads:
        t.join(timeout=args.limit + 30)
    server.close()

    print(f"PDF flood: {args.flood} clients × {args.seconds:.0f} s on a 500-hand, 6-player evening "
          f"(PDF_TIME_LIMIT {args.limit:g} s); another table's scoresheet and history:")
    print(f"  idle    {describe(idle)}")
    print(f"  flooded {describe(loaded)}")
    print(f"  ratio   p50 ×{statistics.median(loaded) / statistics.median(idle):.1f}   "
          f"max ×{max(loaded) / statistics.median(idle):.1f} (flooded over idle p50)")
    print(f"  PDF answers: {dict(sorted(statuses.items()))}")


if __name__ == "__main__":
    main()
