"""``nap serve``: the app under waitress, with limits fit for a table and for the internet.

One place for the server's settings, used by ``nap serve`` and ``./scripts/serve``:

- ``connection_limit`` 4000 (waitress: 100): idle or slow connections (a phone that
  opened a socket and went quiet, or 110 connections each sending a header line every
  5 s) cannot fill the server; each costs a socket, not a thread.
- ``channel_timeout`` 30 s (waitress: 120 s): a connection that sends nothing for 30 s
  is closed.
- ``max_request_body_size`` the import routes' body, an evening file of 32 MiB and its
  envelope (:data:`scorer.evening.limits.MAX_IMPORT_BODY`; every other route takes 1 MiB,
  :mod:`scorer.web.bodies`): a larger body is refused (413) from its Content-Length, as
  it arrives, never written to a temporary file first.
- ``threads`` 8: pages are short; PDFs run in a render worker process, one at a time
  (:mod:`scorer.reports.pdf`), so a thread is never held by a render queue.
- ``channel_request_lookahead`` 1 (waitress: 0): a connection whose request waits in the
  queue is still read, so a phone (or nginx for it) that gave up and closed it is noticed and
  its request dropped instead of run for nobody. Under overload (benchmarks/load.py: 200
  tables on a busy box) the queue held hundreds of requests whose phones had timed out, each
  still rendered, and it never drained.
- ``connection_limit`` 4000 and ``asyncore_use_poll``: a club night of 200 tables keeps
  1000 phones' connections open (a browser keeps its poll's connection alive); waitress's
  ``select()`` cannot watch more than 1024 sockets, ``poll()`` can.

``--workers N`` (``NAP_WORKERS``) runs N such processes on one listening socket (the
kernel hands each new connection to one of them; each answers its polls from its own
memory, :mod:`scorer.storage.live`): one Python process uses at most one core. The default is
one per core on PostgreSQL, one on SQLite (a home table needs no more).

``--worker-ports P`` (``NAP_WORKER_PORTS``) also gives worker *i* a port of its own, P + *i*, so
that a proxy can send each table to one process (``deploy/nginx.conf``: ``hash`` by the
table's key): that process then holds the table's settled ledger, rendered rows, chart and
live answers, made once per hand instead of once in each process, and each process keeps
only its share of the room's tables (issue 23 item 2). A worker started again after it died
listens on the same port.

On the open internet the app belongs behind a reverse proxy that buffers slow clients
(README, "Deploy").
"""

from __future__ import annotations

import contextlib
import gc
import io
import os
import signal
import socket
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any, TextIO
from urllib.parse import urlsplit

from ..evening.limits import MAX_IMPORT_BODY

#: The app's largest request body (the import routes': an evening file of 2,000 hands): see
#: :mod:`scorer.web.bodies`.
MAX_BODY = MAX_IMPORT_BODY

#: waitress's settings (``waitress.serve(app, **SERVER_LIMITS)``).
SERVER_LIMITS: dict[str, Any] = {
    "threads": 8,
    "connection_limit": 4000,
    "asyncore_use_poll": True,
    "channel_request_lookahead": 1,
    "channel_timeout": 30,
    "cleanup_interval": 10,
    # the import routes' largest body (the envelope of the file is counted in it)
    "max_request_body_size": MAX_BODY,
}


def server_settings(app: Any) -> dict[str, Any]:
    """waitress's settings for ``app``: :data:`SERVER_LIMITS`, and, when the app trusts a
    proxy (``NAP_PROXY_HOPS``), the ``X-Forwarded-*`` headers left for werkzeug's ProxyFix
    to read (waitress removes them by default, so behind nginx every link said ``http``)."""
    settings = dict(SERVER_LIMITS)
    if app.config.get("NAP_PROXY_HOPS"):
        settings["clear_untrusted_proxy_headers"] = False
    return settings


def default_workers(database_url: str) -> int:
    """App processes for ``nap serve`` when not told: ``NAP_WORKERS`` if set; else one per
    core on PostgreSQL (at most 8), one on SQLite."""
    configured = os.environ.get("NAP_WORKERS", "").strip()
    if configured:
        return max(1, int(configured))
    if database_url.startswith("postgresql"):
        return max(1, min(8, os.cpu_count() or 1))
    return 1


def serve(host: str = "0.0.0.0", port: int = 5000, *, upgrade: bool = True,  # noqa: S104 - the table's phones
          workers: int | None = None, live_port: int | None = None, worker_ports: int | None = None) -> None:
    """Build the app (``DATABASE_URL``, SQLite in ``instance/`` by default), bring the
    database up to the newest migration if ``upgrade``, and serve it until stopped, in
    ``workers`` processes (:func:`default_workers` if ``None``), with the live stream server
    (:mod:`scorer.web.live_stream`) on ``live_port`` (:func:`live_port_of` if ``None``; 0: none),
    worker *i* also on port ``worker_ports`` + *i* (:func:`worker_ports_of` if ``None``; 0: none).
    psycopg picks its own implementation (the compiled one; ``PSYCOPG_IMPL`` chooses another):
    the crash that made this ask for the pure-Python one was CPython's, guarded by
    :mod:`scorer.storage.state_guard`."""
    import waitress

    from ..storage.db import db
    from ..web.app import create_app

    app = create_app()
    if upgrade:  # boxes starting at once take turns (scorer.storage.schema)
        from ..storage.schema import upgrade_to_head

        with app.app_context():
            upgrade_to_head()
    from ..web import lan

    # listening on a loopback address only: the Share page must not offer the LAN address,
    # which this server does not answer on
    app.config["LISTENING_LOCAL_ONLY"] = host not in ("0.0.0.0", "::", "") and lan.is_local_name(host)  # noqa: S104
    workers = workers or default_workers(app.config["SQLALCHEMY_DATABASE_URI"])
    live_port = live_port_of(port, app.config.get("NAP_PROXY_HOPS") or 0) if live_port is None else live_port
    processes = f" in {workers} processes" if workers > 1 else ""
    print(f"Nap scorer: serving on http://{host}:{port}/{processes} (Ctrl-C stops it)", flush=True)
    public_url = app.config.get("PUBLIC_URL") or ""
    if app.config.get("NAP_PROXY_HOPS") and not public_url:
        # behind a proxy the phones open the proxy's public address, which only the proxy knows
        print("Behind a reverse proxy: the phones open its public https address "
              "(set PUBLIC_URL to have it printed here).", flush=True)
    else:
        announce(host, port, public_url=public_url)
    also: list[Callable[[], None]] = []
    first = worker_ports_of() if worker_ports is None else worker_ports
    if live_port:
        app.config["NAP_LIVE_EVENTS"] = True  # pages open the stream
        # the viewers' changes asked of the worker the proxy sends each table to
        ports = [first + i for i in range(workers)] if first else [port]
        also.append(_live_server(app, host, live_port, [f"{local_address(host)}:{p}" for p in ports]))
        print(f"Nap scorer: live updates pushed from http://{host}:{live_port}/e/<key>/events "
              "(the proxy sends that path there)", flush=True)
    if first:
        print(f"Nap scorer: worker processes also on ports {first}-{first + workers - 1}, one each "
              "(the proxy sends each table to one of them)", flush=True)
    if workers == 1 and not also and not first:
        _warm(app)
        freeze_start_up()
        waitress.serve(app, host=host, port=port, **server_settings(app))
        return
    with app.app_context():
        db.engine.dispose()  # no connection crosses a fork
    sock = listening_socket(host, port)
    # bound now, in this process: a port in use stops `nap serve` at start, not a worker later
    own = [listening_socket(host, first + i) for i in range(workers)] if first else []
    freeze_start_up()  # before the fork: the workers share the start-up's pages

    def worker(sockets: list[socket.socket]) -> Callable[[], None]:
        def run() -> None:
            name_process("nap-web")
            _warm(app)  # each process starts its own render worker: no pipe crosses a fork
            waitress.serve(app, sockets=sockets, **server_settings(app))
        return run

    supervise([worker([sock, *own[i:i + 1]]) for i in range(workers)], also=also)


def worker_ports_of() -> int:
    """The first worker's own port when ``--worker-ports`` is not given: ``NAP_WORKER_PORTS``
    if set, else 0 (none: every worker on the one shared port)."""
    configured = os.environ.get("NAP_WORKER_PORTS", "").strip()
    return max(0, int(configured)) if configured else 0


def live_port_of(port: int, hops: int) -> int:
    """The live stream server's port when ``--live-port`` is not given: ``NAP_LIVE_PORT`` if
    set (0: none); else, behind a proxy (``hops`` > 0), the app's port + 1; else none (0):
    without a proxy the phones reach the app only, and poll."""
    configured = os.environ.get("NAP_LIVE_PORT", "").strip()
    if configured:
        return max(0, int(configured))
    return port + 1 if hops else 0


def local_address(host: str) -> str:
    """How this box reaches a server listening on ``host``: loopback for every address."""
    if host in ("", "0.0.0.0"):  # noqa: S104 - the address listened on, not one bound here
        return "127.0.0.1"
    if host == "::":
        return "[::1]"
    return f"[{host}]" if ":" in host else host


def _live_server(app: Any, host: str, port: int, app_addresses: list[str]) -> Callable[[], None]:
    """The live process's work: the stream server on a socket bound now (a port in use
    stops ``nap serve`` at start, not a child later), asking the app at ``app_addresses``
    what changed for viewers' pages."""
    sock = listening_socket(host, port)
    url = app.config["SQLALCHEMY_DATABASE_URI"]
    hops = app.config.get("NAP_PROXY_HOPS") or 0

    def run() -> None:
        from ..web import live_stream

        name_process("nap-live")
        live_stream.run(host, port, url, hops=hops, sock=sock, app_addresses=app_addresses)

    return run


def _warm(app: Any) -> None:
    """Start this process's PDF render worker: WeasyPrint loads while the server starts."""
    from ..reports.pdf import warm_workers

    with app.app_context():
        warm_workers()


def freeze_start_up() -> None:
    """Set what the process holds once started (the app, its modules, routes, templates and
    catalogs: some 190,000 objects) aside from the garbage collector's full passes
    (``gc.freeze``), which then walk only what came after it.

    Why: the collector's full pass walks every object the process holds, and it runs when
    enough new objects have lived through the younger passes, which is what a first view
    of a long season makes (its rows, results and pieces). In a new process that pass cost
    120-160 ms of a 1,000-evening season's first view of ~270 ms (issue 23 item 4),
    every full pass after that as much again, for objects that live as long as the process
    anyway. Nothing frozen is freed (it was never going to be), and cycles made later are
    still collected."""
    gc.collect()
    gc.freeze()


def name_process(name: str) -> None:
    """Name this process ``name`` where ``ps``, ``top`` and ``/proc/<pid>/comm`` show it (Linux;
    elsewhere nothing): an operator tells the app's workers (``nap-web``) from its stream
    server (``nap-live``), and ``benchmarks/load.py`` measures each one's CPU."""
    with contextlib.suppress(OSError):
        Path("/proc/self/comm").write_text(name[:15])


def listening_socket(host: str, port: int) -> socket.socket:
    """A socket listening on ``host``:``port``, shared by every worker process."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.listen(1024)
    return sock


def supervise(runs: Sequence[Callable[[], None]], also: Iterable[Callable[[], None]] = ()) -> None:
    """Fork a process for each of ``runs`` (the web workers) and of ``also`` (the live stream
    server); start a new one in place of one that died, with the same work (a worker with a
    port of its own gets it again); on SIGTERM or SIGINT (Ctrl-C) stop them all and return."""
    children: dict[int, Callable[[], None]] = {}
    stopping = False

    def start(work: Callable[[], None]) -> None:
        pid = os.fork()
        if pid == 0:  # the worker: waitress (or the stream server) until it is stopped
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            signal.signal(signal.SIGINT, signal.SIG_DFL)
            code = 0
            try:
                work()
            except BaseException:  # noqa: B036 - whatever ends the worker, it must not return into the parent's loop
                code = 1
            os._exit(code)
        children[pid] = work

    def stop(signum: int, frame: Any) -> None:
        nonlocal stopping
        stopping = True
        for pid in list(children):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGTERM)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    for work in [*runs, *also]:
        start(work)
    while children:
        try:
            pid, _status = os.wait()
        except ChildProcessError:
            break
        work = children.pop(pid, None)
        if not stopping and work is not None:
            print(f"Nap scorer: worker {pid} stopped; starting another", file=sys.stderr, flush=True)
            time.sleep(1)  # a worker that dies at once must not spin
            if not stopping:
                start(work)


def table_url(host: str, port: int, public_url: str = "") -> str:
    """The address the other phones must open: ``PUBLIC_URL`` if set; this machine's LAN
    address when listening on every interface (``0.0.0.0``, ``::``); else the address
    listened on (``127.0.0.1``: only this machine can open it)."""
    from ..web import lan

    if public_url:
        return public_url.rstrip("/") + "/"
    name = host
    if host in ("0.0.0.0", "::", ""):  # noqa: S104
        name = lan.lan_address()
    if ":" in name:
        name = f"[{name}]"
    return f"http://{name}:{port}/"


def announce(host: str, port: int, public_url: str = "", out: TextIO | None = None) -> str:
    """Print the address the phones at the table must open, and its QR code as text."""
    import segno

    from ..web import lan

    out = out or sys.stdout
    url = table_url(host, port, public_url or os.environ.get("PUBLIC_URL", ""))
    code = io.StringIO()
    segno.make(url, error="m").terminal(out=code, compact=True)
    print(f"Phones at the table: open {url} (or point the camera at this code)", file=out)
    print(code.getvalue(), file=out, flush=True)
    if lan.is_local_name(urlsplit(url).hostname or ""):
        print("(Only this machine can open it: no network, or listening on a local address.)", file=out, flush=True)
    return url
