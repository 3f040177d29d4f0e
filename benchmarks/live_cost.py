"""What the live channel costs the server: polls (before) against pushed streams (after),
measured in the same run (issue 23, items 2 and 3).

Starts ``nap serve --workers 2`` on loopback (PostgreSQL: a throwaway schema; ``--sqlite``: a
throwaway file) with ``--tables`` tables, and watches each table with ``--phones`` phones:

- ``poll`` (before; what ``static/live.js`` does without a stream server): every phone asks
  ``GET /e/<key>/revision`` every 1.5 s on a kept-alive connection; ``nap serve --live-port 0``;
- ``stream`` (after): every phone holds ``GET /e/<key>/events`` open on the stream server
  (``nap serve --live-port P``, :mod:`scorer.web.live_stream`) and reads the revisions pushed.

Every table changes once every ``--change-every`` seconds (its revision bumped in the database
as a save's unit of work does, with the save's ``NOTIFY`` on PostgreSQL; the save itself is
not the live channel's cost). Measured over ``--duration`` seconds after the phones are in:
the server's CPU (every process of ``nap serve``, from /proc) per table-second, and the
delay from a change committed to each phone knowing of it (p50, p99, max). Nothing is asserted.

    .venv/bin/python benchmarks/live_cost.py [--tables 100] [--stream-tables 1000] [--sqlite]
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import os
import random
import secrets
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from load import cpu_seconds, drop_schema, free_port, listening, make_schema, percentile  # noqa: E402

POLL_EVERY = 1.5  # seconds, as static/live.js


def make_tables(url: str, tables: int) -> list[str]:
    """``tables`` new evenings (4 players, pagat, no hand): their keys."""
    from flask_migrate import upgrade

    from scorer import create_app
    from scorer.storage import evening_writes

    app = create_app({"SECRET_KEY": "live-cost", "SQLALCHEMY_DATABASE_URI": url, "NAP_LIVE_LISTEN": False})
    keys = []
    with app.app_context():
        upgrade()
        for _ in range(tables):
            keys.append(evening_writes.create_evening(variant="pagat", players=["Ann", "Bob", "Cat", "Dan"],
                                                      first_dealer=0, options={}, stake=None).key)
        from scorer.storage.models import db

        db.session.remove()
        db.engine.dispose()
    return keys


def start_server(url: str, port: int, live_port: int, workers: int) -> subprocess.Popen[bytes]:
    env = dict(os.environ, DATABASE_URL=url, SECRET_KEY="live-" + secrets.token_hex(8),
               NAP_INSTANCE=tempfile.mkdtemp(prefix="nap-live-"), PYTHONPATH=str(ROOT))
    env.pop("NAP_PROXY_HOPS", None)
    env["NAP_LIVE_PER_ADDRESS"] = "100000"  # every phone here comes from 127.0.0.1
    command = [sys.executable, "-m", "scorer", "serve", "--host", "127.0.0.1", "--port", str(port),
               "--workers", str(workers), "--live-port", str(live_port)]
    log = Path(env["NAP_INSTANCE"]) / "serve.log"
    with log.open("wb") as out:
        server = subprocess.Popen(command, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)
    listening(server, port, 120, "nap serve", log)
    if live_port:
        listening(server, live_port, 60, "the stream server", log)
    return server


# ----------------------------------------------------------------------------- the phones
async def poller(base: str, key: str, end: float, heard: list[tuple[str, int, float]], errors: list[str]) -> None:
    import aiohttp

    async with aiohttp.ClientSession(base, connector=aiohttp.TCPConnector(limit=1),
                                     timeout=aiohttp.ClientTimeout(total=10)) as session:
        await asyncio.sleep(random.uniform(0, POLL_EVERY))
        shown = None
        tick = time.monotonic()
        while time.monotonic() < end:
            try:
                async with session.get(f"/e/{key}/revision") as response:
                    revision = (await response.json())["revision"]
                if revision != shown:
                    if shown is not None:  # the first answer is the state found, not a change learnt
                        heard.append((key, revision, time.time()))
                    shown = revision
            except (TimeoutError, aiohttp.ClientError, ValueError, KeyError) as error:
                errors.append(type(error).__name__)
            tick += POLL_EVERY
            await asyncio.sleep(max(0.0, tick - time.monotonic()))


async def streamer(base: str, key: str, end: float, heard: list[tuple[str, int, float]], errors: list[str]) -> None:
    import aiohttp

    await asyncio.sleep(random.uniform(0, POLL_EVERY))
    timeout = aiohttp.ClientTimeout(total=None, sock_read=60)
    try:
        async with aiohttp.ClientSession(base, timeout=timeout) as session, \
                session.get(f"/e/{key}/events") as response:
            if response.status != 200:
                errors.append(f"HTTP {response.status}")
                return
            first = True  # the event on opening is the state found, not a change pushed
            async with asyncio.timeout(max(0.0, end - time.monotonic())):
                async for line in response.content:
                    if line.startswith(b"data: "):
                        if not first:
                            heard.append((key, int(line[len(b'data: {"revision": '):].rstrip(b"}\n")), time.time()))
                        first = False
    except TimeoutError:
        pass  # the end of the run
    except (aiohttp.ClientError, ValueError) as error:
        errors.append(type(error).__name__)


def run_phones(mode: str, base: str, keys: list[str], phones: int, end_in: float) -> dict[str, Any]:
    async def main() -> tuple[list[tuple[str, int, float]], list[str]]:
        heard: list[tuple[str, int, float]] = []
        errors: list[str] = []
        end = time.monotonic() + end_in
        phone = poller if mode == "poll" else streamer
        await asyncio.gather(*(phone(base, key, end, heard, errors) for key in keys for _ in range(phones)))
        return heard, errors

    heard, errors = asyncio.run(main())
    return {"heard": heard, "errors": errors}


# ----------------------------------------------------------------------------- the changes
class Changer:
    """Bumps a table's revision as a save does (with its NOTIFY on PostgreSQL)."""

    def __init__(self, url: str) -> None:
        import sqlalchemy as sa

        self.engine = sa.create_engine(url)
        self.postgres = url.startswith("postgresql")

    def change(self, key: str) -> tuple[int, float]:
        import sqlalchemy as sa

        with self.engine.begin() as conn:
            revision = conn.execute(sa.text("UPDATE evening SET revision = revision + 1 WHERE key = :k "
                                            "RETURNING revision"), {"k": key}).scalar_one()
            if self.postgres:
                conn.execute(sa.text("SELECT pg_notify('nap_revision', :k)"), {"k": key})
        return revision, time.time()


def measure(mode: str, url: str, keys: list[str], args: argparse.Namespace) -> dict[str, Any]:
    """One mode's run: the server's CPU per table-second and the delays."""
    port, live_port = free_port(), (free_port() if mode == "stream" else 0)
    server = start_server(url, port, live_port, args.workers)
    changer = Changer(url)
    try:
        base = f"http://127.0.0.1:{live_port or port}"
        span = args.warmup + args.duration + 2
        chunks = [keys[i::args.clients] for i in range(args.clients)]
        with multiprocessing.get_context("spawn").Pool(args.clients) as pool:
            pending = pool.starmap_async(run_phones, [(mode, base, chunk, args.phones, span) for chunk in chunks])
            time.sleep(args.warmup)
            cpu_before, started = cpu_seconds(server.pid), time.monotonic()
            made: dict[tuple[str, int], float] = {}
            order = list(keys)
            random.Random(1).shuffle(order)
            gap = args.change_every / len(order)
            i, next_at = 0, time.monotonic()
            while time.monotonic() < started + args.duration:
                key = order[i % len(order)]
                revision, at = changer.change(key)
                made[(key, revision)] = at
                i += 1
                next_at += gap
                time.sleep(max(0.0, next_at - time.monotonic()))
            cpu = cpu_seconds(server.pid) - cpu_before
            elapsed = time.monotonic() - started
            load = os.getloadavg()[0]
            results = pending.get(timeout=span + 120)
    finally:
        changer.engine.dispose()
        server.terminate()
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
    delays = [at - made[(key, revision)] for r in results for key, revision, at in r["heard"]
              if (key, revision) in made]
    expected = len(made) * args.phones
    return {"cpu": cpu, "elapsed": elapsed, "per_table_second": cpu * 1000 / (len(keys) * elapsed),
            "delays": delays, "told": len(delays), "expected": expected, "load": load,
            "errors": sum(len(r["errors"]) for r in results),
            "first_error": next((e for r in results for e in r["errors"]), "")}


def line(mode: str, tables: int, figures: dict[str, Any]) -> str:
    d = figures["delays"]
    core = figures["cpu"] / figures["elapsed"] * 100
    worst = max(d, default=float("nan"))
    return (f"{mode:7} {tables:6d} {figures['per_table_second']:14.3f} {core:7.1f}% "
            f"{percentile(d, 0.5) * 1000:8.0f} {percentile(d, 0.99) * 1000:8.0f} {worst * 1000:8.0f} "
            f"{figures['told']:6d}/{figures['expected']:<6d} {figures['errors']:6d} {figures['load']:6.1f}"
            + (f"  (first error: {figures['first_error']})" if figures["errors"] else ""))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=100, help="tables watched in both modes")
    parser.add_argument("--stream-tables", type=int, default=0,
                        help="also the stream mode alone at this many tables (1000: the issue's club)")
    parser.add_argument("--phones", type=int, default=5)
    parser.add_argument("--change-every", type=float, default=10.0, help="seconds between a table's changes")
    parser.add_argument("--duration", type=float, default=30.0)
    parser.add_argument("--warmup", type=float, default=8.0)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--clients", type=int, default=2, help="client processes")
    parser.add_argument("--sqlite", action="store_true", help="SQLite instead of PostgreSQL")
    parser.add_argument("--database", default=os.environ.get("TEST_POSTGRES_URL", "postgresql://127.0.0.1:5432/test"))
    args = parser.parse_args()
    runs = [("poll", args.tables), ("stream", args.tables)]
    if args.stream_tables:
        runs.append(("stream", args.stream_tables))
    most = max(n for _, n in runs)
    if args.sqlite:
        url, cleanup = f"sqlite:///{Path(tempfile.mkdtemp(prefix='nap-live-cost-')) / 'live.sqlite3'}", None
        db = "SQLite"
    else:
        base = args.database.replace("postgresql+psycopg://", "postgresql://")
        schema, url = make_schema(base)
        cleanup, db = (base, schema), f"PostgreSQL (schema {schema})"
    try:
        keys = make_tables(url, most)
        print(f"live channel: {args.phones} phones a table, a change per table every {args.change_every:g} s, "
              f"{args.duration:g} s measured, nap serve --workers {args.workers}, {db}; "
              f"{os.cpu_count()} cores", flush=True)
        print(f"{'mode':7} {'tables':>6} {'ms CPU/table-s':>14} {'of core':>8} {'p50 ms':>8} {'p99 ms':>8} "
              f"{'max ms':>8} {'told/expected':>13} {'errors':>6} {'load':>6}  (delay: change → phone knows)")
        figures = {}
        for mode, tables in runs:
            figures[(mode, tables)] = result = measure(mode, url, keys[:tables], args)
            print(line(mode, tables, result), flush=True)
        before, after = figures[("poll", args.tables)], figures[("stream", args.tables)]
        print(f"stream ÷ poll at {args.tables} tables: CPU per table-second "
              f"×{after['per_table_second'] / before['per_table_second']:.2f} "
              f"({before['per_table_second']:.3f} → {after['per_table_second']:.3f} ms)")
    finally:
        if cleanup is not None:
            drop_schema(*cleanup)


if __name__ == "__main__":
    main()
