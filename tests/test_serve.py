"""The server's limits (scorer/serve.py), through a real waitress on loopback: slow
clients cannot make it unreachable, and a body over the limit never reaches the disk."""

from __future__ import annotations

import http.client
import socket
from collections.abc import Iterator
from typing import Any

import pytest

from scorer.cli.serve import MAX_BODY, SERVER_LIMITS, default_workers
from webhelpers import running


@pytest.fixture
def served(app: Any) -> Iterator[int]:
    with running(app, **SERVER_LIMITS) as port:
        yield port


def test_a_body_over_the_limit_is_refused_as_it_arrives(served: int) -> None:
    """A 300 MB body was written in full to a temporary file before the app's 1 MB limit
    answered 413. waitress now refuses it from its Content-Length, before the body."""
    with socket.create_connection(("127.0.0.1", served), timeout=30) as s:
        s.sendall(b"POST /import HTTP/1.1\r\nHost: x\r\nContent-Type: application/octet-stream\r\n"
                  b"Content-Length: 300000000\r\n\r\n" + b"x" * 65536)
        answer = s.recv(4096)
    assert answer.startswith(b"HTTP/1.1 413"), answer[:80]
    assert SERVER_LIMITS["max_request_body_size"] < 2 * MAX_BODY


def test_slow_connections_leave_room_for_the_phones(served: int) -> None:
    """110 connections trickling header lines made the app unreachable (waitress's
    default limit is 100 connections); now a phone's request is still answered."""
    idle = []
    try:
        for _ in range(110):
            s = socket.create_connection(("127.0.0.1", served), timeout=30)
            s.sendall(b"GET / HTTP/1.1\r\nHost: x\r\nX-Slow: 1\r\n")
            idle.append(s)
        conn = http.client.HTTPConnection("127.0.0.1", served, timeout=30)
        conn.request("GET", "/healthz")
        response = conn.getresponse()
        assert response.status == 200 and response.read() == b"ok"
        conn.close()
    finally:
        for s in idle:
            s.close()


def test_a_request_whose_client_gave_up_is_dropped_not_run() -> None:
    """Under overload the queue held requests whose phones had timed out and closed their
    connections; waitress ran each one anyway (it stops reading a connection whose request
    waits), so the queue never drained. With one thread held, a request sent and abandoned
    is dropped; the request after it is answered."""
    import threading

    held, release = threading.Event(), threading.Event()
    ran: list[str] = []

    def app(environ: dict[str, Any], start_response: Any) -> list[bytes]:
        ran.append(environ["PATH_INFO"])
        if environ["PATH_INFO"] == "/hold":
            held.set()
            release.wait(30)
        start_response("200 OK", [("Content-Type", "text/plain"), ("Content-Length", "2")])
        return [b"ok"]

    from waitress.channel import HTTPChannel
    from waitress.server import create_server

    server = create_server(app, host="127.0.0.1", port=0, **{**SERVER_LIMITS, "threads": 1})
    port = server.effective_port
    loop = threading.Thread(target=server.run, daemon=True)
    loop.start()

    def queued() -> list[HTTPChannel]:  # connections with a request waiting for the thread
        return [c for c in list(server._map.values()) if isinstance(c, HTTPChannel) and c.requests]

    try:
        first = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        first.request("GET", "/hold")
        assert held.wait(30)
        with socket.create_connection(("127.0.0.1", port), timeout=30) as gone:
            gone.sendall(b"GET /given-up HTTP/1.1\r\nHost: x\r\n\r\n")
            for _ in range(3000):  # until its request waits in the queue
                if len(queued()) == 2:
                    break
                threading.Event().wait(0.01)
        for _ in range(3000):  # until waitress has read that it was closed (or never does)
            if len([c for c in queued() if c.connected]) == 1:
                break
            threading.Event().wait(0.01)
        last = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        last.request("GET", "/after")
        release.set()
        assert first.getresponse().read() == b"ok"
        assert last.getresponse().read() == b"ok"
        first.close()
        last.close()
    finally:
        release.set()
        server.task_dispatcher.shutdown()  # its thread done before the trigger it pulls is closed
        server.close()
        loop.join(timeout=5)
    assert ran == ["/hold", "/after"]


def test_nap_serve_is_a_command(capsys: Any) -> None:
    from scorer.cli.main import main

    with pytest.raises(SystemExit) as done:
        main(["serve", "--help"])
    assert done.value.code == 0 and "--port" in capsys.readouterr().out


def test_workers_default_to_one_per_core_on_postgresql(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("NAP_WORKERS", raising=False)
    monkeypatch.setattr("os.cpu_count", lambda: 2)
    assert default_workers("postgresql+psycopg://nap@/nap") == 2
    assert default_workers("sqlite:////var/lib/nap/nap.sqlite3") == 1  # a home table: one process
    monkeypatch.setattr("os.cpu_count", lambda: 64)
    assert default_workers("postgresql+psycopg://nap@/nap") == 8
    monkeypatch.setenv("NAP_WORKERS", "3")
    assert default_workers("sqlite:////var/lib/nap/nap.sqlite3") == 3


def test_the_stream_server_runs_behind_a_proxy_unless_told(monkeypatch: pytest.MonkeyPatch) -> None:
    from scorer.cli.serve import live_port_of

    monkeypatch.delenv("NAP_LIVE_PORT", raising=False)
    assert live_port_of(5000, 1) == 5001  # behind nginx: the app's port + 1 (deploy/nginx.conf's @LIVE@)
    assert live_port_of(5000, 0) == 0  # a home table: no proxy, the phones poll
    monkeypatch.setenv("NAP_LIVE_PORT", "7000")
    assert live_port_of(5000, 0) == 7000
    monkeypatch.setenv("NAP_LIVE_PORT", "0")
    assert live_port_of(5000, 1) == 0


SUPERVISED = """
import os, sys, time
from pathlib import Path
from scorer.cli.serve import supervise

marks = Path(sys.argv[1])

def worker():
    time.sleep(3600)

def stream_server():  # dies at once: started again in its place, as a dead worker is
    with marks.open("a") as out:
        out.write(f"{os.getpid()}\\n")

supervise([worker], also=[stream_server])
marks.with_suffix(".done").write_text("stopped")
"""


def test_the_stream_server_is_started_again_when_it_dies_and_stopped_with_the_rest(tmp_path: Any) -> None:
    import signal
    import subprocess
    import sys

    from webhelpers import wait_until

    marks = tmp_path / "marks"
    log = tmp_path / "stderr"
    with log.open("wb") as err:
        process = subprocess.Popen([sys.executable, "-c", SUPERVISED, str(marks)], stderr=err)
    try:
        wait_until(lambda: marks.exists() and len(set(marks.read_text().split())) >= 2,
                   "the stream server was not started again")
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=60) == 0
        assert (tmp_path / "marks.done").read_text() == "stopped"  # supervise returned: every child ended
        assert "starting another" in log.read_text()
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


def test_nap_serve_sets_its_start_up_aside_from_the_collectors_full_passes(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Any) -> None:
    """A full pass of the garbage collector walked the ~190,000 objects a started process
    holds, 120-160 ms in a 1,000-evening season's first view (issue 23 item 4): ``nap serve``
    freezes them (``gc.freeze``) before it serves, so the passes walk only what came after."""
    import gc

    import waitress

    from scorer.cli import serve as module

    seen: list[int] = []
    monkeypatch.setattr(waitress, "serve", lambda app, **settings: seen.append(gc.get_freeze_count()))
    monkeypatch.setattr(module, "_warm", lambda app: None)  # no PDF worker started for this
    monkeypatch.setattr(module, "announce", lambda *args, **kwargs: None)
    monkeypatch.setenv("DATABASE_URL", f"sqlite:///{tmp_path / 'nap.sqlite3'}")
    monkeypatch.setenv("NAP_INSTANCE", str(tmp_path))
    monkeypatch.setenv("SECRET_KEY", "frozen")
    before = gc.get_freeze_count()
    try:
        module.serve("127.0.0.1", 0, workers=1, live_port=0)
    finally:
        gc.unfreeze()  # this test process goes on collecting them
    assert seen and seen[0] > before + 10_000  # the app and its modules, frozen before serving
    assert gc.get_freeze_count() == 0
