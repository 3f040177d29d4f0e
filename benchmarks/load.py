"""A club night on one box: N tables × 5 phones against ``nap serve`` on PostgreSQL.

Starts ``nap serve`` (``--workers`` app processes) on loopback on a throwaway
PostgreSQL schema (dropped at the end), with ``--tables`` evenings of ``--hands`` hands
each, then simulates what the phones of a club night do (they arrive during the first
``--warmup`` seconds but 5, then ``--duration`` seconds are measured):

- the live channel (``--live``): ``poll``, every phone (5 per table) polls
  ``GET /e/<key>/revision`` every 1.5 s on a kept-alive connection, as ``static/live.js``
  does without a stream server ("poll"); ``stream``, every phone holds ``GET /e/<key>/events``
  open on ``nap serve``'s live stream server (:mod:`scorer.web.live_stream`) and is told each
  new revision ("stream": the time to open it; "pushed": from a save sent to the new
  revision's arrival at each phone of the table);
- a phone that learns the revision moved sends its share of what the real browser sends
  per hand (``--mix``, a JSON file written by ``benchmarks/wire.py --mix-out``: the phones of
  a table counted through nginx; default ``benchmarks/phone_mix.json``): the viewers'
  ``/changes`` and charts, the scorer's page and its service worker's warm-up ("mix"; a
  warm-up the app puts off, 503 ``later``, is asked once more 10-15 s later, as
  ``static/sw.js`` does, and counted as "put off"); with
  ``--mix none``, the old model: the scoresheet ``GET /e/<key>`` ("page");
- one phone per table, a scorer, saves a hand every ``--save-every`` seconds (60: a hand
  a minute; less compresses time): it reads the table once (``GET /api/e/<key>``, "state"),
  then sends each hand as quick entry's outbox does, ``POST /api/e/<key>/hands`` with a
  new token ("save");
- ``--event N`` (issue 22): the tables are the N tables of one club night (4 players each,
  pagat, round 1 typed and begun, ``--hands`` hands already played at each), and
  ``--room-screens`` screens (default 1) watch its room screen as ``static/room.js`` does: the
  event's version ``GET /api/ev/<key>/version`` every 3 s ("roomver") and, when it moved, the
  room screen ``GET /ev/<key>/room`` (standings worked out from every table's ledger: "room");
- ``--probes`` extra clients (default one per 10 tables, at most 20) ask for ``/healthz`` at the
  phones' pace: the same-run baseline ("healthz"), the cost of the server's loop and Flask's
  request machinery.

Prints requests/s, p50, p99, the worst time and the errors per request kind, each p50
and p99 against ``/healthz``'s, and the server's CPU per request (all its processes).
Before the load, an idle baseline: 300 sequential polls against 300 ``/healthz`` on one
connection. Nothing is asserted. Loopback only.

    .venv/bin/python benchmarks/load.py [--tables 200] [--workers 2] [--duration 60]
        [--save-every 60] [--database postgresql://127.0.0.1:5432/test] [--app-root DIR] [--proxy]
        [--live poll|stream] [--mix FILE|none] [--event 40 [--room-screens 1]]

``--app-root`` serves another checkout of the app (a "before" measurement) with the same load;
``--proxy`` puts nginx with ``deploy/nginx.conf`` between the phones and the app, as deployed
(the streams go through it to the stream server, as deployed).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gzip
import json
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
import zlib
from collections import defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

#: the most /healthz clients by default: 20 at a phone's pace give 600 samples in 45 s, enough for
#: the baseline's p99; more are load the phones do not send (at 1,000 tables, one per 10 tables
#: were 67 requests a second besides the phones' 170)
PROBES_MOST = 20
KINDS = ("poll", "stream", "pushed", "shown", "page", "mix", "reload", "state", "save", "roomver", "room", "healthz",
         "lag")
ROOM_EVERY = 3.0  # seconds, as static/room.js
#: the request mix of a real browser, per hand and table (benchmarks/wire.py --mix-out)
MIX = ROOT / "benchmarks" / "phone_mix.json"
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
    # application_name: the app's connections (and the stream server's) are told apart in
    # pg_stat_activity, where their backends' CPU and waits are read (Meter)
    return schema, f"{base}?options=-csearch_path%3D{schema}&application_name={schema}"


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


def make_event(url: str, tables: int, hands: int) -> tuple[str, list[tuple[str, str]]]:
    """A club night of ``tables`` tables of 4 (pagat), round 1 typed and begun, ``hands``
    hands played at each table: ``(the event's key, [(table key, edit_key)])``."""
    from flask_migrate import upgrade

    from scorer import create_app
    from scorer.rules import HandFacts
    from scorer.storage import events, groups, hand_writes, units

    app = create_app({"SECRET_KEY": "load", "SQLALCHEMY_DATABASE_URI": url, "NAP_LIVE_LISTEN": False})
    rng = random.Random(22)
    with app.app_context():
        upgrade()
        seating = [[f"T{t + 1:02d}{name}" for name in ("Ann", "Bob", "Cat", "Dan")] for t in range(tables)]
        group = groups.create_group("Load club")
        event = events.create_event(group, name="Load night", variant="pagat", options={"hands_per_dealer": 50},
                                    stake=None, players=[p for t in seating for p in t], rounds=3, length="hands",
                                    amount=hands or 10)
        key = event.key
        events.seat_first_round(event, how="typed", tables=seating)
        made = []
        for evening in events.start_round(events.get_event(key)):  # type: ignore[arg-type]
            made.append((evening.key, evening.edit_key))
            table = units.get_evening(evening.key)
            for number in range(1, hands + 1):
                assert table is not None
                hand_writes.record_hand(table, number, HandFacts(0, ("three", "pass", "pass", "pass"),
                                                                 rng.randint(1, 5)))
        from scorer.storage.models import db

        db.session.remove()
        db.engine.dispose()
    return key, made


async def room_screen(base: str, event: str, tally: Tally, end: float, rng: random.Random) -> None:
    """A TV showing the room screen: the event's version every :data:`ROOM_EVERY` s, the
    screen again when it moved (``static/room.js``)."""
    import aiohttp

    async with client_session(base, connector=aiohttp.TCPConnector(limit=1),
                              timeout=aiohttp.ClientTimeout(total=TIMEOUT)) as session:
        await asyncio.sleep(rng.uniform(0, ROOM_EVERY))
        await request(session, tally, "room", "GET", f"/ev/{event}/room", (200,))
        shown = None
        while time.monotonic() < end:
            data = await request(session, tally, "roomver", "GET", f"/api/ev/{event}/version", (200,))
            if data is not None:
                if shown is not None and data["version"] != shown:
                    await request(session, tally, "room", "GET", f"/ev/{event}/room", (200,))
                shown = data["version"]
            await asyncio.sleep(ROOM_EVERY)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def free_ports(count: int) -> int:
    """The first of ``count`` consecutive free ports below the kernel's ephemeral range (where a
    connection of the run's own could take one before the server binds it)."""
    rng = random.Random()
    while True:
        first = rng.randrange(20000, 32000 - count)
        try:
            with contextlib.ExitStack() as held:
                for port in range(first, first + count):
                    s = held.enter_context(socket.socket())
                    s.bind(("127.0.0.1", port))
            return first
        except OSError:
            continue


def start_server(url: str, port: int, workers: int, app_root: Path, live_port: int = 0,
                 worker_ports: int = 0) -> subprocess.Popen[bytes]:
    """``nap serve`` on 127.0.0.1:``port`` (from ``app_root``), once it accepts connections;
    its live stream server on ``live_port`` (0: none, the phones poll); each worker also on a
    port of its own from ``worker_ports`` (0: none)."""
    env = dict(os.environ, DATABASE_URL=url, SECRET_KEY="load-" + secrets.token_hex(8),
               NAP_INSTANCE=tempfile.mkdtemp(prefix="nap-load-"), PYTHONPATH=str(app_root),
               NAP_LIVE_PORT=str(live_port), NAP_LIVE_PER_ADDRESS="100000")  # every phone: 127.0.0.1
    command = [sys.executable, "-m", "scorer", "serve", "--host", "127.0.0.1", "--port", str(port)]
    if workers:
        command += ["--workers", str(workers)]
    if worker_ports:
        command += ["--worker-ports", str(worker_ports)]
    # its log goes to a file: a pipe nobody reads would fill and stop the server mid-run
    log = Path(env["NAP_INSTANCE"]) / "serve.log"
    with log.open("wb") as out:
        server = subprocess.Popen(command, cwd=app_root, env=env, stdout=out, stderr=subprocess.STDOUT)
    _LOGS[server.pid] = log
    listening(server, port, 120, "nap serve", log)
    for own in range(worker_ports, worker_ports + (workers if worker_ports else 0)):
        listening(server, own, 60, "a worker's own port", log)
    return listening(server, live_port, 60, "the stream server", log) if live_port else server


#: the log of each server :func:`start_server` started, by pid
_LOGS: dict[int, Path] = {}


def server_log(server: subprocess.Popen[Any]) -> Path:
    """The log of a server :func:`start_server` started."""
    return _LOGS[server.pid]


def start_nginx(app_port: int, port: int, tmp: Path, live_port: int = 0,
                app_ports: list[int] | None = None) -> subprocess.Popen[bytes]:
    """nginx with ``deploy/nginx.conf`` (plain HTTP on loopback ``port``; a throwaway
    certificate for its ssl lines) in front of the app on ``app_port``, or of its workers on
    ``app_ports`` (one ``server`` line each: a table to one worker), once it listens."""
    import shutil

    cert, key = tmp / "cert.pem", tmp / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=nap.test",
                    "-keyout", str(key), "-out", str(cert)], check=True, capture_output=True, timeout=60)
    site = (ROOT / "deploy" / "nginx.conf").read_text()
    # every phone here comes from 127.0.0.1: the per-address limits (for the internet) would
    # refuse a club night from one address, so they are left out of this measurement
    site = re.sub(r"(?m)^\s*limit_(req|conn) .*$", "", site)
    if app_ports:  # one server line per worker, each on its own port (nap serve --worker-ports), as the
        # proxy test lists them
        sys.path.insert(0, str(ROOT / "tests"))
        from test_proxy import conf_with_servers

        site, app_port = conf_with_servers(site, app_ports[1:]), app_ports[0]
    for name, value in {"LISTEN": f"127.0.0.1:{port}", "SERVER_NAME": "nap.test", "CERT": str(cert),
                        "KEY": str(key), "APP": f"127.0.0.1:{app_port}",
                        "LIVE": f"127.0.0.1:{live_port or app_port}",
                        "ACCESS_LOG": str(tmp / "access.log"), "STATIC": str(ROOT / "static")}.items():
        site = site.replace(f"@{name}@", value)
    (tmp / "site.conf").write_text(site)
    user = "user root;\n" if os.geteuid() == 0 else ""
    temp = "".join(f"    {kind}_temp_path {tmp / kind};\n" for kind in ("client_body", "proxy", "fastcgi"))
    (tmp / "nginx.conf").write_text(
        f"{user}worker_processes 1;\nworker_rlimit_nofile 40000;\nerror_log {tmp / 'error.log'} warn;\n"
        f"events {{ worker_connections 16384; }}\nhttp {{\n    access_log off;\n{temp}"
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


def comm(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/comm").read_text().strip()
    except OSError:
        return ""


def children(pid: int) -> list[int]:
    found = []
    try:
        for task in Path(f"/proc/{pid}/task").iterdir():
            found += [int(c) for c in (task / "children").read_text().split()]
    except (OSError, ValueError):
        pass
    return found


def own_cpu(pid: int) -> float:
    """User + system CPU seconds of ``pid`` alone (0 if gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return 0.0


def rss_mib(pid: int) -> float:
    """The resident memory of ``pid`` in MiB (Linux /proc; 0 if it is gone)."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def box_cpu() -> float:
    """CPU seconds the whole machine spent busy (every core; /proc/stat)."""
    fields = [int(f) for f in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    idle = fields[3] + fields[4]  # idle, iowait
    return (sum(fields[:8]) - idle) / os.sysconf("SC_CLK_TCK")


class Meter:
    """Where the machine's CPU went during the measured window, and what the app waited on:

    - per process role (``cpu``): the app's web workers (``nap-web``, with their render
      workers), its stream server (``nap-live``), nginx, the PostgreSQL backends of the
      app's connections (``application_name``), and the rest of the machine (other users);
    - PostgreSQL (``pg``): every second, the app's connections in ``pg_stat_activity`` by
      state, and what the active ones wait on;
    - waitress's queue (:meth:`queue`): ``Task queue depth is N`` in the server's log.
    """

    def __init__(self, server: subprocess.Popen[Any], proxy: subprocess.Popen[Any] | None, database: str,
                 tag: str, log: Path) -> None:
        self.server, self.proxy, self.database, self.tag, self.log = server, proxy, database, tag, log
        self.backends: dict[int, float] = {}  # PostgreSQL backend pid → its CPU when first seen
        self.seen: dict[int, float] = {}  # … and when last seen (a backend that ends keeps its last figure)
        self.samples: list[dict[str, int]] = []
        self.waits: dict[str, int] = defaultdict(int)
        self._stop = False
        self._thread: Any = None

    def roles(self) -> dict[str, float]:
        cpu: dict[str, float] = defaultdict(float)
        cpu["app"] += own_cpu(self.server.pid)  # the supervisor (or the one process)
        for child in children(self.server.pid):
            role, used = "stream" if comm(child) == "nap-live" else "app", cpu_seconds(child)
            cpu[role] += used
            if role == "app":  # each web worker's own share too: is the load spread evenly?
                cpu[f"worker {child}"] = used
        if self.proxy is not None:
            cpu["nginx"] = cpu_seconds(self.proxy.pid)
        cpu["postgres"] = sum(self.seen.values())
        return cpu

    def _sample(self, conn: Any) -> None:
        rows = conn.execute("SELECT pid, state, coalesce(wait_event_type || ':' || wait_event, '') "
                            "FROM pg_stat_activity WHERE application_name = %s", (self.tag,)).fetchall()
        counts: dict[str, int] = defaultdict(int)
        for pid, state, wait in rows:
            if pid not in self.backends:
                self.backends[pid] = own_cpu(pid) if self._thread is None else 0.0
            self.seen[pid] = max(self.seen.get(pid, 0.0), own_cpu(pid))
            counts[state or "?"] += 1
            if state == "active" and wait:
                self.waits[wait] += 1
        if self._thread is not None:
            self.samples.append(counts)

    def start(self) -> None:
        import threading

        import psycopg

        self.conn = psycopg.connect(self.database, autocommit=True)
        self._sample(self.conn)  # the backends open now, and their CPU so far
        self.before = self.roles()
        self.before["postgres"] = sum(self.backends.values())
        self.box_before, self.load_before = box_cpu(), os.getloadavg()

        def run() -> None:
            while not self._stop:
                time.sleep(1.0)
                self._sample(self.conn)

        self._thread = threading.Thread(target=run, daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop = True
        self._thread.join()
        self._sample(self.conn)
        self.after = self.roles()
        # each web worker's resident memory at the end (its kept ledgers and pages: /proc's VmRSS)
        self.memory = [rss_mib(child) for child in children(self.server.pid) if comm(child) != "nap-live"]
        self.box = box_cpu() - self.box_before
        self.load_after = os.getloadavg()
        self.conn.close()

    def used(self) -> dict[str, float]:
        """CPU seconds per role in the window."""
        return {role: self.after.get(role, 0.0) - self.before.get(role, 0.0) for role in self.after}

    def queue(self) -> tuple[int, int]:
        """waitress's ``Task queue depth`` warnings in the server's log: (how many, deepest)."""
        depths = [int(d) for d in re.findall(r"Task queue depth is (\d+)", self.log.read_text(errors="replace"))]
        return len(depths), max(depths, default=0)

    def report(self, duration: float, clients: float) -> None:
        used = self.used()
        ours = sum(v for role, v in used.items() if not role.startswith("worker ")) + clients
        parts = [f"{role} {used[role] / duration * 100:.0f}%" for role in ("app", "stream", "nginx", "postgres")
                 if role in used]
        workers = [used[role] / duration * 100 for role in sorted(used) if role.startswith("worker ")]
        if len(workers) > 1:  # the app's web workers one by one (one process uses at most one core)
            parts[0] += " (" + " + ".join(f"{w:.0f}%" for w in workers) + ")"
        print(f"CPU, % of one core: {', '.join(parts)}, load generator {clients / duration * 100:.0f}%; "
              f"the whole box {self.box / duration * 100:.0f}% of {os.cpu_count() * 100}% "
              f"(others {max(0.0, self.box - ours) / duration * 100:.0f}%)")
        active = sorted(s.get("active", 0) for s in self.samples) or [0]
        total = max((sum(s.values()) for s in self.samples), default=0)
        waits = ", ".join(f"{w} {n}" for w, n in sorted(self.waits.items(), key=lambda x: -x[1])[:4]) or "none"
        print(f"PostgreSQL: {total} connections of the app; active per second p50 {active[len(active) // 2]}, "
              f"max {active[-1]}; waits of active ones (samples): {waits}")
        if getattr(self, "memory", None):
            print("memory of the app's web workers at the end: "
                  + ", ".join(f"{m:.0f} MiB" for m in self.memory))
        count, deepest = self.queue()
        print(f"waitress queue: {count} 'Task queue depth' warnings, deepest {deepest}")
        print(f"load average: {self.load_before[0]:.1f} before, {self.load_after[0]:.1f} after "
              f"(1 min; {os.cpu_count()} cores)")


# ----------------------------------------------------------------------------- the phones
class Tally:
    """Latencies (seconds) and errors per request kind, of requests started after ``since``."""

    def __init__(self, since: float) -> None:
        self.since = since
        self.times: dict[str, list[float]] = defaultdict(list)
        self.errors: dict[str, int] = defaultdict(int)
        self.samples: dict[str, str] = {}
        self.skipped = 0  # polls not sent on time: the answers (or this client) were too slow
        self.carried = 0  # viewers' changes the stream carried (no /changes asked)
        self.put_off = 0  # warm-ups the app put off (503 "later": a busy process, scorer.web.slots)
        self.warmed = 0  # warm-ups the app made (200: the phone's offline copies fresh)
        self.given_up = 0  # warm-ups put off twice: left to the table's next change

    def add(self, kind: str, started: float, ok: bool, what: str = "") -> None:
        if started < self.since:
            return
        self.times[kind].append(time.monotonic() - started)
        if not ok:
            self.errors[kind] += 1
            self.samples.setdefault(kind, what)


async def request(session: Any, tally: Tally, kind: str, method: str, url: str, expect: tuple[int, ...],
                  read_json: bool = True, seen: list[int] | None = None, **kwargs: Any) -> Any:
    """One request, timed into ``tally``; ``None`` on an error, else its JSON body (decoded only
    when ``read_json``) or its body as it came (bytes); its status appended to ``seen``. The body is read whole but not
    decompressed unless it is read as JSON: a phone's browser does that work on the phone, and a
    load generator that did it for every page on the measured box took CPU from the server."""
    import aiohttp

    started = time.monotonic()
    try:
        async with session.request(method, url, **kwargs) as response:
            raw = await response.read()
            if seen is not None:
                seen.append(response.status)
            ok = response.status in expect
            tally.add(kind, started, ok, f"HTTP {response.status}")
            if not ok:
                return None
            if read_json and response.content_type == "application/json":
                return json.loads(decoded(raw, response.headers.get("Content-Encoding", "")))
            return raw
    except (TimeoutError, aiohttp.ClientError, ValueError) as error:
        tally.add(kind, started, False, type(error).__name__)
        return None


#: what every phone's requests say they accept, as a browser's do (the server compresses)
ACCEPT = {"Accept-Encoding": "gzip, deflate, br"}


def decoded(raw: bytes, coding: str) -> bytes:
    """``raw`` decompressed by its ``Content-Encoding``."""
    if coding == "br":
        import brotli

        return brotli.decompress(raw)  # type: ignore[no-any-return]
    if coding == "gzip":
        return gzip.decompress(raw)
    if coding == "deflate":
        return zlib.decompress(raw)
    return raw


def run_loop(main: Any) -> Any:
    """``asyncio.run(main)``, on uvloop's event loop where it is installed (the test extras):
    the phones' side of the measurement then takes a smaller share of the box it measures."""
    try:
        import uvloop
    except ImportError:
        return asyncio.run(main)
    return uvloop.run(main)


def client_session(base: str, **kwargs: Any) -> Any:
    """An aiohttp session as the phones' (bodies left compressed, :func:`request`)."""
    import aiohttp

    return aiohttp.ClientSession(base, auto_decompress=False, headers=ACCEPT, **kwargs)


class Table:
    """What a table's phones share: the revision each learnt last, and when each save was answered."""

    def __init__(self) -> None:
        self.saved: dict[int, float] = {}  # revision → when its save was sent (monotonic)
        self.sending: float | None = None  # when the save not yet answered was sent
        self.number: int | None = None  # the next hand's number, once the scorer knows it


def load_mix(path: str) -> list[dict[str, Any]]:
    """The requests per hand of ``path`` (benchmarks/wire.py --mix-out) that a phone sends by
    itself: not the live channel (its poll, and a viewer's ``/changes``: :func:`phone` asks
    them as live.js does, unless the stream carried the change), not static files (kept for
    good), not writes (the save is sent here as quick entry sends it)."""

    if path == "none":
        return []
    data = json.loads(Path(path).read_text())
    return [r for r in data["requests"] if r["kind"] not in ("poll", "static", "save") and r["method"] == "GET"
            and "/changes?" not in r["path"]]  # the live part's ask: modelled by phone() itself


def share(mix: list[dict[str, Any]], seat: int, rng: random.Random) -> list[str]:
    """The paths phone ``seat`` (0: the scorer) sends for one hand. A mix that says whose
    each request was (``"who"``: ``scorer`` or ``viewers``, wire.py tells them by the scorer's
    device cookie): the scorer's are the scorer's, the viewers' are shared by the four viewers
    (each sends a quarter of them). An older mix: the scorer's own pages and its service
    worker's (warm-up, sw) are the scorer's, the rest dealt round the table. A fraction of a
    request per hand is sent that often."""
    paths = []
    for i, entry in enumerate(mix):
        who = entry.get("who")
        per_hand = entry["per_hand"]
        if who == "scorer":
            mine = seat == 0
        elif who == "viewers":
            mine, per_hand = seat != 0, per_hand / (PHONES - 1)
        else:
            mine = seat == 0 if entry["kind"] in ("warm-up", "sw") else i % PHONES == seat
        if not mine:
            continue
        count = int(per_hand) + (rng.random() < per_hand % 1)
        paths += [entry["path"]] * count
    return paths


#: Seconds a warm-up put off waits before it is asked once more (scorer.web.views.offline.WARM_LATER)
WARM_LATER = 10.0
#: the warm-ups waiting to be asked once more (kept so that the event loop does not drop them)
RETRIES: set[asyncio.Task[None]] = set()


async def warm_up(session: Any, tally: Tally, url: str, rng: random.Random, *, again: bool) -> None:
    """The service worker's warm-up ``url``: made (200, counted "made"), or put off (503
    ``{"later": true}``, counted "put off" at its first answer): then, when ``again``, asked once
    more :data:`WARM_LATER` s later and up to half more, in a task of its own (static/sw.js: the
    page does not wait for it); put off again, "given up" (the next change asks). Any other
    answer is an error, as for every request."""
    status: list[int] = []
    answer = await request(session, tally, "mix", "GET", url, tuple(s for s in range(200, 500) if s != 429) + (503,),
                           read_json=False, seen=status, allow_redirects=False)
    measured = time.monotonic() >= tally.since
    if status != [503]:
        tally.warmed += measured and status == [200]
        return
    if not (isinstance(answer, bytes) and b'"later"' in answer):  # (its time is counted already)
        if measured:
            tally.errors["mix"] += 1
            tally.samples.setdefault("mix", "HTTP 503 (not a warm-up put off)")
        return
    if not again:
        tally.given_up += measured
        return
    tally.put_off += measured

    async def later() -> None:
        await asyncio.sleep(WARM_LATER * (1 + rng.random() / 2))
        await warm_up(session, tally, url, rng, again=False)

    task = asyncio.ensure_future(later())
    RETRIES.add(task)
    task.add_done_callback(RETRIES.discard)

#: What a viewer's live part asks when the stream did not carry the change (static/live.js)
LIVE_ASK = "/e/{key}/changes?shown=en/viewer&since={n}"


async def react(session: Any, key: str, tally: Tally, mix: list[dict[str, Any]], seat: int, rng: random.Random,
                before: int, revision: int, carried: dict[str, Any] | None = None) -> None:
    """What the phone sends when it learns of ``revision`` (it showed ``before``): a viewer's
    live part asks what changed (``LIVE_ASK``) unless the stream ``carried`` it from ``before``
    (then only a ``{reload: true}`` makes it fetch the page), then its share of the mix."""
    if not mix:
        await request(session, tally, "page", "GET", f"/e/{key}", (200,))
        return
    paths = share(mix, seat, rng)
    if seat != 0:
        if carried is None or carried.get("since") != before:
            paths.insert(0, LIVE_ASK)
        else:
            tally.carried += time.monotonic() >= tally.since
            if carried["changes"].get("reload"):
                await request(session, tally, "reload", "GET", f"/e/{key}", (200,))
    for path in paths:
        url = path.replace("{key}", key).replace("since={n}", f"since={before}").replace("{n}", str(revision))
        # any answer but a server error or a refusal is what a phone gets (a 304, a redirect, a 404 of a
        # guessed number); a warm-up put off (503 {"later": true}, Retry-After) is asked once more
        # 10-15 s later in the background, as static/sw.js does, while the phone goes on
        if "/kept" in path:
            await warm_up(session, tally, url, rng, again=True)
            continue
        answer = await request(session, tally, "mix", "GET", url, tuple(s for s in range(200, 500) if s != 429),
                               read_json="/changes" in path, allow_redirects=False)
        if isinstance(answer, dict) and answer.get("reload"):
            # /changes could not say what changed (this process no longer holds the phone's
            # revision): live.js fetches the page instead ("reload", counted apart)
            await request(session, tally, "reload", "GET", f"/e/{key}", (200,))


async def phone(base: str, key: str, edit_key: str, seat: int, tally: Tally, end: float, save_every: float,
                rng: random.Random, ramp: float, live: str, mix: list[dict[str, Any]], table: Table,
                live_base: str) -> None:
    """One phone at one table: its live channel, its share of the mix when the revision
    moves, and (the scorer, seat 0) saves."""
    import aiohttp

    scorer = seat == 0
    connector = aiohttp.TCPConnector(limit=1)  # one kept-alive connection, as a browser's polls use
    timeout = aiohttp.ClientTimeout(total=TIMEOUT)
    async with client_session(base, connector=connector, timeout=timeout,
                              cookie_jar=aiohttp.CookieJar(unsafe=True)) as session:
        await asyncio.sleep(rng.uniform(0, ramp))  # the phones arrive over the ramp, not all at once
        if scorer:  # the scorers' link: this phone becomes a scorer (a device cookie), tried until it is
            while (await request(session, tally, "page", "GET", f"/e/{key}/scorer/{edit_key}", (200,)) is None
                   and time.monotonic() < end):
                await asyncio.sleep(POLL_EVERY)
        else:  # the page's revision, as live.js tells its stream (read uncompressed, once a phone)
            page = await request(session, tally, "page", "GET", f"/e/{key}", (200,), read_json=False,
                                 headers={"Accept-Encoding": "identity"})
            found = re.search(rb'data-revision="(\d+)"', page or b"")
            showing = f"&since={int(found.group(1))}" if found else ""
        query = "?shown=en/scorer" if scorer else f"?shown=en/viewer{showing}"
        heard: asyncio.Queue[tuple[int, dict[str, Any] | None]] = asyncio.Queue()
        listener = (asyncio.create_task(stream(live_base, key, tally, end, heard, table, query))
                    if live == "stream" else None)
        shown = None
        next_save = time.monotonic() + rng.uniform(0, save_every) if scorer else float("inf")
        tick = time.monotonic()
        try:
            while time.monotonic() < end:
                if time.monotonic() >= next_save:
                    await save(session, key, tally, rng, table)
                    next_save += save_every
                if listener is None:
                    data = await request(session, tally, "poll", "GET", f"/e/{key}/revision", (200,))
                    revisions = [(data["revision"], None)] if data is not None else []
                else:  # a pushed revision is acted on at once, as live.js's EventSource handler does
                    revisions = await pushed(heard, min(next_save, end) - time.monotonic())
                for revision, carried in revisions[-1:]:
                    if shown is not None and revision != shown:
                        saved = table.saved.get(revision, table.sending)
                        await react(session, key, tally, mix, seat, rng, shown, revision, carried)
                        if saved is not None and not scorer:  # this viewer shows the new hand now
                            tally.add("shown", saved, True)
                    shown = revision
                if listener is None:
                    tick = await next_tick(tick, tally)
        finally:
            if listener is not None:
                listener.cancel()


async def stream(base: str, key: str, tally: Tally, end: float, heard: asyncio.Queue[tuple[int, Any]],
                 table: Table, query: str = "") -> None:
    """The phone's stream of pushed revisions (``query``: what its page shows, as live.js
    says it), opened again 3 s after it is lost with the last revision heard as
    ``Last-Event-ID`` (as EventSource does) until ``end``. Each event goes to ``heard`` as
    ``(revision, {"since", "changes"} or None)``."""
    import aiohttp

    timeout = aiohttp.ClientTimeout(total=None, sock_connect=TIMEOUT, sock_read=60)
    last: int | None = None
    async with aiohttp.ClientSession(base, timeout=timeout) as session:
        while time.monotonic() < end:
            started = time.monotonic()
            try:
                headers = {} if last is None else {"Last-Event-ID": str(last)}
                async with session.get(f"/e/{key}/events{query}", headers=headers) as response:
                    tally.add("stream", started, response.status == 200, f"HTTP {response.status}")
                    if response.status == 200:
                        async for line in response.content:
                            if line.startswith(b"data: "):
                                data = json.loads(line[len(b"data: "):])
                                revision = last = data["revision"]
                                # the revision of a save answered, or of the save on its way (told
                                # before the scorer had its answer)
                                saved = table.saved.get(revision, table.sending)
                                if saved is not None:  # a save sent → this phone knows
                                    tally.add("pushed", saved, True)
                                heard.put_nowait((revision, data if "changes" in data else None))
            except (TimeoutError, aiohttp.ClientError, ValueError) as error:
                tally.add("stream", started, False, type(error).__name__)
            await asyncio.sleep(3.0)


async def pushed(heard: asyncio.Queue[tuple[int, Any]], within: float) -> list[tuple[int, Any]]:
    """The events the phone's stream has told it, waiting up to ``within`` seconds for the
    first (the phone sleeps until its stream speaks or it has a hand to save: no timer of
    its own, so 5,000 phones cost the load generator nothing between hands)."""
    try:
        revisions = [await asyncio.wait_for(heard.get(), max(0.0, within))]
    except TimeoutError:
        return []
    while not heard.empty():
        revisions.append(heard.get_nowait())
    return revisions


async def next_tick(tick: float, tally: Tally, count: bool = True) -> float:
    """Wait for the next tick after ``tick`` (every :data:`POLL_EVERY` s, as ``setInterval``);
    ticks already past are skipped, as a browser's busy poll skips them, and counted
    (``count``: polling)."""
    tick += POLL_EVERY
    now = time.monotonic()
    while tick < now:
        if tick >= tally.since and count:
            tally.skipped += 1
        tick += POLL_EVERY
    await asyncio.sleep(tick - now)
    return tick


async def save(session: Any, key: str, tally: Tally, rng: random.Random, table: Table) -> None:
    """Quick entry's save: the next hand with a new token, as quick entry's outbox sends it
    (``{"number", "token", "facts"}``, the dealer left to the server, which takes the next
    dealer as quick entry's page says it). The scorer's page knows the next number; here the
    table is read once (``GET /api/e/<key>``, "state") and then each save's answer says the
    number saved; read again only after a refusal (another phone's hand of that number). The
    real browser sends no such read per hand (``benchmarks/wire.py`` counted none)."""
    if table.number is None:
        state = await request(session, tally, "state", "GET", f"/api/e/{key}", (200,))
        if state is None or state["closed"]:
            return
        table.number = len(state["hands"]) + 1
    hand = {"number": table.number, "token": secrets.token_urlsafe(12),
            "facts": {"auction": ["three", "pass", "pass", "pass"], "tricks": rng.randint(1, 5)}}
    table.sending = sent = time.monotonic()
    answer = await request(session, tally, "save", "POST", f"/api/e/{key}/hands", (201,), json=hand)
    table.sending = None
    if isinstance(answer, dict) and isinstance(answer.get("revision"), int):
        table.saved[answer["revision"]] = sent
        table.number = answer["hand"]["number"] + 1
    else:
        table.number = None  # refused or lost: read the table again before the next hand


async def probe(base: str, tally: Tally, end: float, rng: random.Random) -> None:
    """The baseline: ``/healthz`` at a phone's pace on a kept-alive connection."""
    import aiohttp

    async with client_session(base, connector=aiohttp.TCPConnector(limit=1),
                              timeout=aiohttp.ClientTimeout(total=TIMEOUT)) as session:
        await asyncio.sleep(rng.uniform(0, POLL_EVERY))
        tick = time.monotonic()
        while time.monotonic() < end:
            await request(session, tally, "healthz", "GET", "/healthz", (200,))
            tick = await next_tick(tick, tally)


async def loop_lag(tally: Tally, end: float) -> None:
    """How late this client's event loop wakes a task asleep for 0.1 s ("lag", not a request):
    a busy or starved load generator would delay every phone's requests and their timings."""
    while time.monotonic() < end:
        started = time.monotonic()
        await asyncio.sleep(0.1)
        if started >= tally.since:
            tally.times["lag"].append(time.monotonic() - started - 0.1)


def run_phones(base: str, tables: list[tuple[str, str]], probes: int, start: float, warmup: float,
               duration: float, save_every: float, seed: int, live: str = "poll", mix_file: str = "none",
               live_base: str = "", event: str = "", room_screens: int = 0) -> dict[str, Any]:
    """One client process: the phones of ``tables``, ``probes`` baseline clients and
    ``room_screens`` screens watching the room screen of ``event``."""
    async def main() -> Tally:
        rng = random.Random(seed)
        tally = Tally(start + warmup)
        end = start + warmup + duration
        mix = load_mix(mix_file)
        tasks = []
        for key, edit_key in tables:
            table = Table()
            tasks += [phone(base, key, edit_key, seat, tally, end, save_every, random.Random(rng.random()),
                            max(POLL_EVERY, warmup - 5.0), live, mix, table, live_base or base)
                      for seat in range(PHONES)]
        tasks += [probe(base, tally, end, random.Random(rng.random())) for _ in range(probes)]
        if event:
            tasks += [room_screen(base, event, tally, end, random.Random(rng.random())) for _ in range(room_screens)]
        tasks.append(loop_lag(tally, end))
        tasks.append(measured_from(tally.since))
        await asyncio.sleep(max(0.0, start - time.monotonic()))
        await asyncio.gather(*tasks)
        return tally

    used: list[Any] = []

    async def measured_from(since: float) -> None:  # the CPU from the measured window's start only
        await asyncio.sleep(max(0.0, since - time.monotonic()))
        used.append(resource.getrusage(resource.RUSAGE_SELF))

    tally = run_loop(main())
    after = resource.getrusage(resource.RUSAGE_SELF)
    return {"cpu": after.ru_utime + after.ru_stime - used[0].ru_utime - used[0].ru_stime,
            "times": dict(tally.times), "errors": dict(tally.errors), "samples": tally.samples,
            "skipped": tally.skipped, "carried": tally.carried, "put_off": tally.put_off,
            "warmed": tally.warmed, "given_up": tally.given_up}


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


def idle_room(port: int, event: str) -> tuple[float, float]:
    """p50 of 100 sequential room versions and of 20 room screens on one connection (seconds)."""
    import http.client

    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    figures = []
    for path, count in ((f"/api/ev/{event}/version", 100), (f"/ev/{event}/room", 20)):
        times = []
        for _ in range(count):
            started = time.perf_counter()
            conn.request("GET", path)
            conn.getresponse().read()
            times.append(time.perf_counter() - started)
        figures.append(percentile(times[count // 5:], 0.5))
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
    # "pushed" and "shown" are delays (a save sent → a phone told; → a viewer showing it), not requests
    delays = ("pushed", "shown", "lag")
    total = sum(len(v) for k, v in times.items() if k not in delays)
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
    every = [t for k, v in times.items() if k not in delays for t in v]
    print(f"{'all':8} {total:9d} {total / duration:7.1f} {percentile(every, 0.5) * 1000:8.1f} "
          f"{percentile(every, 0.99) * 1000:8.1f} {max(every) * 1000:8.1f} {sum(errors.values()):7d}")
    skipped = sum(r["skipped"] for r in results)
    carried = sum(r.get("carried", 0) for r in results)
    print(f"polls skipped (a phone still waiting, or the client late): {skipped} "
          f"({skipped / max(1, skipped + len(times['poll']) + len(times['healthz'])) * 100:.1f}%)")
    print(f"viewers' changes carried by the stream (no /changes asked): {carried} "
          f"({carried / duration:.1f}/s)")
    put_off = sum(r.get("put_off", 0) for r in results)
    warmed = sum(r.get("warmed", 0) for r in results)
    given_up = sum(r.get("given_up", 0) for r in results)
    print(f"warm-ups put off by a busy app process (503 later; asked once more 10-15 s later): {put_off}; "
          f"made: {warmed}; put off again (left to the next change): {given_up}")
    print(f"server CPU: {cpu:.1f} s in {duration:.0f} s ({cpu / duration * 100:.0f}% of one core), "
          f"{cpu / max(total, 1) * 1000:.2f} ms per request; the phones (clients): "
          f"{sum(r['cpu'] for r in results):.1f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=200)
    parser.add_argument("--hands", type=int, default=30, help="hands already played at each table")
    parser.add_argument("--workers", type=int, default=0, help="app processes (nap serve --workers; 0: its default)")
    parser.add_argument("--duration", type=float, default=60.0, help="seconds measured")
    parser.add_argument("--warmup", type=float, default=20.0,
                        help="seconds before measuring: the phones arrive over all but the last 5")
    parser.add_argument("--save-every", type=float, default=60.0, help="seconds between a table's saves")
    parser.add_argument("--probes", type=int, default=0,
                        help=f"/healthz clients (default: one per 10 tables, at most {PROBES_MOST})")
    parser.add_argument("--clients", type=int, default=2, help="client processes sending the load")
    parser.add_argument("--database", default=os.environ.get("TEST_POSTGRES_URL", "postgresql://127.0.0.1:5432/test"))
    parser.add_argument("--app-root", type=Path, default=ROOT, help="the checkout nap serve runs from")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--proxy", action="store_true",
                        help="the phones talk to nginx with deploy/nginx.conf (plain HTTP), nginx to the app")
    parser.add_argument("--live", choices=("poll", "stream"), default="poll",
                        help="the live channel: polls of the revision, or the stream server's pushed revisions")
    parser.add_argument("--mix", default=str(MIX) if MIX.exists() else "none",
                        help="the request mix per hand (benchmarks/wire.py --mix-out); none: a page per change")
    parser.add_argument("--event", type=int, default=0,
                        help="the tables are this many tables of one club night (tables of 4), its room screen watched")
    parser.add_argument("--room-screens", type=int, default=1, help="screens watching the room screen (--event)")
    parser.add_argument("--shared-port", action="store_true",
                        help="behind nginx, every worker on the one port (a checkout before nap serve --worker-ports); "
                             "by default each has its own and nginx sends a table to one")
    args = parser.parse_args()
    if args.event:
        args.tables = args.event
    base = args.database.replace("postgresql+psycopg://", "postgresql://")
    schema, url = make_schema(base)
    server = proxy = None
    try:
        print(f"load: {args.tables} tables × {PHONES} phones, {args.hands} hands each, a save per table every "
              f"{args.save_every:g} s, {args.duration:g} s measured after {args.warmup:g} s, "
              f"nap serve --workers {args.workers or 'default'} ({args.app_root}), PostgreSQL schema {schema}, "
              f"live channel: {args.live}, mix: {args.mix}{', behind nginx' if args.proxy else ''}"
              f"{' (a table to one worker)' if args.proxy and args.workers > 1 and not args.shared_port else ''}",
              flush=True)
        event = ""
        if args.event:
            event, tables = make_event(url, args.event, args.hands)
            print(f"club night {event}: {len(tables)} tables of 4, {args.room_screens} room screen(s) watching",
                  flush=True)
        else:
            tables = make_tables(url, args.tables, args.hands)
        port = free_port()
        live_port = free_port() if args.live == "stream" else 0
        own = args.proxy and not args.shared_port and args.workers > 1
        worker_ports = free_ports(args.workers) if own else 0
        server = start_server(url, port, args.workers, args.app_root.resolve(), live_port, worker_ports)
        live_base = f"http://127.0.0.1:{live_port}"
        if args.proxy:
            app_port, port = port, free_port()
            proxy = start_nginx(app_port, port, Path(tempfile.mkdtemp(prefix="nap-load-nginx-")), live_port,
                                [worker_ports + i for i in range(args.workers)] if worker_ports else None)
            live_base = f"http://127.0.0.1:{port}"
        healthz, poll = idle_baseline(port, tables[0][0])
        print(f"idle, one connection: /healthz p50 {healthz * 1000:.2f} ms, poll p50 {poll * 1000:.2f} ms "
              f"(×{poll / healthz:.2f} of /healthz)", flush=True)
        if event:
            version, screen = idle_room(port, event)
            print(f"idle, one connection: room version p50 {version * 1000:.2f} ms (×{version / healthz:.2f}), "
                  f"room screen of {len(tables)} tables p50 {screen * 1000:.2f} ms (×{screen / healthz:.2f} of "
                  "/healthz)", flush=True)
        probes = args.probes or max(2, min(PROBES_MOST, args.tables // 10))
        start = time.monotonic() + 2.0  # every client process begins together
        chunks = [tables[i::args.clients] for i in range(args.clients)]
        jobs = [(f"http://127.0.0.1:{port}", chunk, probes // args.clients + (i < probes % args.clients), start,
                 args.warmup, args.duration, args.save_every, args.seed * 100 + i, args.live, args.mix, live_base,
                 event, args.room_screens if i == 0 else 0)
                for i, chunk in enumerate(chunks)]
        meter = Meter(server, proxy, base, schema, server_log(server))
        with multiprocessing.get_context("spawn").Pool(args.clients) as pool:
            pending = pool.starmap_async(run_phones, jobs)
            while time.monotonic() < start + args.warmup:
                time.sleep(0.1)
            meter.start()
            while time.monotonic() < start + args.warmup + args.duration:
                time.sleep(0.1)
            meter.stop()
            results = pending.get(timeout=args.warmup + args.duration + 120)
        used = meter.used()
        report(results, args.duration, used.get("app", 0.0) + used.get("stream", 0.0))
        meter.report(args.duration, sum(r["cpu"] for r in results))
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
