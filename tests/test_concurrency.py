"""Phones racing: a real threaded server (waitress), six phones, each its own session.

Every phone joins as a scorer through the scorers' link, then all six enter the
same hands at the same moment, each sending every form twice (a double tap) and
sharing a form's one-time token with another phone (a browser retry of the same
form), and then correct hands from a stale page. Run on SQLite and PostgreSQL.
Nothing may be lost, duplicated or half-written, and nothing may answer 500.
"""

from __future__ import annotations

import http.client
import threading
from collections import Counter
from typing import Any
from urllib.parse import urlencode

import pytest
import sqlalchemy as sa

from scorer.storage import evening_writes, evenings, units
from scorer.storage.db import db
from scorer.storage.models import Change, Hand, HandVersion, Submission
from webhelpers import hand_id, running

PHONES = 6
HANDS = 20
CORRECTED = 10


@pytest.fixture
def server(any_db_app: Any):  # type: ignore[no-untyped-def]
    with running(any_db_app, threads=PHONES) as port:
        yield any_db_app, port


class Phone:
    """One browser: keeps its cookies (the device id the scorers' link made a scorer, and
    the session) as a browser does."""

    def __init__(self, port: int, name: str) -> None:
        self.port = port
        self.cookies: dict[str, str] = {}
        self.name = name

    @property
    def cookie(self) -> str:
        return "; ".join(f"{k}={v}" for k, v in self.cookies.items())

    def request(self, method: str, path: str, fields: dict[str, str] | None = None) -> int:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
        headers = {"Cookie": self.cookie, "User-Agent": f"Mozilla/5.0 (Linux; Android 14) {self.name}"}
        body = None
        if fields is not None:
            body = urlencode(fields)
            headers["Content-Type"] = "application/x-www-form-urlencoded"
        conn.request(method, path, body, headers)
        response = conn.getresponse()
        response.read()
        for cookie in response.msg.get_all("Set-Cookie") or ():
            name, _, value = cookie.split(";", 1)[0].partition("=")
            self.cookies[name] = value
        conn.close()
        return response.status


def _race(count: int, work: Any) -> None:
    barrier = threading.Barrier(count)
    errors: list[BaseException] = []

    def run(i: int) -> None:
        try:
            work(i, barrier)
        except BaseException as error:  # noqa: BLE001 - reported below
            errors.append(error)
            barrier.abort()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(count)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors


def test_six_phones_race_hands_duplicates_and_stale_corrections(server: Any) -> None:
    app, port = server
    with app.app_context():
        evening = evening_writes.create_evening(variant="pagat", players=["Ann", "Bob", "Cat", "Dan"], first_dealer=0,
                                          options={"hands_per_dealer": 10}, stake=None)
        key, edit_key = evening.key, evening.edit_key
    phones = [Phone(port, f"phone-{i}") for i in range(PHONES)]
    for phone in phones:
        assert phone.request("GET", f"/e/{key}/scorer/{edit_key}") == 302
        assert "nap_device" in phone.cookies
    statuses: Counter[int] = Counter()
    lock = threading.Lock()

    def enter_hands(i: int, barrier: threading.Barrier) -> None:
        phone = phones[i]
        for number in range(1, HANDS + 1):
            barrier.wait(timeout=60)
            # hand n: the seat after the dealer bids three and wins (3 + i % 3) tricks;
            # phones 0/3, 1/4 and 2/5 share a form token (one form sent by two browsers)
            dealer = (number - 1) % 4
            fields = {"number": str(number), "dealer": str(dealer), "declarer": str((dealer + 1) % 4),
                      "contract": "three", "tricks": str(3 + i % 3), "token": f"hand-{number}-form-{i % 3}"}
            for _tap in range(2):  # a double tap
                status = phone.request("POST", f"/e/{key}/quick", fields)
                with lock:
                    statuses[status] += 1

    _race(PHONES, enter_hands)
    rows = {number: hand_id(app, key, number) for number in range(1, CORRECTED + 1)}

    def correct_from_stale_page(i: int, barrier: threading.Barrier) -> None:
        phone = phones[i]
        for number in range(1, CORRECTED + 1):
            barrier.wait(timeout=60)
            dealer = (number - 1) % 4
            fields = {"number": str(number), "version": "1", "hand_id": rows[number], "dealer": str(dealer),
                      f"call_{(dealer + 1) % 4}": "four", "tricks": str(i % 6), "save": "1",
                      "token": f"fix-{number}-{i}"}
            status = phone.request("POST", f"/e/{key}/hand/{number}/edit", fields)
            with lock:
                statuses[status] += 1

    _race(PHONES, correct_from_stale_page)

    submissions = PHONES * HANDS * 2 + PHONES * CORRECTED
    assert submissions >= 200
    assert statuses == Counter({302: submissions})  # saved, or told why not: never a 500
    with app.app_context():
        live = db.session.scalars(sa.select(Hand.number).where(Hand.number > 0).order_by(Hand.number)).all()
        assert live == list(range(1, HANDS + 1))  # every hand once: none lost, none twice
        per_hand = Counter(db.session.execute(
            sa.select(Hand.number, HandVersion.version).join(HandVersion.hand)).all())
        # hands 1-10: the first version and exactly one correction from the stale page; hands 11-20: one version
        assert sorted(per_hand) == sorted([(n, 1) for n in range(1, HANDS + 1)]
                                          + [(n, 2) for n in range(1, CORRECTED + 1)])
        kinds = Counter(db.session.scalars(sa.select(Change.kind)).all())
        assert kinds == Counter({"start": 1, "new": HANDS, "correct": CORRECTED})
        # one token per saved form: the 20 hands and the 10 winning corrections
        assert db.session.scalar(sa.select(sa.func.count()).select_from(Submission)) == HANDS + CORRECTED
        stored = units.get_evening(key)
        assert stored is not None and stored.revision == HANDS + CORRECTED
        ledger = evenings.ledger_of(stored)  # every saved hand is whole: the evening settles
        assert len(ledger.rows) == HANDS
        for row in ledger.rows[CORRECTED:]:
            assert row.facts.auction.count("three") == 1 and row.facts.tricks in (3, 4, 5)
        for row in ledger.rows[:CORRECTED]:
            assert row.facts.auction.count("four") == 1


def test_a_viewer_changes_nothing(server: Any) -> None:
    app, port = server
    with app.app_context():
        evening = evening_writes.create_evening(variant="pagat", players=["Ann", "Bob", "Cat"], first_dealer=0,
                                          options={}, stake=None)
        key = evening.key
    viewer = Phone(port, "viewer")
    assert viewer.request("GET", f"/e/{key}") == 200
    fields = {"number": "1", "dealer": "0", "declarer": "1", "contract": "three", "tricks": "3", "token": "t"}
    assert viewer.request("POST", f"/e/{key}/quick", fields) == 302  # sent to "become a scorer"
    with app.app_context():
        assert db.session.scalar(sa.select(sa.func.count()).select_from(Hand)) == 0


def _live_numbers(app: Any, key: str) -> list[int]:
    with app.app_context():
        evening = units.get_evening(key)
        assert evening is not None
        return [h.number for h in evening.hands]


def test_undo_and_settings_racing_new_hands_leave_no_gap_and_no_hand_past_the_end(server: Any) -> None:
    """An undo and a new hand at the same moment, and a settings change that shortens the
    evening at the same moment as a new hand: whatever order they land in, the hands
    stay numbered 1..n and none lies past the agreed end (P-14)."""
    app, port = server
    with app.app_context():
        evening = evening_writes.create_evening(variant="pagat", players=["Ann", "Bob", "Cat"], first_dealer=0,
                                          options={"hands_per_dealer": 50}, stake=None)
        key, edit_key = evening.key, evening.edit_key
    a, b = Phone(port, "a"), Phone(port, "b")
    for phone in (a, b):
        assert phone.request("GET", f"/e/{key}/scorer/{edit_key}") == 302

    def quick(phone: Phone, number: int) -> int:
        return phone.request("POST", f"/e/{key}/quick", {"number": str(number), "declarer": str(number % 3),
                                                          "contract": "three", "tricks": "3"})

    assert quick(a, 1) == 302
    for _round in range(8):
        last = len(_live_numbers(app, key))
        row = hand_id(app, key, last)
        statuses: list[int] = []

        def undo_or_add(i: int, barrier: threading.Barrier, last: int = last, row: str = row,
                        statuses: list[int] = statuses) -> None:
            barrier.wait(timeout=30)
            if i == 0:
                statuses.append(a.request("POST", f"/e/{key}/undo", {"number": str(last), "version": "1",
                                                                      "hand_id": row}))
            else:
                statuses.append(quick(b, last + 1))

        _race(2, undo_or_add)
        assert statuses == [302, 302]
        numbers = _live_numbers(app, key)
        assert numbers == list(range(1, len(numbers) + 1)), numbers
        if not numbers:
            assert quick(a, 1) == 302
    # shorten the evening to 1 hand per dealer (3 hands) while a phone saves the next hand
    while len(_live_numbers(app, key)) < 2:
        assert quick(a, len(_live_numbers(app, key)) + 1) == 302
    while len(_live_numbers(app, key)) > 2:
        n = len(_live_numbers(app, key))
        assert a.request("POST", f"/e/{key}/undo", {"number": str(n), "version": "1",
                                                    "hand_id": hand_id(app, key, n)}) == 302
    with app.app_context():
        revision = units.evening_revision(key)
    results: list[int] = []

    def shorten_or_add(i: int, barrier: threading.Barrier) -> None:
        barrier.wait(timeout=30)
        if i == 0:
            results.append(a.request("POST", f"/e/{key}/settings", {
                "name": "Race", "revision": str(revision), "opt_hands_per_dealer": "1"}))
        else:
            results.append(quick(b, 3))
            results.append(quick(b, 4))

    _race(2, shorten_or_add)
    assert 500 not in results
    with app.app_context():
        stored = units.get_evening(key)
        assert stored is not None
        ledger = evenings.ledger_of(stored)
        if stored.options["hands_per_dealer"] == 1:
            assert len(ledger.rows) <= 3  # the agreed end holds
        else:
            assert len(ledger.rows) == 4  # the settings change was refused: hand 4 was already there
        assert [h.number for h in stored.hands] == list(range(1, len(ledger.rows) + 1))


def test_a_burst_of_wrong_pins_from_many_phones_never_overdraws_the_networks_budget(server: Any) -> None:
    from scorer.storage import pin_budget
    from scorer.storage.models import PinAttempt

    app, port = server
    with app.app_context():
        evening = evening_writes.create_evening(variant="pagat", players=["Ann", "Bob", "Cat"], first_dealer=0,
                                          options={}, stake=None)
        key, pin, evening_id = evening.key, evening.pin, evening.id
    wrong = "000000" if pin != "000000" else "111111"
    statuses: list[int] = []
    lock = threading.Lock()

    def guess(i: int, barrier: threading.Barrier) -> None:
        barrier.wait(timeout=30)
        for _ in range(2):  # each phone a fresh session: only the table's budget stops them
            status = Phone(port, f"guesser-{i}").request("POST", f"/e/{key}/join", {"pin": wrong})
            with lock:
                statuses.append(status)

    _race(PHONES, guess)
    _race(PHONES, guess)
    _race(PHONES, guess)
    assert len(statuses) == 36 and set(statuses) == {422}
    with app.app_context():  # every phone is on one network (loopback): exactly 10 were checked
        checked = db.session.scalar(sa.select(sa.func.count()).select_from(PinAttempt)
                                    .where(PinAttempt.evening_id == evening_id))
        assert checked == pin_budget.NETWORK_TRIES
    # and the next phone, with the right PIN, is told to wait
    late = Phone(port, "late")
    assert late.request("POST", f"/e/{key}/join", {"pin": pin}) == 422


ROUNDS = 8


def test_opposite_merges_at_the_same_moment_never_make_a_loop(server: Any) -> None:
    """Bob→Bobby and Bobby→Bob from two phones at once both succeeded on PostgreSQL (30
    of 30) and the season counted them apart. The group's row is now locked first: one
    merge wins (302), the other is told they already count as one player (422)."""
    from scorer.storage import groups
    from scorer.storage.models import GroupAlias

    app, port = server
    keys = []
    with app.app_context():
        for r in range(ROUNDS):
            group = groups.create_group(f"Club {r}")
            for names in (["Ann", "Bob", "Cat"], ["Ann", "Bobby", "Cat"]):
                evening = evening_writes.create_evening(variant="pagat", players=names, first_dealer=0, options={},
                                                  stake=None)
                groups.add_evening(group, evening.key)
            keys.append((group.key, group.id))
    phones = [Phone(port, "a"), Phone(port, "b")]
    answers: list[list[int]] = [[], []]

    def merge(i: int, barrier: threading.Barrier) -> None:
        alias, canonical = ("Bob", "Bobby") if i == 0 else ("Bobby", "Bob")
        for group_key, _ in keys:
            barrier.wait(timeout=30)
            answers[i].append(phones[i].request("POST", f"/g/{group_key}/merge",
                                                {"alias": alias, "canonical": canonical}))

    _race(2, merge)
    for r in range(ROUNDS):
        assert sorted((answers[0][r], answers[1][r])) == [302, 422], r
    with app.app_context():
        for _, group_id in keys:
            rows = db.session.scalars(sa.select(GroupAlias).where(GroupAlias.group_id == group_id)).all()
            assert len(rows) == 1  # one merge, no loop


def test_two_groups_adding_one_evening_at_once_only_one_says_so(server: Any) -> None:
    """Both said it was added; only one had it. The add now succeeds only if the evening
    is still in no group: the other phone is told it belongs to another group."""
    from scorer.storage import groups
    from scorer.storage.models import Evening

    app, port = server
    with app.app_context():
        pairs = []
        for r in range(ROUNDS):
            evening = evening_writes.create_evening(variant="pagat", players=["Ann", "Bob", "Cat"], first_dealer=0,
                                              options={}, stake=None)
            pairs.append((evening.key, evening.edit_key, groups.create_group(f"A{r}").key,
                          groups.create_group(f"B{r}").key))
    phones = [Phone(port, "a"), Phone(port, "b")]
    for phone in phones:
        for key, edit_key, _, _ in pairs:
            assert phone.request("GET", f"/e/{key}/scorer/{edit_key}") == 302
    answers: list[list[int]] = [[], []]

    def add(i: int, barrier: threading.Barrier) -> None:
        for key, _, first, second in pairs:
            barrier.wait(timeout=30)
            answers[i].append(phones[i].request("POST", f"/g/{first if i == 0 else second}/add", {"link": key}))

    _race(2, add)
    for r in range(ROUNDS):
        assert sorted((answers[0][r], answers[1][r])) == [302, 422], r
    with app.app_context():
        for r, (key, _, first, second) in enumerate(pairs):
            group_id = db.session.scalar(sa.select(Evening.group_id).where(Evening.key == key))
            winner = first if answers[0][r] == 302 else second
            assert group_id == groups.get_group(winner).id  # type: ignore[union-attr]
