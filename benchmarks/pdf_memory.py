"""The PDF render worker's memory after a long evening's PDF (issue 23, item 5); prints
figures, asserts nothing.

Through the app (Flask's test client, SQLite, one render worker): a 10-hand PDF warms the
worker; then the PDF of an evening of ``--hands`` random legal hands (default 1,000,
``tests/long_evenings.py``); then, ``--settle`` seconds later (the worker's collection
done, a replacement warmed up), the resident memory of the worker the pool now holds, read
from ``/proc/<pid>/statm`` by this process, and whether it is the one that rendered; then
another 10-hand PDF and the memory after it. Before this item the worker that rendered
the long PDF kept its memory until its 100th render; now it is replaced when it reports
more than ``NAP_PDF_WORKER_MAX_MIB`` (250 MiB). Works on older checkouts too (the figure
the worker reported is then "—").

Run: ``.venv/bin/python benchmarks/pdf_memory.py [--hands 1000] [--settle 5]``.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.long_evenings import long_evening  # noqa: E402

MIB = 1024 * 1024


def resident_mib(pid: int | None) -> float:
    """``pid``'s resident memory now, in MiB (``/proc/<pid>/statm``); 0 if it is gone."""
    try:
        with open(f"/proc/{pid}/statm", "rb") as statm:
            return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / MIB
    except (OSError, ValueError, IndexError, TypeError):
        return 0.0


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--hands", type=int, default=1000)
    parser.add_argument("--settle", type=float, default=5.0, help="seconds to wait after a render before reading")
    args = parser.parse_args()

    from flask_migrate import upgrade

    from scorer import create_app
    from scorer.reports.pdf import workers
    from scorer.storage import evening_writes

    with tempfile.TemporaryDirectory() as tmp:
        app = create_app({"SQLALCHEMY_DATABASE_URI": f"sqlite:///{tmp}/bench.sqlite3", "SECRET_KEY": "bench",
                          "PDF_TIME_LIMIT": 300})
        with app.app_context():
            upgrade()
            short = evening_writes.import_evening(long_evening(10, seed=1)).key
            long = evening_writes.import_evening(long_evening(args.hands)).key
            short2 = evening_writes.import_evening(long_evening(10, seed=2)).key
            pool = workers()
        client = app.test_client()
        worker: Any = pool.all[0]

        def pdf(key: str) -> float:
            started = time.perf_counter()
            answer = client.get(f"/e/{key}/evening.pdf")
            assert answer.status_code == 200, answer.status_code
            return time.perf_counter() - started

        def report(what: str, seconds: float, rendered_by: int | None) -> None:
            time.sleep(args.settle)
            reported = getattr(worker, "last_rss", None)
            said = "—" if reported is None else f"{reported / MIB:.0f} MiB"
            print(f"{what:<22} {seconds:6.1f} s  worker {rendered_by} said {said:>8}; "
                  f"now worker {worker.pid} ({'the same' if worker.pid == rendered_by else 'a fresh one'}) "
                  f"holds {resident_mib(worker.pid):.0f} MiB")

        seconds = pdf(short)
        report("10 hands (warm-up)", seconds, worker.pid)
        pid = worker.pid
        seconds = pdf(long)
        report(f"{args.hands} hands", seconds, pid)
        pid = worker.pid
        seconds = pdf(short2)
        report("10 hands, after", seconds, pid)
        print(f"bound: {getattr(worker, 'max_mib', '—')} MiB; renders before replacement: {worker.max_renders}")
        pool.close()


if __name__ == "__main__":
    main()
