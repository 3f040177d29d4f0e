"""Past one box: several app processes on one PostgreSQL database hold no state that the
database does not. Two ``nap serve`` processes (as two boxes behind one proxy), a phone
on each: a hand saved through one is seen by the other's live poll, as on one box, and
``nap serve --workers 2`` (two processes on one socket) serves the same way."""

from __future__ import annotations

import http.client
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from conftest import ROOT, _dispose, make_app

from scorer.storage import evening_writes
from webhelpers import free_port, listening, stop, wait_until


def start_nap_serve(url: str, tmp: Path, workers: int, *more: str) -> tuple[subprocess.Popen[bytes], int]:
    """``nap serve --workers N`` (and ``more`` arguments) starting on a free loopback port on
    the database ``url``."""
    port = free_port()
    env = dict(os.environ, DATABASE_URL=url, SECRET_KEY="boxes-secret", NAP_INSTANCE=str(tmp),
               PYTHONPATH=str(ROOT))
    process = subprocess.Popen([sys.executable, "-m", "scorer", "serve", "--host", "127.0.0.1", "--port", str(port),
                                "--workers", str(workers), *more], cwd=ROOT, env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    return process, port


def wait_serving(process: subprocess.Popen[bytes], port: int) -> None:
    def serving() -> bool:
        assert process.poll() is None, process.stdout.read().decode() if process.stdout else ""
        return listening(port)

    wait_until(serving, "nap serve never listened", pause=0.1)


@contextmanager
def nap_serve(url: str, tmp: Path, workers: int) -> Iterator[int]:
    """``nap serve --workers N`` on a free loopback port (yielded) on the database ``url``."""
    process, port = start_nap_serve(url, tmp, workers)
    try:
        wait_serving(process, port)
        yield port
    finally:
        stop(process)


class Phone:
    """A phone on one box: one kept-alive connection, its cookies kept."""

    def __init__(self, port: int) -> None:
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        self.cookies: dict[str, str] = {}

    def ask(self, method: str, path: str, body: Any = None) -> tuple[int, str]:
        headers = {"Cookie": "; ".join(f"{k}={v}" for k, v in self.cookies.items())}
        data = None
        if body is not None:
            data, headers["Content-Type"] = json.dumps(body), "application/json"
        self.conn.request(method, path, body=data, headers=headers)
        response = self.conn.getresponse()
        text = response.read().decode()
        for raw in response.msg.get_all("Set-Cookie") or []:
            name, _, value = raw.split(";", 1)[0].partition("=")
            self.cookies[name] = value
        return response.status, text

    def close(self) -> None:
        self.conn.close()

    def revision(self, key: str) -> int:
        status, text = self.ask("GET", f"/e/{key}/revision")
        assert status == 200, text
        return json.loads(text)["revision"]  # type: ignore[no-any-return]


def _table(url: str) -> tuple[str, str]:
    """A new pagat table (Ann, Bob, Cat, Dan; Ann deals first) on ``url``: ``(key, edit_key)``."""
    app = make_app(url)
    try:
        with app.app_context():
            evening = evening_writes.create_evening(variant="pagat", players=["Ann", "Bob", "Cat", "Dan"],
                                                    first_dealer=0,
                                              options={}, stake=None)
            return evening.key, evening.edit_key
    finally:
        _dispose(app)


def _seen_across(port_a: int, port_b: int, key: str, edit_key: str) -> None:
    """A scorer's phone on ``port_a`` saves a hand; a phone on ``port_b`` sees it by polling."""
    scorer, watcher = Phone(port_a), Phone(port_b)
    try:
        _save_and_watch(scorer, watcher, key, edit_key)
    finally:
        scorer.close()
        watcher.close()


def _save_and_watch(scorer: Phone, watcher: Phone, key: str, edit_key: str) -> None:
    assert watcher.revision(key) == 0 and watcher.revision(key) == 0  # the second from the watcher's memory
    assert scorer.ask("GET", f"/e/{key}/scorer/{edit_key}")[0] == 302  # the scorer's phone
    hand = {"number": 1, "token": "boxes-1",
            "facts": {"dealer": "Ann", "auction": ["three", "pass", "pass", "pass"], "tricks": 3}}
    status, text = scorer.ask("POST", f"/api/e/{key}/hands", hand)
    assert status == 201, text
    assert json.loads(text)["totals"] == {"Ann": -3, "Bob": 9, "Cat": -3, "Dan": -3}  # P-12: a made Three
    wait_until(lambda: watcher.revision(key) == 1, "the change never reached the other box's poll")
    status, page = watcher.ask("GET", f"/e/{key}")
    assert status == 200 and 'data-revision="1"' in page


def test_a_change_on_one_box_reaches_a_phone_on_the_other(postgres_url: str, tmp_path: Path) -> None:
    key, edit_key = _table(postgres_url)
    with nap_serve(postgres_url, tmp_path / "a", 1) as box_a, nap_serve(postgres_url, tmp_path / "b", 1) as box_b:
        _seen_across(box_a, box_b, key, edit_key)


def test_nap_serve_with_two_workers_serves_the_table(postgres_url: str, tmp_path: Path) -> None:
    key, edit_key = _table(postgres_url)
    with nap_serve(postgres_url, tmp_path, 2) as port:
        _seen_across(port, port, key, edit_key)


def _web_workers(pid: int) -> list[int]:
    """The ``nap-web`` processes ``nap serve`` (``pid``) started (Linux /proc)."""
    found = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        for child in (task / "children").read_text().split():
            if Path(f"/proc/{child}/comm").read_text().strip() == "nap-web":
                found.append(int(child))
    return found


def test_each_worker_has_a_port_of_its_own_and_gets_it_again_when_started_again(
        postgres_url: str, tmp_path: Path) -> None:
    """``nap serve --workers 2 --worker-ports Q``: the shared port, Q and Q + 1 all serve the
    table (a hand saved through Q is seen through Q + 1); a worker killed is started again,
    and both ports answer again (issue 23 item 2: a proxy sends each table to one port)."""
    key, edit_key = _table(postgres_url)
    first = free_port()
    while listening(first + 1):  # two ports in a row
        first = free_port()
    process, port = start_nap_serve(postgres_url, tmp_path, 2, "--worker-ports", str(first))
    try:
        for each in (port, first, first + 1):
            wait_serving(process, each)
        _seen_across(first, first + 1, key, edit_key)
        workers = _web_workers(process.pid)
        assert len(workers) == 2
        os.kill(workers[0], 9)
        wait_until(lambda: len(set(_web_workers(process.pid)) - set(workers)) == 1, "no worker started again")
        for each in (first, first + 1):
            phone = Phone(each)
            try:
                assert phone.revision(key) == 1
            finally:
                phone.close()
    finally:
        stop(process)


def test_two_boxes_starting_at_once_on_an_empty_database_both_come_up(postgres_url: str, tmp_path: Path) -> None:
    """Issue 21 item 11: two ``nap serve`` started together on an empty database both ran
    every migration; one died on the other's ``CREATE TABLE``. Now they take turns (an
    advisory lock in migrations/env.py): both serve, and the schema is at head.

    No clock decides the overlap: this test's own uncommitted ``CREATE TABLE alembic_version``
    holds both starts at their first step (or the second at the lock) until both wait, then
    lets them go together."""
    import psycopg
    import sqlalchemy as sa

    libpq = postgres_url.replace("+psycopg", "")
    gate = psycopg.connect(libpq)
    gate.execute("CREATE TABLE alembic_version (version_num VARCHAR(32) NOT NULL)")  # not committed
    watcher = psycopg.connect(libpq, autocommit=True)
    gate_pid = gate.info.backend_pid
    first = start_nap_serve(postgres_url, tmp_path / "a", 1)
    second = start_nap_serve(postgres_url, tmp_path / "b", 1)
    try:
        def both_waiting() -> bool:
            for process, _port in (first, second):
                assert process.poll() is None, process.stdout.read().decode() if process.stdout else ""
            row = watcher.execute(
                "SELECT (SELECT count(*) FROM pg_stat_activity WHERE %s = ANY(pg_blocking_pids(pid)))"
                " + (SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted AND classid = %s)",
                (gate_pid, 0x4E4150)).fetchone()
            return row is not None and row[0] >= 2

        wait_until(both_waiting, "the two starts never both reached the migrations")
        gate.rollback()
        wait_serving(*first)
        wait_serving(*second)
        engine = sa.create_engine(postgres_url)
        try:
            with engine.connect() as connection:
                assert connection.scalar(sa.text("SELECT version_num FROM alembic_version")) == _head()
        finally:
            engine.dispose()
        for _process, port in (first, second):
            phone = Phone(port)
            try:
                assert phone.ask("GET", "/")[0] == 200
            finally:
                phone.close()
    finally:
        gate.close()
        watcher.close()
        stop(first[0])
        stop(second[0])


def test_a_schema_at_head_starts_without_waiting_for_the_lock(postgres_url: str) -> None:
    """The usual start reads the version and takes no lock: with another session holding
    the migrations' advisory lock, ``upgrade_to_head`` still returns at once (``False``)."""
    import threading

    import psycopg

    from scorer.storage.schema import schema_heads, upgrade_to_head

    app = make_app(postgres_url)
    schema = postgres_url.rsplit("%3D", 1)[1]
    holder = psycopg.connect(postgres_url.replace("+psycopg", "").split("?", 1)[0], autocommit=True)
    results: list[bool] = []
    try:
        holder.execute("SELECT pg_advisory_lock(%s, hashtext(%s))", (0x4E4150, schema))

        def start() -> None:
            with app.app_context():
                results.append(upgrade_to_head())

        starter = threading.Thread(target=start)
        starter.start()
        starter.join(timeout=120)  # a bound only: it would hang here until the lock is let go
        assert results == [False]
        with app.app_context():
            current, heads = schema_heads()
            assert current == heads and len(heads) == 1
    finally:
        holder.close()  # lets a hung starter go on
        _dispose(app)


def _head() -> str:
    """The newest revision in ``migrations/`` (one head)."""
    from alembic.config import Config
    from alembic.script import ScriptDirectory

    config = Config()
    config.set_main_option("script_location", str(Path(__file__).resolve().parent.parent / "migrations"))
    (head,) = ScriptDirectory.from_config(config).get_heads()
    return head
