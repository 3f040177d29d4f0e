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
from markupsafe import Markup, escape

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
    kept_results._rows.clear()
    kept_results._setups.clear()


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


@pytest.fixture
def decoded(monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    """The evening keys whose kept rows a season's view decoded (not met before in this process)."""
    calls: list[list[str]] = []
    real = kept_results._decode

    def spy(raws: Any) -> Any:
        calls.append(sorted(raw.key for raw in raws))
        return real(raws)

    monkeypatch.setattr(kept_results, "_decode", spy)
    return calls


def test_a_season_shown_before_decodes_only_the_evening_that_changed_elsewhere(
        two_apps: tuple[Any, Any], settles: list[list[str]], decoded: list[list[str]]) -> None:
    """The second app keeps what it made of each kept row (by the row as read): after a
    correction through the first app it decodes the corrected evening's row only, and
    shows the corrected season, never the one it had made before."""
    first, second = two_apps
    group, keys = _group_of_two(first)
    first.test_client().get(f"/g/{group}")  # the first app settles both and keeps them
    _forget()
    settles.clear()
    viewer = second.test_client()
    assert _totals(viewer.get(f"/g/{group}").get_data(as_text=True)) == _season(HANDS, HANDS[:2])
    assert decoded == [sorted(keys)] and settles == []  # found in the database, decoded once each
    corrected = HandFacts(0, ("three", "pass", "pass", "pass"), 2)  # night 1, hand 1: Bob's three lost
    with first.app_context():
        hand_writes.correct_hand(units.get_evening(keys[0]), 1, 1, corrected)
    decoded.clear()
    page = viewer.get(f"/g/{group}").get_data(as_text=True)
    # Bob's three lost instead of made: Bob −9 instead of +9 (pagat, four players: ±3 from each)
    assert _totals(page) == _season((corrected, *HANDS[1:]), HANDS[:2]) != _season(HANDS, HANDS[:2])
    assert _totals(page)["Bob"] == _season(HANDS, HANDS[:2])["Bob"] - 18
    assert decoded == [[keys[0]]] and settles == []  # the write kept it; only its row is new to the second app
    decoded.clear()
    assert _totals(viewer.get(f"/g/{group}").get_data(as_text=True)) == _totals(page)
    assert decoded == []  # unchanged: nothing decoded again


def test_a_renamed_or_moved_evening_is_shown_as_it_is_now(two_apps: tuple[Any, Any], decoded: list[list[str]]) -> None:
    """A name or a date is part of the row the second app keeps its season row by: a
    rename through the first app (the revision unchanged) is shown, in its new place."""
    first, second = two_apps
    group, keys = _group_of_two(first)
    first.test_client().get(f"/g/{group}")  # the first app settles both and keeps them
    _forget()  # the second app is another process
    viewer = second.test_client()
    cards = viewer.get(f"/g/{group}").get_data(as_text=True).split('<ul class="cards">')[1]
    assert cards.index("Night 8") < cards.index("Night 1")  # the list of evenings: latest first
    with first.app_context():
        evening = units.get_evening(keys[0])
        revision = evening.revision
        evening.name, evening.played_on = "Renamed night", date(2026, 2, 1)
        db.session.commit()
        assert units.get_evening(keys[0]).revision == revision  # as a rename leaves it
    decoded.clear()
    page = viewer.get(f"/g/{group}").get_data(as_text=True)
    assert "Renamed night" in page and "Night 1" not in page
    cards = page.split('<ul class="cards">')[1]
    assert cards.index("Renamed night") < cards.index("Night 8")  # now the latest
    assert "2026-02-01" in cards
    assert decoded == [[keys[0]]]
    assert _totals(page) == _season(HANDS, HANDS[:2])


def test_the_season_pieces_print_what_the_page_helpers_print(app: Any) -> None:
    """The season's rows print figures, dates and links with the language worked out once
    (groups._piece_helpers): the same texts as the helpers every template uses, in every
    language and under a root that is not /."""
    from flask import url_for

    from scorer.reports.words import day, signed
    from scorer.web.views.groups import _piece_helpers

    figures = (0, 5, -12, 1234, -98765, 1234567)
    dates = (date(2026, 1, 9), date(2026, 12, 31), date(1999, 2, 28))
    expected = {"en": ("+1234", "2026-01-09"), "ru": ("+1\xa0234", "9 янв. 2026\u202fг."),
                "nb": ("+1\xa0234", "9. jan. 2026"), "pt_BR": ("+1.234", "9 de jan. de 2026")}
    for code, (thousand, ninth) in expected.items():
        for root in ("", "/nap"):
            with app.test_request_context("/", headers={"Accept-Language": code}, base_url=f"http://localhost{root}/"):
                helpers = _piece_helpers()
                assert [helpers["signed"](n) for n in figures] == [signed(n) for n in figures]
                assert [helpers["day"](d) for d in dates] == [day(d) for d in dates]
                assert (helpers["signed"](1234), helpers["day"](dates[0])) == (thousand, ninth)
                assert helpers["signed"](-12) == "\u221212"
                link = helpers["url_for"]("sheet.scoresheet", key="abc_DEF-123")
                assert link == url_for("sheet.scoresheet", key="abc_DEF-123") == f"{root}/e/abc_DEF-123"
                assert helpers["url_for"]("groups.group", key="g1") == url_for("groups.group", key="g1")


def test_the_season_pieces_printed_in_python_are_what_the_template_prints(app: Any) -> None:
    """The season's rows and lines are printed in Python (scorer/web/season_pieces.py, not
    a Jinja call per figure): byte for byte what _season_pieces.html prints, in every
    language and under a root that is not /, for names that need escaping or isolating, an
    evening with one winner, with two, with none, and one left out of the season."""
    from scorer.evening.ledger import HandError
    from scorer.rules import RulesError
    from scorer.storage.groups import EveningLine
    from scorer.web import season_pieces
    from scorer.web.caches import RevisionCache, render_pieces
    from scorer.web.views.groups import _piece_helpers

    try:
        get_variant("pagat").check_setup(EveningSetup("pagat", ("Ann",), 0, {}, None))
        raise AssertionError("one player was accepted")
    except RulesError as error:
        problem = HandError(3, error)
    pagat, hoyle = get_variant("pagat").name, get_variant("hoyle").name
    lines = [
        EveningLine("k1", "Night <1> & \"Co\"", date(2026, 1, 9), pagat, 1, ("Ann",), False),
        EveningLine("k_2-x", "\u2068محمد\u2069", date(2026, 12, 31), hoyle, 25, ("Bob <b>", "Cat & D'an"), True),
        EveningLine("k3", "Empty", date(1999, 2, 28), pagat, 0, (), False),
        EveningLine("k4", "Broken", date(2026, 3, 1), hoyle, 3, (), False, problem),
    ]
    rows = [(lines[0], ((9, 9), None, (-1234, -1225))), (lines[1], (None, (0, 0), (1234567, 1234567))),
            (lines[2], ())]
    printed = {}
    for code in ("en", "ru", "nb", "pt_BR"):
        for root in ("", "/nap"):
            with app.test_request_context("/", headers={"Accept-Language": code}, base_url=f"http://localhost{root}/"):
                helpers = _piece_helpers()
                for kind, items in (("row", rows), ("line", lines)):
                    keys = [None] * len(items)
                    jinja = render_pieces("_season_pieces.html", kind, items, keys, RevisionCache(), **helpers)
                    python = render_pieces(season_pieces.printer(kind, helpers), kind, items, keys, RevisionCache())
                    assert [str(p) for p in python] == [str(p) for p in jinja]
                    printed[code, root, kind] = "".join(python)
    line = printed["en", "/nap", "line"]
    assert '<a class="card" href="/nap/e/k1">' in line
    assert "<strong>2026-01-09 · <bdi>Night &lt;1&gt; &amp; &#34;Co&#34;</bdi></strong>" in line
    assert "1 hand · winner: Ann</span>" in line
    assert "25 hands · winners: Bob &lt;b&gt;, Cat &amp; D&#39;an</span>" in line
    assert "<bdi>محمد</bdi>" in line and "0 hands</span>" in line
    assert '<span class="disputed">Left out of the season: Hand 3: British Nap, basic (Pagat) is for 3 to 6 ' \
           'players, not 1. (P-1)</span>' in line
    row = printed["ru", "", "row"]
    for text in ("", "plain", "&amp;", "<'\"&>", "a&b<c>d'e\"f", "\u2068محمد\u2069 & 🂡", "&&<<>>''\"\""):
        assert season_pieces._text(text) == str(escape(text))  # as markupsafe escapes it, without a Markup
    assert season_pieces._text(Markup("<b>")) == "<b>" and season_pieces._text(7) == "7"
    assert '<td class="num"><span class="chg">\u22121\xa0234</span><span class="run">\u22121\xa0225</span></td>' in row
    assert '<td class="num"><span class="muted">–</span></td>' in row and "9 янв. 2026\u202fг." in row


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


# --- the saving phone's redirect ----------------------------------------------------------


def test_the_saving_phones_redirect_is_the_kept_frame_with_its_message(
        app: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """After a save, the scorer's scoresheet carries "Hand 2 saved" and the one-tap Undo of
    hand 2 (its number, version and row) in the kept frame of the page: the page is the one
    every scorer gets, plus the message, and the page around the sheet is not rendered
    again for it (issue 23 item 4)."""
    from scorer.web.views import sheet
    from tests.webhelpers import start_evening

    client = app.test_client()
    key = start_evening(client)
    for number, (declarer, contract, tricks) in enumerate((("1", "three", "3"), ("2", "four", "2")), 1):
        saved = client.post(f"/e/{key}/quick", data={"number": str(number), "declarer": declarer,
                                                     "contract": contract, "tricks": tricks})
        assert saved.status_code == 302
        if number == 1:
            client.get(f"/e/{key}")  # the first redirect (message shown and gone) and the plain page
            client.get(f"/e/{key}")
    with app.app_context():
        hand_id = units.get_evening(key).hands[-1].id
    rendered: list[str] = []
    real = sheet.render_template

    def spy(name: str, **context: Any) -> str:
        rendered.append(name)
        return real(name, **context)

    monkeypatch.setattr(sheet, "render_template", spy)
    with_message = client.get(f"/e/{key}").get_data(as_text=True)
    assert "scoresheet.html" not in rendered and "_flashes.html" in rendered  # the frame kept since hand 1
    banner = re.search(r'<div class="flash saved" role="status">.*?</div>', with_message, re.S)
    assert banner is not None and "Hand 2 saved." in banner.group(0)
    fields = dict(re.findall(r'name="(number|version|hand_id)" value="([^"]*)"', banner.group(0)))
    assert fields == {"number": "2", "version": "1", "hand_id": str(hand_id)}
    assert f'action="/e/{key}/undo"' in banner.group(0)
    plain = client.get(f"/e/{key}").get_data(as_text=True)
    assert 'class="flash' not in plain and 'data-revision="2"' in plain

    def squeezed(html: str) -> str:
        return re.sub(r"\s+", " ", html)

    assert squeezed(with_message.replace(banner.group(0), "")) == squeezed(plain)
    undone = client.post(f"/e/{key}/undo", data=fields)  # the offer undoes hand 2
    assert undone.status_code == 302
    after = client.get(f"/e/{key}").get_data(as_text=True)
    assert re.search(r'<p class="flash" role="status">Hand 2 is undone', after) is not None
    with app.app_context():
        assert [h.number for h in units.get_evening(key).hands] == [1]


def test_the_season_rows_read_as_one_document_equal_those_read_row_by_row(postgres_url: str) -> None:
    """On PostgreSQL the season's rows come in one JSON document the database builds
    (psycopg's pure-Python implementation cost ~4 µs a value): the same values in the same
    order as the rows read one by one — names of every kind, stakes, an
    evening whose kept result is stale or missing."""
    app = make_app(postgres_url)
    try:
        with app.app_context():
            group_id = create_group("Club").id
            names = ['Night "1" \\ <b>&amp;', "Ночь ⁨2⁩ 🂡\t", "Night 3", "Night 4"]
            ids = []
            for i, name in enumerate(names):
                evening = evening_writes.import_evening(EveningFile(setup=_setup(), hands=list(HANDS[:i + 1]),
                                                                    name=name))
                evening.group_id, evening.played_on = group_id, date(2026, 1, 9 - i if i < 3 else 9)
                db.session.commit()
                ids.append(evening.id)
            kept_results.season_rows(group_id)  # each one's result kept
            db.session.execute(sa.update(Evening).where(Evening.id == ids[1]).values(stake_minor=5, currency="GBP"))
            db.session.execute(sa.update(Evening).where(Evening.id == ids[2])
                               .values(stake_minor=2**31 - 1, currency="JPY", options={"é": [1, None]}))
            db.session.execute(sa.delete(SettledResult).where(SettledResult.evening_id == ids[0]))
            db.session.commit()
            bumped = sa.update(Evening).where(Evening.id == ids[3]).values(revision=Evening.revision + 1)
            db.session.execute(bumped)  # its kept result: an older revision's
            db.session.commit()
            rows = kept_results._read_document(group_id)
            assert rows == kept_results._read_rows(group_id)
            assert [r.name for r in rows] == [names[2], names[1], names[0], names[3]]  # by date, then by id
            assert [r.hands for r in rows] == [3, 2, None, None]
            assert rows[0].stake_minor == 2**31 - 1 and rows[0].played_on == date(2026, 1, 7)
            assert kept_results._read_document(-1) == []
    finally:
        _dispose(app)
