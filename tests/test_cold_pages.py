"""Cold pages across processes (issue 23 item 4): each evening's settled result is kept in
the database (scorer/storage/kept_results.py), so a second app on the same database
(another process) finds it instead of settling the evening again; a change made through
the first app makes it stale, and a stale result is never shown. The one-tap Undo offer
reads the last hand only, with the same answer as before. SQLite and PostgreSQL.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import date
from typing import Any

import pytest
import sqlalchemy as sa

from scorer import create_app
from scorer.evening.file import EveningFile
from scorer.evening.ledger import settle_evening
from scorer.rules import EveningSetup, HandFacts, get_variant
from scorer.storage import evening_writes, hand_writes, kept_results, units
from scorer.storage import kept_ledgers as settled
from scorer.storage.groups import create_group
from scorer.storage.models import Evening, SettledResult, db
from tests.conftest import _dispose, make_app

PLAYERS = ("Ann", "Bob", "Cat", "Dan")
HANDS = (  # pagat, Ann deals first: Bob +9 (three made), Cat −12 (four lost), Dan +15 (nap made)
    HandFacts(0, ("three", "pass", "pass", "pass"), 3),
    HandFacts(1, ("four", "pass", "pass", "pass"), 2),
    HandFacts(2, ("nap", "pass", "pass", "pass"), 5),
)


@pytest.fixture(params=["sqlite", "postgresql"])
def two_apps(request: pytest.FixtureRequest) -> Iterator[tuple[Any, Any]]:
    """Two apps on one database, as two processes of one server."""
    url = request.getfixturevalue("sqlite_url" if request.param == "sqlite" else "postgres_url")
    first = make_app(url)
    second = create_app({"TESTING": True, "SECRET_KEY": "test-secret", "SQLALCHEMY_DATABASE_URI": url,
                         "WTF_CSRF_ENABLED": False})
    _forget()
    yield first, second
    _dispose(second)
    _dispose(first)

#: a total tile's name and points (the name's span may carry dir="auto")
TILE = r'<span class="who"(?: dir="auto")?>(.*?)</span>\s*<span class="pts">(.*?)</span>'


def _forget() -> None:
    """What a new process knows: nothing kept in memory (the ledgers, the pages)."""
    from scorer.web import caches
    from scorer.web.views import groups

    for cache in (caches.sheet_cache, caches.page_cache, caches.frame_cache, caches.chart_cache, groups.season_cache,
                  groups.fragment_cache, groups.chart_cache, groups.piece_cache):
        cache.clear()
    settled.ledgers.clear()


def _setup() -> EveningSetup:
    return get_variant("pagat").check_setup(EveningSetup("pagat", PLAYERS, 0, {"hands_per_dealer": 5}, None))


def _group_of_two(app: Any) -> tuple[str, list[str]]:
    """A group with two evenings of the hands above (the second one with the first two
    only), made through ``app``: (group key, evening keys)."""
    with app.app_context():
        group = create_group("Club")
        group_id, group_key = group.id, group.key
        keys = []
        for day, hands in ((1, HANDS), (8, HANDS[:2])):
            evening = evening_writes.import_evening(EveningFile(setup=_setup(), hands=list(hands), name=f"Night {day}"))
            evening.group_id, evening.played_on = group_id, date(2026, 1, day)
            db.session.commit()
            keys.append(evening.key)
    return group_key, keys


def _totals(html: str) -> dict[str, int]:
    """The season's big totals on the group page, by player (units)."""
    section = re.split(r'<section class="book"', html)[1]
    return {name: int(points.replace("−", "-").replace("+", ""))
            for name, points in re.findall(TILE, section)}


def _season(*nights: tuple[HandFacts, ...]) -> dict[str, int]:
    """The season's totals of evenings of ``nights``' hands, settled from scratch."""
    ledgers = [settle_evening(_setup(), list(hands)) for hands in nights]
    return {name: sum(ledger.totals[seat] for ledger in ledgers) for seat, name in enumerate(PLAYERS)}


@pytest.fixture
def settles(monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    """The keys of the evenings a season's view had to settle (not found kept in the database)."""
    calls: list[list[str]] = []
    real = settled.settled_many

    def spy(keys: Any, heads: Any = None) -> Any:
        calls.append(sorted(keys))
        return real(keys, heads)

    monkeypatch.setattr(settled, "settled_many", spy)
    return calls


def _kept(app: Any, key: str) -> tuple[int, int, list[int]] | None:
    """(kept revision, evening revision, kept totals) of evening ``key``, or None if none is kept."""
    with app.app_context():
        row = db.session.execute(sa.select(SettledResult.revision, Evening.revision, SettledResult.totals)
                                 .join(Evening, Evening.id == SettledResult.evening_id)
                                 .where(Evening.key == key)).first()
        return None if row is None else (row[0], row[1], list(row[2]))


def test_a_result_kept_by_one_app_is_found_by_another(two_apps: tuple[Any, Any], settles: list[list[str]]) -> None:
    first, second = two_apps
    group, keys = _group_of_two(first)
    page = first.test_client().get(f"/g/{group}")
    assert page.status_code == 200
    assert settles == [sorted(keys)]  # nothing kept yet: the first app settles both, and keeps them
    expected = _season(HANDS, HANDS[:2])
    assert _totals(page.get_data(as_text=True)) == expected
    night = settle_evening(_setup(), list(HANDS))
    assert _kept(first, keys[0]) == (0, 0, list(night.totals))  # at the evening's revision (as imported)
    _forget()  # the second app is another process: it has nothing in memory
    again = second.test_client().get(f"/g/{group}")
    assert _totals(again.get_data(as_text=True)) == expected
    assert settles == [sorted(keys)]  # found in the database: nothing settled again


def test_a_change_through_one_app_makes_the_kept_result_stale_for_the_other(
        two_apps: tuple[Any, Any], settles: list[list[str]]) -> None:
    first, second = two_apps
    group, keys = _group_of_two(first)
    viewer = second.test_client()
    viewer.get(f"/g/{group}")
    before = _totals(viewer.get(f"/g/{group}").get_data(as_text=True))
    settles.clear()
    with first.app_context():  # the second night's third hand (Dan's nap), saved through the first app
        hand_writes.record_hand(units.get_evening(keys[1]), 3, HANDS[2])
    assert _kept(first, keys[1])[:2] == (1, 1)  # kept by the write itself, with its revision
    _forget()
    after = _totals(viewer.get(f"/g/{group}").get_data(as_text=True))
    assert settles == []  # the write kept the new result: found by the second app
    assert before == _season(HANDS, HANDS[:2]) and after == _season(HANDS, HANDS)
    with first.app_context():  # an undo keeps no result: the kept one is stale now
        evening = units.get_evening(keys[1])
        hand_writes.undo_last_hand(evening, 3, 1)
    assert _kept(first, keys[1])[:2] == (1, 2)
    _forget()
    assert _totals(viewer.get(f"/g/{group}").get_data(as_text=True)) == before
    assert settles == [[keys[1]]]  # only the stale one is settled again, and kept at its revision
    assert _kept(first, keys[1])[:2] == (2, 2)


def test_a_stale_kept_result_is_never_shown(two_apps: tuple[Any, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    first, second = two_apps
    group, keys = _group_of_two(first)
    viewer = second.test_client()
    assert _totals(viewer.get(f"/g/{group}").get_data(as_text=True)) == _season(HANDS, HANDS[:2])
    corrected = (HandFacts(0, ("three", "pass", "pass", "pass"), 2), *HANDS[1:])  # Bob's three lost
    # the first app corrects an old hand (night 1, hand 1: Bob's three lost) and, as a write
    # that keeps nothing would, leaves the kept result of the old revision in place
    monkeypatch.setattr(kept_results, "keep", lambda *args, **kwargs: None)
    with first.app_context():
        evening = units.get_evening(keys[0])
        hand_writes.correct_hand(evening, 1, 1, corrected[0])
    stale = _kept(first, keys[0])
    assert stale is not None and stale[0] < stale[1]  # the row still holds the old revision's result
    page = viewer.get(f"/g/{group}").get_data(as_text=True)  # the second app, its memory as it was
    assert _totals(page) == _season(corrected, HANDS[:2]) != _season(HANDS, HANDS[:2])
    assert _kept(first, keys[0])[:2] == (stale[1], stale[1])  # replaced by the view that settled it


def test_a_kept_result_is_only_replaced_by_a_later_revision(two_apps: tuple[Any, Any]) -> None:
    first, _ = two_apps
    _, keys = _group_of_two(first)
    with first.app_context():
        evening_id = db.session.scalar(sa.select(Evening.id).where(Evening.key == keys[0]))
        ledger = settle_evening(_setup(), list(HANDS))
        older = settle_evening(_setup(), list(HANDS[:1]))
        kept_results.keep_many([(evening_id, 5, kept_results.EveningResult.of(ledger))])
        kept_results.keep_many([(evening_id, 4, kept_results.EveningResult.of(older))])  # late, and older
        row = db.session.get(SettledResult, evening_id)
        assert (row.revision, row.hands, row.totals) == (5, 3, list(ledger.totals))


# --- the one-tap Undo offer ---------------------------------------------------------------


def _offer_before(key: str) -> tuple[int, int, int] | None:
    """The offer as it was made before (every hand of the evening loaded)."""
    evening = units.get_evening(key)
    if evening is None or not evening.hands or evening.finished_at is not None:
        return None
    last = evening.hands[-1]
    return last.number, last.current.version, last.id


def test_the_undo_offer_reads_the_last_hand_only_and_answers_as_before(
        app: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    from scorer.web.views.common import undo_offer

    with app.app_context():
        key = evening_writes.import_evening(EveningFile(setup=_setup(), hands=[], name="Night")).key
        seen: list[tuple[int, int, int] | None] = []

        def offer() -> tuple[int, int, int] | None:
            expected = _offer_before(key)
            db.session.expire_all()
            with monkeypatch.context() as m:  # the offer must not load the evening's hands
                m.setattr(units, "get_evening", lambda *a, **k: pytest.fail("undo_offer loaded the evening"))
                with app.test_request_context():
                    got = undo_offer(key)
            answer = None if got is None else (got["number"], got["version"], got["hand_id"])
            assert answer == expected and (got is None or got["key"] == key)
            seen.append(answer)
            return answer

        assert offer() is None  # no hand yet
        for number, facts in enumerate(HANDS, 1):
            hand_writes.record_hand(units.get_evening(key), number, facts)
        third = offer()
        assert third is not None and third[:2] == (3, 1)
        hand_writes.correct_hand(units.get_evening(key), 3, 1, HandFacts(2, ("nap", "pass", "pass", "pass"), 4))
        assert offer() == (3, 2, third[2])  # the corrected hand's current version
        hand_writes.undo_last_hand(units.get_evening(key), 3, 2)
        second = offer()
        assert second is not None and second[:2] == (2, 1) and second[2] != third[2]
        hand_writes.record_hand(units.get_evening(key), 3, HANDS[2])  # a new hand 3, another row
        new_third = offer()
        assert new_third is not None and new_third[:2] == (3, 1) and new_third[2] != third[2]
        evening_writes.set_finished(units.get_evening(key), True)
        assert offer() is None  # finished: nothing to undo
        with app.test_request_context():
            assert undo_offer("no-such-evening") is None and undo_offer("bad key!") is None


def test_the_settled_result_migration_goes_down_and_up(two_apps: tuple[Any, Any]) -> None:
    """0017 only adds the cache: down, the table is gone and the season is as before; up
    again, the results are settled and kept anew."""
    from flask_migrate import downgrade, upgrade

    first, _ = two_apps
    group, keys = _group_of_two(first)
    client = first.test_client()
    expected = _season(HANDS, HANDS[:2])
    assert _totals(client.get(f"/g/{group}").get_data(as_text=True)) == expected
    with first.app_context():
        db.session.remove()
        downgrade(revision="0016_pin_budget")
        assert "settled_result" not in sa.inspect(db.engine).get_table_names()
        upgrade()
        assert db.session.scalar(sa.select(sa.func.count()).select_from(SettledResult)) == 0
    _forget()
    assert _totals(client.get(f"/g/{group}").get_data(as_text=True)) == expected
    assert _kept(first, keys[0])[:2] == (0, 0)
