"""Helpers for driving the web app through Flask's test client, or a real waitress."""

from __future__ import annotations

import contextlib
import re
import socket
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
import sqlalchemy as sa
from waitress.server import create_server

from scorer.storage.models import Evening, Hand, HandVersion, db


def start_evening(client: Any, variant: str = "pagat", players: tuple[str, ...] = ("Ann", "Bob", "Cat", "Dan"),
                  first_dealer: int = 0, **fields: Any) -> str:
    data: dict[str, Any] = {f"players-{i}": name for i, name in enumerate(players)}
    data["first_dealer"] = str(first_dealer)
    data["scoring"] = "points"
    if variant == "pagat":
        data.update({"opt_hands_per_dealer": "2"})
    else:
        data.update({"opt_lowest_bid": "1", "opt_wellington_blucher": "y", "opt_all_pass": "redeal"})
    data.update(fields)
    response = client.post(f"/new/{variant}", data=data)
    assert response.status_code == 302, response.get_data(as_text=True)
    return response.headers["Location"].rsplit("/", 1)[-1]


def post_hand(client: Any, key: str, number: int, dealer: int, calls: dict[int, str], tricks: int | None = None,
              misdeal: bool = False) -> Any:
    data: dict[str, Any] = {"number": str(number), "dealer": str(dealer)}
    data.update({f"call_{seat}": call for seat, call in calls.items()})
    if tricks is not None:
        data["tricks"] = str(tricks)
    if misdeal:
        data["misdeal"] = "1"
    else:
        data["save"] = "1"
    return client.post(f"/e/{key}/hand", data=data)


def counts(app: Any) -> tuple[int, int, int]:
    """(evenings, hands, hand versions) in the database."""
    with app.app_context():
        return tuple(
            db.session.scalar(sa.select(sa.func.count()).select_from(model)) for model in (Evening, Hand, HandVersion)
        )  # type: ignore[return-value]


def totals_on_page(html: str) -> dict[str, str]:
    """The big totals on the scoresheet, by player."""
    return dict(re.findall(r'<span class="who"(?: dir="auto")?>(.*?)</span>\s*<span class="pts">(.*?)</span>', html))


def second_scorer(app: Any, key: str) -> Any:
    """Another phone (a test client), made a scorer of table ``key`` with the scorers' link."""
    with app.app_context():
        edit_key = db.session.scalar(sa.select(Evening.edit_key).where(Evening.key == key))
    phone = app.test_client()
    assert phone.get(f"/e/{key}/scorer/{edit_key}").status_code == 302
    return phone


@contextlib.contextmanager
def running(app: Any, **settings: Any) -> Iterator[int]:
    """``app`` under a real waitress on a free loopback port (yielded), closed afterwards."""
    server = create_server(app, host="127.0.0.1", port=0, **settings)

    def run() -> None:
        try:
            server.run()
        except OSError:  # the listening socket closed under waitress's loop at teardown (EBADF)
            pass

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    try:
        yield server.effective_port  # type: ignore[union-attr]
    finally:
        server.close()
        thread.join(timeout=5)


def stop(process: subprocess.Popen[Any]) -> None:
    """End a child process (a server started by a test): politely, then for sure."""
    process.terminate()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
    if process.stdout:
        process.stdout.close()


#: How long a hang guard waits: far past anything a loaded CI machine takes (a server
#: listens, a notification arrives, within seconds), so it only stops a test that hangs.
HANG_GUARD = 600.0


def free_port() -> int:
    """A TCP port on loopback that nothing listens on now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def listening(port: int) -> bool:
    """Whether something accepts connections on loopback ``port``."""
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
    except OSError:
        return False
    return True


def wait_until(ready: Callable[[], bool], what: str, pause: float = 0.05) -> None:
    """Poll ``ready()`` until it is true. A hang guard, not a speed check: it fails the test
    only after :data:`HANG_GUARD` seconds, with "``what``" as the reason."""
    give_up = time.monotonic() + HANG_GUARD
    while not ready():
        if time.monotonic() > give_up:
            pytest.fail(f"{what} (waited {HANG_GUARD:.0f} s)")
        time.sleep(pause)


#: A script for ``page.evaluate(QUEUE, [api, table, n, prefix])``: ``n`` hands put in the
#: phone's outbox as quick entry queues them (hand i: players[i % 4] bids Three, makes 3;
#: token ``prefix + i``), for tests/test_offline.py and benchmarks/outbox_drain.py.
QUEUE = """([api, table, n, prefix]) => new Promise((resolve, reject) => {
  const open = indexedDB.open("nap-outbox", 1);
  open.onupgradeneeded = () => open.result.createObjectStore("outbox", {keyPath: "id", autoIncrement: true});
  open.onsuccess = () => {
    const tx = open.result.transaction("outbox", "readwrite");
    const players = ["Ann", "Bob", "Cat", "Dan"];
    for (let i = 1; i <= n; i++) {
      tx.objectStore("outbox").add({table, api, number: i, token: prefix + i, state: "waiting", at: Date.now(),
        facts: {lone_bid: {declarer: players[i % 4], contract: "three"}, tricks: 3}, label: "bench " + i});
    }
    tx.oncomplete = () => { open.result.close(); resolve(true); };
    tx.onerror = () => reject(tx.error);
  };
})"""


def wait_for_promise(page: Any, predicate: str, arg: Any = None, timeout: float = 60.0) -> Any:
    """Wait until the JavaScript function ``predicate`` (called with ``arg``) gives a true
    value, awaiting it when it gives a promise; the value. Raises ``TimeoutError`` after
    ``timeout`` seconds. For predicates that ask the Cache API or IndexedDB: Playwright's
    ``page.wait_for_function`` does not await a promise, it takes the promise itself for a
    true value and returns at once (so "wait until the pages are kept" did not wait, and a
    test went offline before the service worker had kept the page it then opened)."""
    deadline = time.monotonic() + timeout
    while True:
        value = page.evaluate(predicate, arg)
        if value:
            return value
        if time.monotonic() > deadline:
            raise TimeoutError(f"not true within {timeout} s: {predicate}")
        page.wait_for_timeout(100)


#: A JavaScript expression for the service worker's pages cache (its name carries the
#: worker's version, "nap-pages-<hash>"; static/sw.js): a promise of the Cache, for
#: tests/test_offline.py and benchmarks/outbox_drain.py (wait on it with
#: :func:`wait_for_promise`, never ``page.wait_for_function``).
PAGES_CACHE = ("caches.keys().then(names => caches.open(names.find(n => n.startsWith('nap-pages-'))"
               " || 'nap-pages-none'))")


def hand_id(app: Any, key: str, number: int) -> str:
    """The row id of hand ``number`` in play at table ``key`` (as its forms carry it in
    ``hand_id``), for tests that post a hand's forms by hand. ``app``: the app, or a test
    client of it."""
    app = getattr(app, "application", app)
    with app.app_context():
        found = db.session.scalar(sa.select(Hand.id).join(Evening, Hand.evening_id == Evening.id)
                                  .where(Evening.key == key, Hand.number == number))
    assert found is not None, f"no hand {number} in play at {key}"
    return str(found)


@contextlib.contextmanager
def statements(app: Any) -> Iterator[list[str]]:
    """The SQL statements ``app``'s engine runs inside the block, in order (a list filled as
    they run; the caller may empty it between steps)."""
    seen: list[str] = []

    def record(_conn: Any, _cursor: Any, statement: str, *_: Any) -> None:
        seen.append(statement)

    with app.app_context():
        engine = db.engine
    sa.event.listen(engine, "before_cursor_execute", record)
    try:
        yield seen
    finally:
        sa.event.remove(engine, "before_cursor_execute", record)
