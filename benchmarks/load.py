"""A club night on one box: N tables × 5 phones against ``nap serve`` on PostgreSQL.

Starts ``nap serve`` (``--workers`` app processes) on loopback on a throwaway
PostgreSQL schema (dropped at the end), with ``--tables`` evenings of ``--hands`` hands
each, then simulates what the phones of a club night do (they arrive during the first
``--warmup`` seconds but 5, then ``--duration`` seconds are measured):

- every phone (5 per table) polls ``GET /e/<key>/revision`` every 1.5 s on a kept-alive
  connection, as ``static/live.js`` does in a browser ("poll");
- a phone that sees the revision move fetches the scoresheet ``GET /e/<key>`` ("page");
- one phone per table, a scorer, saves a hand every ``--save-every`` seconds (60: a hand
  a minute; less compresses time): it reads the table (``GET /api/e/<key>``, "state")
  and sends the hand as quick entry's outbox does, ``POST /api/e/<key>/hands`` with a
  new token ("save");
- ``--probes`` extra clients ask for ``/healthz`` at the phones' pace: the same-run
  baseline ("healthz"), the cost of the server's loop and Flask's request machinery.

Prints requests/s, p50, p99, the worst time and the errors per request kind, each p50
and p99 against ``/healthz``'s, and the server's CPU per request (all its processes).
Before the load, an idle baseline: 300 sequential polls against 300 ``/healthz`` on one
connection. Nothing is asserted. Loopback only.

    .venv/bin/python benchmarks/load.py [--tables 200] [--workers 2] [--duration 60]
        [--save-every 60] [--database postgresql://127.0.0.1:5432/test] [--app-root DIR] [--proxy]

``--app-root`` serves another checkout of the app (a "before" measurement) with the same load;
``--proxy`` puts nginx with ``deploy/nginx.conf`` between the phones and the app, as deployed.
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import os
import random
import re
import resource
import secrets
import socket
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

KINDS = ("poll", "page", "state", "save", "healthz")
POLL_EVERY = 1.5  # seconds, as static/live.js
PHONES = 5
TIMEOUT = 10.0  # seconds a request may take before it counts as an error (a phone gives up)


# ----------------------------------------------------------------------------- the set-up
def listening(process: subprocess.Popen[Any], port: int, seconds: float, what: str, log: Path
              ) -> subprocess.Popen[Any]:
    """``process`` once it accepts connections on loopback ``port``; ends the run, with
    ``log``, if it stops first or does not listen within ``seconds``."""
    guard = time.monotonic() + seconds
    while time.monotonic() < guard:
        if process.poll() is not None:
            raise SystemExit(f"{what} stopped: {log.read_text() if log.exists() else ''}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return process
        except OSError:
            time.sleep(0.1)
    process.kill()
    raise SystemExit(f"{what} never listened")


def make_schema(base: str) -> tuple[str, str]:
    """A new schema in the database at ``base``: ``(schema, the app's URL with it on the search path)``."""
    import psycopg

    schema = f"nap_load_{secrets.token_hex(5)}"
    with psycopg.connect(base, autocommit=True) as conn:
        conn.execute(f'CREATE SCHEMA "{schema}"')
    return schema, f"{base}?options=-csearch_path%3D{schema}"


def drop_schema(base: str, schema: str) -> None:
    import psycopg

    with psycopg.connect(base, autocommit=True) as conn:
        conn.execute(f'DROP SCHEMA "{schema}" CASCADE')


def make_tables(url: str, tables: int, hands: int) -> list[tuple[str, str]]:
    """``tables`` evenings of ``hands`` hands (4 players, pagat): ``[(key, edit_key)]``."""
    from bench import make_evening
    from flask_migrate import upgrade

    from scorer import create_app
    from scorer.storage import evening_writes

    app = create_app({"SECRET_KEY": "load", "SQLALCHEMY_DATABASE_URI": url, "NAP_LIVE_LISTEN": False})
    made = []
    with app.app_context():
        upgrade()
        for i in range(tables):
            evening = evening_writes.import_evening(make_evening(hands, seed=i))
            made.append((evening.key, evening.edit_key))
        from scorer.storage.models import db

        db.session.remove()
        db.engine.dispose()
    return made


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(url: str, port: int, workers: int, app_root: Path) -> subprocess.Popen[bytes]:
    """``nap serve`` on 127.0.0.1:``port`` (from ``app_root``), once it accepts connections."""
    env = dict(os.environ, DATABASE_URL=url, SECRET_KEY="load-" + secrets.token_hex(8),
               NAP_INSTANCE=tempfile.mkdtemp(prefix="nap-load-"), PYTHONPATH=str(app_root))
    command = [sys.executable, "-m", "scorer", "serve", "--host", "127.0.0.1", "--port", str(port)]
    if workers:
        command += ["--workers", str(workers)]
    # its log goes to a file: a pipe nobody reads would fill and stop the server mid-run
    log = Path(env["NAP_INSTANCE"]) / "serve.log"
    with log.open("wb") as out:
        server = subprocess.Popen(command, cwd=app_root, env=env, stdout=out, stderr=subprocess.STDOUT)
    return listening(server, port, 120, "nap serve", log)


def start_nginx(app_port: int, port: int, tmp: Path) -> subprocess.Popen[bytes]:
    """nginx with ``deploy/nginx.conf`` (plain HTTP on loopback ``port``; a throwaway
    certificate for its ssl lines) in front of the app on ``app_port``, once it listens."""
    import shutil

    cert, key = tmp / "cert.pem", tmp / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=nap.test",
                    "-keyout", str(key), "-out", str(cert)], check=True, capture_output=True, timeout=60)
    site = (ROOT / "deploy" / "nginx.conf").read_text()
    # every phone here comes from 127.0.0.1: the per-address limits (for the internet) would
    # refuse a club night from one address, so they are left out of this measurement
    site = re.sub(r"(?m)^\s*limit_(req|conn) .*$", "", site)
    for name, value in {"LISTEN": f"127.0.0.1:{port}", "SERVER_NAME": "nap.test", "CERT": str(cert),
                        "KEY": str(key), "APP": f"127.0.0.1:{app_port}",
                        "ACCESS_LOG": str(tmp / "access.log")}.items():
        site = site.replace(f"@{name}@", value)
    (tmp / "site.conf").write_text(site)
    user = "user root;\n" if os.geteuid() == 0 else ""
    temp = "".join(f"    {kind}_temp_path {tmp / kind};\n" for kind in ("client_body", "proxy", "fastcgi"))
    (tmp / "nginx.conf").write_text(
        f"{user}worker_processes 1;\nworker_rlimit_nofile 8192;\nerror_log {tmp / 'error.log'} warn;\n"
        f"events {{ worker_connections 4096; }}\nhttp {{\n    access_log off;\n{temp}"
        f"    include {tmp / 'site.conf'};\n}}\n")
    nginx = shutil.which("nginx") or "/usr/sbin/nginx"
    proxy = subprocess.Popen([nginx, "-p", str(tmp), "-e", str(tmp / "error.log"), "-c", str(tmp / "nginx.conf"),
                              "-g", f"daemon off; pid {tmp / 'nginx.pid'};"],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return listening(proxy, port, 60, "nginx", tmp / "error.log")


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of ``pid`` and its living children (Linux /proc)."""
    ticks = os.sysconf("SC_CLK_TCK")
    total = 0.0
    todo = [pid]
    while todo:
        current = todo.pop()
        try:
            fields = Path(f"/proc/{current}/stat").read_text().rsplit(")", 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) / ticks
            for task in Path(f"/proc/{current}/task").iterdir():
                todo += [int(c) for c in (task / "children").read_text().split()]
        except (OSError, IndexError, ValueError):
            continue
    return total


# ----------------------------------------------------------------------------- the phones
class Tally:
    """Latencies (seconds) and errors per request kind, of requests started after ``since``."""

    def __init__(self, since: float) -> None:
        self.since = since
        self.times: dict[str, list[float]] = defaultdict(list)
        self.errors: dict[str, int] = defaultdict(int)
        self.samples: dict[str, str] = {}
        self.skipped = 0  # polls not sent on time: the answers (or this client) were too slow

    def add(self, kind: str, started: float, ok: bool, what: str = "") -> None:
        if started < self.since:
            return
        self.times[kind].append(time.monotonic() - started)
        if not ok:
            self.errors[kind] += 1
            self.samples.setdefault(kind, what)


async def request(session: Any, tally: Tally, kind: str, method: str, url: str, expect: tuple[int, ...],
                  **kwargs: Any) -> Any:
    """One request, timed into ``tally``; the JSON body (or text), or ``None`` on an error."""
    import aiohttp

    started = time.monotonic()
    try:
        async with session.request(method, url, **kwargs) as response:
            body = await (response.json() if response.content_type == "application/json" else response.text())
            ok = response.status in expect
            tally.add(kind, started, ok, f"HTTP {response.status}")
            return body if ok else None
    except (TimeoutError, aiohttp.ClientError, ValueError) as error:
        tally.add(kind, started, False, type(error).__name__)
        return None


async def phone(base: str, key: str, edit_key: str, scorer: bool, tally: Tally, end: float, save_every: float,
                rng: random.Random, ramp: float) -> None:
    """One phone at one table: polls, page views when the revision moves, and (a scorer) saves."""
    import aiohttp

    connector = aiohttp.TCPConnector(limit=1)  # one kept-alive connection, as a browser's polls use
    timeout = aiohttp.ClientTimeout(total=TIMEOUT)
    async with aiohttp.ClientSession(base, connector=connector, timeout=timeout,
                                     cookie_jar=aiohttp.CookieJar(unsafe=True)) as session:
        await asyncio.sleep(rng.uniform(0, ramp))  # the phones arrive over the ramp, not all at once
        if scorer:  # the scorers' link: this phone becomes a scorer (a device cookie), tried until it is
            while (await request(session, tally, "page", "GET", f"/e/{key}/scorer/{edit_key}", (200,)) is None
                   and time.monotonic() < end):
                await asyncio.sleep(POLL_EVERY)
        else:
            await request(session, tally, "page", "GET", f"/e/{key}", (200,))
        shown = None
        next_save = time.monotonic() + rng.uniform(0, save_every) if scorer else float("inf")
        tick = time.monotonic()
        while time.monotonic() < end:
            if time.monotonic() >= next_save:
                await save(session, key, tally, rng)
                next_save += save_every
            data = await request(session, tally, "poll", "GET", f"/e/{key}/revision", (200,))
            if data is not None:
                if shown is not None and data["revision"] != shown:
                    await request(session, tally, "page", "GET", f"/e/{key}", (200,))
                shown = data["revision"]
            tick = await next_tick(tick, tally)


async def next_tick(tick: float, tally: Tally) -> float:
    """Wait for the next tick after ``tick`` (every :data:`POLL_EVERY` s, as ``setInterval``);
    ticks already past are skipped, as a browser's busy poll skips them, and counted."""
    tick += POLL_EVERY
    now = time.monotonic()
    while tick < now:
        if tick >= tally.since:
            tally.skipped += 1
        tick += POLL_EVERY
    await asyncio.sleep(tick - now)
    return tick


async def save(session: Any, key: str, tally: Tally, rng: random.Random) -> None:
    """Quick entry's save: read the table, then send the next hand with a new token."""
    state = await request(session, tally, "state", "GET", f"/api/e/{key}", (200,))
    if state is None or state["closed"]:
        return
    hand = {"number": len(state["hands"]) + 1, "token": secrets.token_urlsafe(12),
            "facts": {"dealer": state["next_dealer"], "auction": ["three", "pass", "pass", "pass"],
                      "tricks": rng.randint(1, 5)}}
    await request(session, tally, "save", "POST", f"/api/e/{key}/hands", (201,), json=hand)


async def probe(base: str, tally: Tally, end: float, rng: random.Random) -> None:
    """The baseline: ``/healthz`` at a phone's pace on a kept-alive connection."""
    import aiohttp

    async with aiohttp.ClientSession(base, connector=aiohttp.TCPConnector(limit=1),
                                     timeout=aiohttp.ClientTimeout(total=TIMEOUT)) as session:
        await asyncio.sleep(rng.uniform(0, POLL_EVERY))
        tick = time.monotonic()
        while time.monotonic() < end:
            await request(session, tally, "healthz", "GET", "/healthz", (200,))
            tick = await next_tick(tick, tally)


def run_phones(base: str, tables: list[tuple[str, str]], probes: int, start: float, warmup: float,
               duration: float, save_every: float, seed: int) -> dict[str, Any]:
    """One client process: the phones of ``tables`` and ``probes`` baseline clients."""
    async def main() -> Tally:
        rng = random.Random(seed)
        tally = Tally(start + warmup)
        end = start + warmup + duration
        tasks = [phone(base, key, edit_key, seat == 0, tally, end, save_every, random.Random(rng.random()),
                       max(POLL_EVERY, warmup - 5.0))
                 for key, edit_key in tables for seat in range(PHONES)]
        tasks += [probe(base, tally, end, random.Random(rng.random())) for _ in range(probes)]
        await asyncio.sleep(max(0.0, start - time.monotonic()))
        await asyncio.gather(*tasks)
        return tally

    used = resource.getrusage(resource.RUSAGE_SELF)
    tally = asyncio.run(main())
    after = resource.getrusage(resource.RUSAGE_SELF)
    return {"cpu": after.ru_utime + after.ru_stime - used.ru_utime - used.ru_stime,
            "times": dict(tally.times), "errors": dict(tally.errors), "samples": tally.samples,
            "skipped": tally.skipped}


# ----------------------------------------------------------------------------- figures
def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


def idle_baseline(port: int, key: str) -> tuple[float, float]:
    """p50 of 300 sequential ``/healthz`` and of 300 polls on one kept-alive connection (seconds)."""
    import http.client

    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    figures = []
    for path in ("/healthz", f"/e/{key}/revision"):
        times = []
        for _ in range(300):
            started = time.perf_counter()
            conn.request("GET", path)
            conn.getresponse().read()
            times.append(time.perf_counter() - started)
        figures.append(percentile(times[50:], 0.5))
    conn.close()
    return figures[0], figures[1]


def report(results: list[dict[str, Any]], duration: float, cpu: float) -> None:
    times: dict[str, list[float]] = defaultdict(list)
    errors: dict[str, int] = defaultdict(int)
    samples: dict[str, str] = {}
    for result in results:
        for kind, values in result["times"].items():
            times[kind] += values
        for kind, count in result["errors"].items():
            errors[kind] += count
        for kind, text in result["samples"].items():
            samples.setdefault(kind, text)
    base50, base99 = percentile(times["healthz"], 0.5), percentile(times["healthz"], 0.99)
    total = sum(len(v) for v in times.values())
    print(f"{'kind':8} {'requests':>9} {'req/s':>7} {'p50 ms':>8} {'p99 ms':>8} {'max ms':>8} {'errors':>7}"
          f"   p50/healthz p99/healthz")
    for kind in KINDS:
        values = times.get(kind, [])
        if not values:
            continue
        p50, p99 = percentile(values, 0.5), percentile(values, 0.99)
        line = (f"{kind:8} {len(values):9d} {len(values) / duration:7.1f} {p50 * 1000:8.1f} {p99 * 1000:8.1f} "
                f"{max(values) * 1000:8.1f} {errors.get(kind, 0):7d}   ×{p50 / base50:10.2f} ×{p99 / base99:10.2f}")
        print(line + (f"   (first error: {samples[kind]})" if kind in samples else ""))
    every = [t for v in times.values() for t in v]
    print(f"{'all':8} {total:9d} {total / duration:7.1f} {percentile(every, 0.5) * 1000:8.1f} "
          f"{percentile(every, 0.99) * 1000:8.1f} {max(every) * 1000:8.1f} {sum(errors.values()):7d}")
    skipped = sum(r["skipped"] for r in results)
    print(f"polls skipped (a phone still waiting, or the client late): {skipped} "
          f"({skipped / max(1, skipped + len(times['poll']) + len(times['healthz'])) * 100:.1f}%)")
    print(f"server CPU: {cpu:.1f} s in {duration:.0f} s ({cpu / duration * 100:.0f}% of one core), "
          f"{cpu / max(total, 1) * 1000:.2f} ms per request; the phones (clients): "
          f"{sum(r['cpu'] for r in results):.1f} s")
    print(f"machine load average: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=200)
    parser.add_argument("--hands", type=int, default=30, help="hands already played at each table")
    parser.add_argument("--workers", type=int, default=0, help="app processes (nap serve --workers; 0: its default)")
    parser.add_argument("--duration", type=float, default=60.0, help="seconds measured")
    parser.add_argument("--warmup", type=float, default=20.0,
                        help="seconds before measuring: the phones arrive over all but the last 5")
    parser.add_argument("--save-every", type=float, default=60.0, help="seconds between a table's saves")
    parser.add_argument("--probes", type=int, default=0, help="/healthz clients (default: one per 10 tables)")
    parser.add_argument("--clients", type=int, default=2, help="client processes sending the load")
    parser.add_argument("--database", default=os.environ.get("TEST_POSTGRES_URL", "postgresql://127.0.0.1:5432/test"))
    parser.add_argument("--app-root", type=Path, default=ROOT, help="the checkout nap serve runs from")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--proxy", action="store_true",
                        help="the phones talk to nginx with deploy/nginx.conf (plain HTTP), nginx to the app")
    args = parser.parse_args()
    base = args.database.replace("postgresql+psycopg://", "postgresql://")
    schema, url = make_schema(base)
    server = proxy = None
    try:
        print(f"load: {args.tables} tables × {PHONES} phones, {args.hands} hands each, a save per table every "
              f"{args.save_every:g} s, {args.duration:g} s measured after {args.warmup:g} s, "
              f"nap serve --workers {args.workers or 'default'} ({args.app_root}), PostgreSQL schema {schema}",
              flush=True)
        tables = make_tables(url, args.tables, args.hands)
        port = free_port()
        server = start_server(url, port, args.workers, args.app_root.resolve())
        if args.proxy:
            app_port, port = port, free_port()
            proxy = start_nginx(app_port, port, Path(tempfile.mkdtemp(prefix="nap-load-nginx-")))
        healthz, poll = idle_baseline(port, tables[0][0])
        print(f"idle, one connection: /healthz p50 {healthz * 1000:.2f} ms, poll p50 {poll * 1000:.2f} ms "
              f"(×{poll / healthz:.2f} of /healthz)", flush=True)
        probes = args.probes or max(2, args.tables // 10)
        start = time.monotonic() + 2.0  # every client process begins together
        chunks = [tables[i::args.clients] for i in range(args.clients)]
        jobs = [(f"http://127.0.0.1:{port}", chunk, probes // args.clients + (i < probes % args.clients), start,
                 args.warmup, args.duration, args.save_every, args.seed * 100 + i) for i, chunk in enumerate(chunks)]
        with multiprocessing.get_context("spawn").Pool(args.clients) as pool:
            pending = pool.starmap_async(run_phones, jobs)
            while time.monotonic() < start + args.warmup:
                time.sleep(0.1)
            cpu_before = cpu_seconds(server.pid)
            nginx_before = cpu_seconds(proxy.pid) if proxy else 0.0
            while time.monotonic() < start + args.warmup + args.duration:
                time.sleep(0.1)
            cpu = cpu_seconds(server.pid) - cpu_before
            nginx_cpu = cpu_seconds(proxy.pid) - nginx_before if proxy else 0.0
            results = pending.get(timeout=args.warmup + args.duration + 120)
        report(results, args.duration, cpu)
        if proxy:
            print(f"nginx CPU: {nginx_cpu:.1f} s in {args.duration:.0f} s "
                  f"({nginx_cpu / args.duration * 100:.0f}% of one core)")
    finally:
        if proxy is not None:
            proxy.terminate()
            proxy.wait(timeout=30)
        if server is not None:
            server.terminate()
            try:
                server.wait(timeout=30)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait()
        drop_schema(base, schema)


if __name__ == "__main__":
    main()
