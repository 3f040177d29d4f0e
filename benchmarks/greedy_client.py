"""One greedy client against everyone else (issue 21, item 10), one layer at a time.

(a) nginx: ``--idle`` connections (1,520) from one address that send all of a TLS
    ClientHello but its last byte and then nothing, then ``--phones`` (60) phone requests
    from another address (127.0.0.2), each on a new HTTPS connection with a ``--timeout``
    (5 s). Run with
    the nginx configuration of ``main`` (``git show main:deploy/nginx.conf`` and Debian's
    ``worker_connections 768``) and with this branch's ``deploy/nginx.conf`` and
    ``deploy/nginx-main.conf``; both with ``worker_processes auto``, as Debian ships.
    Prints how many phone requests were answered, and their p50.
(b) the app (waitress, 8 threads) believing one proxy (as behind nginx, each client's
    address from ``X-Forwarded-For``); ``--tables`` (10) other tables each
    load their own scoresheet every 0.1 s on a kept-alive connection, quiet and with a
    greedy client in turn (``--rounds`` 3 of each in ``--seconds`` 30). The greedy client
    keeps ``--greedy`` (12) requests in flight (the next one as soon as an answer arrives,
    ignoring Retry-After), for pages that wait 0.5 s (``--kind waiting``: a slow database;
    the app in this process with a route for it) or for the CPU-heavy pages of a 300-hand
    evening (``--kind heavy``; ``nap serve`` in its own process). Run with
    ``NAP_PAGE_SLOTS=0`` (before: no cap) and ``4`` (after).
    Prints the other tables' p50 and p99, the p99 with the greedy client against the quiet
    p99 of the same run (both settings' quiet rounds), and how many pages they got.

Nothing is asserted. Loopback only; needs nginx and openssl for (a).

    .venv/bin/python benchmarks/greedy_client.py [--part a|b|both] [--idle 1520] [--phones 60]
        [--kind waiting|heavy|all] [--tables 10] [--greedy 12] [--seconds 30] [--rounds 3]
"""

from __future__ import annotations

import argparse
import http.client
import os
import re
import shutil
import socket
import ssl
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from serving import free_port, serve  # noqa: E402 - benchmarks/serving.py

NGINX = os.environ.get("NAP_NGINX") or shutil.which("nginx") or "/usr/sbin/nginx"
DEBIAN_EVENTS = "events {\n    worker_connections 768;\n}\n"  # Debian's /etc/nginx/nginx.conf


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


# -- (a) nginx ------------------------------------------------------------------------


def certificate(tmp: Path) -> tuple[Path, Path]:
    cert, key = tmp / "cert.pem", tmp / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=nap.test",
                    "-addext", "subjectAltName=DNS:nap.test,IP:127.0.0.1", "-keyout", str(key), "-out", str(cert)],
                   check=True, capture_output=True, timeout=60)
    return cert, key


def start_nginx(site: str, main: str, tmp: Path, port: int, app_port: int, cert: Path, key: Path
                ) -> subprocess.Popen[bytes]:
    for name, value in {"LISTEN": f"127.0.0.1:{port} ssl", "SERVER_NAME": "nap.test", "CERT": str(cert),
                        "KEY": str(key), "APP": f"127.0.0.1:{app_port}", "LIVE": f"127.0.0.1:{app_port}",
                        "ACCESS_LOG": str(tmp / "nap.log")}.items():
        site = site.replace(f"@{name}@", value)
    (tmp / "site.conf").write_text(site)
    user = "user root;\n" if os.geteuid() == 0 else ""
    temp = "".join(f"    {kind}_temp_path {tmp / kind};\n" for kind in ("client_body", "proxy", "fastcgi"))
    (tmp / "nginx.conf").write_text(
        f"{user}worker_processes auto;\nerror_log {tmp / 'error.log'} warn;\n{main}"
        f"http {{\n    access_log off;\n{temp}    include {tmp / 'site.conf'};\n}}\n")
    nginx = subprocess.Popen([NGINX, "-p", str(tmp), "-e", str(tmp / "error.log"), "-c", str(tmp / "nginx.conf"),
                              "-g", f"daemon off; pid {tmp / 'nginx.pid'};"],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(200):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return nginx
        except OSError:
            time.sleep(0.05)
    raise SystemExit(f"nginx did not start: {(tmp / 'error.log').read_text()}")


def client_hello() -> bytes:
    """The first flight of a real TLS handshake (a ClientHello), made without a socket."""
    incoming, outgoing = ssl.MemoryBIO(), ssl.MemoryBIO()
    tls = ssl.create_default_context().wrap_bio(incoming, outgoing, server_hostname="nap.test")
    try:
        tls.do_handshake()
    except ssl.SSLWantReadError:
        pass
    return outgoing.read()


def open_idle(port: int, count: int) -> list[socket.socket]:
    """``count`` slow TLS connections from 127.0.0.1 (as many as get through): each sends all
    of its ClientHello but the last byte, and then nothing. nginx cannot take back such a
    connection for others (it can one that has sent nothing), until its handshake times out."""
    hello = client_hello()[:-1]
    held = []
    for _ in range(count):
        s = socket.socket()
        s.settimeout(2)
        try:
            s.connect(("127.0.0.1", port))
            s.sendall(hello)
        except OSError:
            s.close()
            continue
        held.append(s)
    return held


def phone_request(port: int, cafile: Path, timeout: float) -> float | None:
    """One phone's page over a new HTTPS connection from 127.0.0.2: seconds, or None."""
    context = ssl.create_default_context(cafile=str(cafile))
    started = time.perf_counter()
    conn = http.client.HTTPSConnection("127.0.0.1", port, context=context, timeout=timeout,
                                       source_address=("127.0.0.2", 0))
    try:
        conn.request("GET", "/healthz", headers={"Host": "nap.test"})
        response = conn.getresponse()
        response.read()
        return time.perf_counter() - started if response.status == 200 else None
    except OSError:
        return None
    finally:
        conn.close()


def part_a(idle: int, phones: int, timeout: float) -> None:
    from scorer import create_app

    tmp = Path(tempfile.mkdtemp(prefix="nap-greedy-"))
    cert, key = certificate(tmp)
    app = create_app({"SECRET_KEY": "bench", "SQLALCHEMY_DATABASE_URI": f"sqlite:///{tmp / 'a.sqlite3'}",
                      "NAP_PROXY_HOPS": 1})
    with app.app_context():
        from flask_migrate import upgrade

        upgrade()
    from scorer.cli.serve import server_settings

    server, app_port = serve(app, **server_settings(app))
    old_site = subprocess.run(["git", "show", "main:deploy/nginx.conf"], cwd=ROOT, capture_output=True, text=True,
                              check=True).stdout
    configs = [("before (main's site, 768 worker connections)", old_site, DEBIAN_EVENTS),
               ("after (deploy/nginx.conf + nginx-main.conf)", (ROOT / "deploy" / "nginx.conf").read_text(),
                (ROOT / "deploy" / "nginx-main.conf").read_text())]
    print(f"(a) nginx: {idle} slow TLS connections from 127.0.0.1, then {phones} phone requests from 127.0.0.2 "
          f"(timeout {timeout:.0f} s each)")
    for label, site, main in configs:
        run_dir = tmp / re.sub(r"\W+", "-", label.split()[0])
        run_dir.mkdir()
        port = free_port()
        nginx = start_nginx(site, main, run_dir, port, app_port, cert, key)
        try:
            quiet = [phone_request(port, cert, timeout) for _ in range(5)]
            held = open_idle(port, idle)
            time.sleep(1)
            with ThreadPoolExecutor(max_workers=20) as pool:
                times = list(pool.map(phone_request, [port] * phones, [cert] * phones, [timeout] * phones))
            answered = [t for t in times if t is not None]
            print(f"  {label}: {len(held)} idle connections open; phones answered {len(answered)}/{phones}"
                  f" (p50 {percentile(answered, 0.5) * 1000:.0f} ms; quiet p50 "
                  f"{percentile([t for t in quiet if t], 0.5) * 1000:.0f} ms)")
            for s in held:
                s.close()
        finally:
            nginx.terminate()
            nginx.wait(timeout=20)
    server.close()


# -- (b) the app -----------------------------------------------------------------------


def make_database(path: Path, tables: int) -> tuple[str, list[str]]:
    """A 300-hand evening (the greedy client's pages) and ``tables`` small ones."""
    from bench import make_evening
    from flask_migrate import upgrade

    from scorer import create_app
    from scorer.storage import evening_writes
    from scorer.storage.models import db

    app = create_app({"SECRET_KEY": "bench", "SQLALCHEMY_DATABASE_URI": f"sqlite:///{path}"})
    with app.app_context():
        upgrade()
        big = evening_writes.import_evening(make_evening(300, seed=1)).key
        small = [evening_writes.import_evening(make_evening(20, seed=10 + i)).key for i in range(tables)]
        db.session.remove()
        db.engine.dispose()
    return big, small


def start_app(database: Path, slots: int, tmp: Path) -> tuple[subprocess.Popen[bytes], int]:
    port = free_port()
    env = dict(os.environ, DATABASE_URL=f"sqlite:///{database}", SECRET_KEY="bench", NAP_PROXY_HOPS="1",
               NAP_PAGE_SLOTS=str(slots), NAP_WORKERS="1", NAP_INSTANCE=str(tmp), PYTHONPATH=str(ROOT))
    log = (tmp / f"serve-{slots}.log").open("wb")
    server = subprocess.Popen([sys.executable, "-m", "scorer", "serve", "--host", "127.0.0.1", "--port", str(port),
                               "--workers", "1"], cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    for _ in range(600):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return server, port
        except OSError:
            time.sleep(0.1)
    raise SystemExit("nap serve did not start")


def client_loop(port: int, address: str, paths: list[str], until: float, pause: float,
                times: list[float] | None, statuses: dict[int, int]) -> None:
    """GET ``paths`` in turn on a kept-alive connection as ``address`` until ``until``."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    i = 0
    while time.perf_counter() < until:
        started = time.perf_counter()
        try:
            conn.request("GET", paths[i % len(paths)], headers={"X-Forwarded-For": address,
                                                                "X-Forwarded-Proto": "http", "Host": "nap.test"})
            response = conn.getresponse()
            response.read()
            status = response.status
        except (OSError, http.client.HTTPException):
            conn.close()
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
            status = 0
        statuses[status] = statuses.get(status, 0) + 1
        if times is not None and status == 200:
            times.append(time.perf_counter() - started)
        i += 1
        if pause:
            time.sleep(pause)
    conn.close()


def measure(port: int, small: list[str], heavy: list[str], greedy: int, seconds: float
            ) -> tuple[list[float], dict, dict]:
    until = time.perf_counter() + seconds
    times: list[float] = []
    statuses: dict[int, int] = {}
    greedy_statuses: dict[int, int] = {}
    threads = [threading.Thread(target=client_loop, args=(port, f"10.0.{i}.1", [f"/e/{key}"], until, 0.1, times,
                                                          statuses)) for i, key in enumerate(small)]
    turns = [heavy[j % len(heavy):] + heavy[:j % len(heavy)] for j in range(greedy)]
    threads += [threading.Thread(target=client_loop, args=(port, "198.51.100.7", paths, until, 0, None,
                                                           greedy_statuses)) for paths in turns]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return times, statuses, greedy_statuses


#: The greedy client's pages: CPU-heavy pages of a 300-hand evening, or a page that waits
#: (``/bench/wait``, 0.5 s asleep: a slow database), added to an app served in this process.
KINDS = ("waiting", "heavy")


def waiting_app(database: Path, slots: int) -> tuple[object, int]:
    """The app on ``database`` under waitress in this process, with ``GET /bench/wait``."""
    from scorer import create_app
    from scorer.cli.serve import server_settings
    from scorer.web.permissions import permission

    app = create_app({"SECRET_KEY": "bench", "SQLALCHEMY_DATABASE_URI": f"sqlite:///{database}",
                      "NAP_PROXY_HOPS": 1, "NAP_PAGE_SLOTS": slots})

    def wait() -> str:
        time.sleep(0.5)
        return "waited"

    app.add_url_rule("/bench/wait", "bench_wait", permission("public")(wait))
    return serve(app, **server_settings(app))


def part_b(kind: str, tables: int, greedy: int, seconds: float, rounds: int) -> None:
    tmp = Path(tempfile.mkdtemp(prefix="nap-greedy-app-"))
    database = tmp / "b.sqlite3"
    big, small = make_database(database, tables)
    heavy = ([f"/e/{big}/history", f"/e/{big}/scoresheet.csv", f"/e/{big}/big", f"/api/e/{big}"]
             if kind == "heavy" else ["/bench/wait"])
    what = "heavy pages (a 300-hand evening)" if kind == "heavy" else "pages that wait 0.5 s (a slow database)"
    print(f"(b, {kind}) the app: {tables} tables each loading its scoresheet every 0.1 s, quiet and with a greedy "
          f"client keeping {greedy} {what} in flight; {rounds} rounds of {seconds / rounds:.0f} s quiet and "
          f"{seconds / rounds:.0f} s greedy per setting")
    results = []
    for slots, label in ((0, "before (NAP_PAGE_SLOTS=0)"), (4, "after (NAP_PAGE_SLOTS=4)")):
        if kind == "heavy":
            process, port = start_app(database, slots, tmp)
        else:
            server, port = waiting_app(database, slots)
        quiet: list[float] = []
        loaded: list[float] = []
        statuses: dict[int, int] = {}
        greedy_statuses: dict[int, int] = {}
        try:
            for key in small:  # warm the pages
                client_loop(port, "10.9.9.9", [f"/e/{key}"], time.perf_counter() + 0.2, 0, None, {})
            for _ in range(rounds):  # quiet and greedy in turn: a busy box's noise falls on both
                quiet += measure(port, small, heavy, 0, seconds / rounds)[0]
                times, answered, refused = measure(port, small, heavy, greedy, seconds / rounds)
                loaded += times
                for mine, theirs in ((statuses, answered), (greedy_statuses, refused)):
                    for status, n in theirs.items():
                        mine[status] = mine.get(status, 0) + n
        finally:
            if kind == "heavy":
                process.terminate()
                process.wait(timeout=30)
            else:
                time.sleep(1)  # the last answers leave waitress's threads before its loop stops
                server.close()  # type: ignore[attr-defined]
        results.append((label, quiet, loaded, statuses, greedy_statuses))
    baseline = percentile([t for _, quiet, *_ in results for t in quiet], 0.99)
    print(f"  quiet p99 (both settings): {baseline * 1000:.1f} ms")
    for label, quiet, loaded, statuses, greedy_statuses in results:
        l99 = percentile(loaded, 0.99)
        p50s = f"{statistics.median(quiet) * 1000:.1f} → {statistics.median(loaded) * 1000:.1f} ms"
        print(f"  {label}: others' p50 {p50s},"
              f" p99 {percentile(quiet, 0.99) * 1000:.1f} → {l99 * 1000:.1f} ms: ×{l99 / baseline:.1f} the quiet p99;"
              f" others' pages answered with the greedy client {statuses.get(200, 0)} (others {statuses}),"
              f" greedy {greedy_statuses}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--part", choices=("a", "b", "both"), default="both")
    parser.add_argument("--kind", choices=(*KINDS, "all"), default="all", help="the greedy client's pages in (b)")
    parser.add_argument("--idle", type=int, default=1520)
    parser.add_argument("--phones", type=int, default=60)
    parser.add_argument("--timeout", type=float, default=5.0)
    parser.add_argument("--tables", type=int, default=10)
    parser.add_argument("--greedy", type=int, default=12)
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    if args.part in ("a", "both"):
        part_a(args.idle, args.phones, args.timeout)
    if args.part in ("b", "both"):
        for kind in KINDS if args.kind == "all" else (args.kind,):
            part_b(kind, args.tables, args.greedy, args.seconds, args.rounds)


if __name__ == "__main__":
    main()
