"""Phones racing: a real threaded server (waitress), several clients at once."""

from __future__ import annotations

import http.client
import socket
import threading
from typing import Any
from urllib.parse import urlencode

import pytest
import sqlalchemy as sa
from waitress.server import create_server

from scorer import services
from scorer.models import Hand, HandVersion, db
from scorer.rules import HandFacts


@pytest.fixture
def server(any_db_app: Any):  # type: ignore[no-untyped-def]
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    srv = create_server(any_db_app, host="127.0.0.1", port=port, threads=6)
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    yield any_db_app, port
    srv.close()


def _post(port: int, path: str, fields: dict[str, str]) -> int:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    conn.request("POST", path, urlencode(fields), {"Content-Type": "application/x-www-form-urlencoded"})
    status = conn.getresponse().status
    conn.close()
    return status


def test_the_same_hand_from_six_phones_is_saved_once(server: Any) -> None:
    app, port = server
    with app.app_context():
        evening = services.create_evening(variant="pagat", players=["A", "B", "C", "D"], first_dealer=0,
                                          options={}, stake=None)
        key = evening.key
    barrier = threading.Barrier(6)
    statuses: list[int] = []

    def phone(i: int) -> None:
        barrier.wait()
        for number in range(1, 6):  # each phone tries hands 1..5; every hand must be saved exactly once
            calls = {f"call_{(number + 1) % 4}": "three"}
            statuses.append(_post(port, f"/e/{key}/hand", {"number": str(number), "dealer": str((number - 1) % 4),
                                                           "tricks": str(i % 6), "save": "1", **calls}))

    threads = [threading.Thread(target=phone, args=(i,)) for i in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(statuses) == 30 and set(statuses) == {302}  # saved, or told it was already saved: never a 500
    with app.app_context():
        numbers = db.session.scalars(sa.select(Hand.number).order_by(Hand.number)).all()
        assert numbers == [1, 2, 3, 4, 5]
        assert db.session.scalar(sa.select(sa.func.count()).select_from(HandVersion)) == 5
        stored = services.get_evening(key)
        assert stored is not None and stored.revision == 5
        # every saved hand is whole: it settles
        assert len(services.ledger_of(stored).rows) == 5


def test_racing_corrections_keep_every_version(server: Any) -> None:
    app, port = server
    with app.app_context():
        evening = services.create_evening(variant="pagat", players=["A", "B", "C"], first_dealer=0, options={},
                                          stake=None)
        services.record_hand(evening, 1, HandFacts(0, ("three", "pass", "pass"), 3))
        key = evening.key
    barrier = threading.Barrier(6)
    statuses: list[int] = []

    def phone(i: int) -> None:
        barrier.wait()
        statuses.append(_post(port, f"/e/{key}/hand/1/edit", {"number": "1", "version": "1", "dealer": "0",
                                                              "call_1": "three", "tricks": str(i % 3), "save": "1"}))

    threads = [threading.Thread(target=phone, args=(i,)) for i in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert set(statuses) == {302}
    with app.app_context():
        versions = db.session.scalars(sa.select(HandVersion.version).order_by(HandVersion.version)).all()
        assert versions == [1, 2]  # exactly one correction from version 1 won; the others were refused
