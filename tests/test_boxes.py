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


@contextmanager
def nap_serve(url: str, tmp: Path, workers: int) -> Iterator[int]:
    """``nap serve --workers N`` on a free loopback port (yielded) on the database ``url``."""
    port = free_port()
    env = dict(os.environ, DATABASE_URL=url, SECRET_KEY="boxes-secret", NAP_INSTANCE=str(tmp),
               PYTHONPATH=str(ROOT))
    process = subprocess.Popen([sys.executable, "-m", "scorer", "serve", "--host", "127.0.0.1", "--port", str(port),
                                "--workers", str(workers)], cwd=ROOT, env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        def serving() -> bool:
            assert process.poll() is None, process.stdout.read().decode() if process.stdout else ""
            return listening(port)

        wait_until(serving, "nap serve never listened", pause=0.1)
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
