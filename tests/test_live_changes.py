"""Live updates that send what changed (issue 23, item 1): ``GET /e/<key>/changes?since=N``
answers the parts and rows that differ from revision N. Each kind of change is checked
the way a phone sees it: its page at revision N, with the answer placed as live.js
places it, is the page a fresh load shows at the new revision (every part and every row,
byte for byte); and what cannot be said that way is answered ``reload``."""

from __future__ import annotations

import re
from typing import Any

import sqlalchemy as sa
from conftest import _dispose, make_app

from scorer.storage import sheet_digests
from scorer.storage.models import SheetDigest, db
from scorer.web import caches
from webhelpers import hand_id, post_hand, start_evening, statements

PART = re.compile(r'<div data-live-part="([a-z]+)">(.*?)</div><!--/part-->', re.S)
ROW = re.compile(r'(?:<tbody class="seats">(?:(?!</tbody>).)*</tbody>\s*)*<tbody id="hand-(\d+)".*?</tbody>\n', re.S)


class Phone:
    """A phone's scoresheet as live.js keeps it: its parts, its rows by hand, its revision
    and the ``data-changes`` URL it asks with."""

    def __init__(self, client: Any, key: str) -> None:
        self.client, self.key = client, key
        self.load()

    @staticmethod
    def read(html: str) -> tuple[int, str, dict[str, str], dict[int, str]]:
        live = re.search(r'<div data-live="[^"]*" data-changes="([^"]*)" data-revision="(\d+)">', html)
        assert live, "no live part"
        parts = dict(PART.findall(html))
        rows = {int(m.group(1)): m.group(0) for m in ROW.finditer(parts["hands"])}
        parts["hands"] = ROW.sub("", parts["hands"])  # the frame of the rows
        return int(live.group(2)), live.group(1).replace("&amp;", "&"), parts, rows

    def load(self) -> None:
        self.revision, self.changes, self.parts, self.rows = self.read(self.page())

    def page(self) -> str:
        response = self.client.get(f"/e/{self.key}")
        assert response.status_code == 200
        return response.get_data(as_text=True)

    def ask(self) -> dict[str, Any]:
        response = self.client.get(f"{self.changes}&since={self.revision}")
        assert response.status_code == 200
        assert response.headers["Cache-Control"] == "no-store"
        assert {"Cookie", "Accept-Language"} <= set(response.vary)
        return response.get_json()

    def follow(self) -> dict[str, Any]:
        """Ask what changed and place it as live.js does; then check the result is the
        fresh page, part by part and row by row. The answer."""
        answer = self.ask()
        assert not answer.get("reload"), answer
        self.parts.update(answer["parts"])
        for number in answer["removed"]:
            del self.rows[number]
        self.rows.update({int(n): html for n, html in answer["rows"].items()})
        self.revision = answer["revision"]
        revision, _, parts, rows = self.read(self.page())
        assert revision == self.revision
        assert self.parts == parts
        assert self.rows == rows
        return answer


def _correct_hand_one(client: Any, app: Any, key: str, version: int, tricks: int) -> None:
    response = client.post(f"/e/{key}/hand/1/edit", data={
        "number": "1", "version": str(version), "hand_id": hand_id(app, key, 1), "dealer": "0", "call_2": "four",
        "tricks": str(tricks), "save": "1"})
    assert response.status_code == 302


def test_each_kind_of_change_places_the_parts_and_rows_of_a_fresh_page(app: Any) -> None:
    scorer = app.test_client()
    key = start_evening(scorer)  # pagat: Ann, Bob, Cat, Dan; Ann deals; two hands each
    viewer = Phone(app.test_client(), key)
    assert viewer.revision == 0 and viewer.changes.endswith("shown=en/viewer")

    # the first hand makes the table of hands: not a change of parts, the page is fetched
    assert post_hand(scorer, key, 1, 0, {2: "four"}, 4).status_code == 302  # Cat Four made: +12
    assert viewer.ask() == {"revision": 1, "reload": True}
    viewer.load()

    # nothing new: an empty answer
    assert viewer.ask() == {"revision": 1, "parts": {}, "rows": {}, "removed": []}

    # a new hand: its row, and the parts it moves; not the rows before it, nor the options
    assert post_hand(scorer, key, 2, 1, {3: "nap"}, 5).status_code == 302  # Dan Nap: +15
    answer = viewer.follow()
    assert answer["revision"] == 2 and list(answer["rows"]) == ["2"] and answer["removed"] == []
    assert {"totals", "status", "stats", "chart"} <= set(answer["parts"]) and "options" not in answer["parts"]
    assert '<span class="chg">+15</span><span class="run">+11</span>' in answer["rows"]["2"]  # Dan: −4 + 15
    assert 'id="record-hand"' not in "".join(answer["parts"].values())  # a viewer's parts: no scorer's button
    assert "r=2" in answer["parts"]["chart"]  # the chart of revision 2

    # a third hand, then a correction of hand 1: every later running total moves
    assert post_hand(scorer, key, 3, 2, {0: "three"}, 3).status_code == 302
    viewer.follow()
    _correct_hand_one(scorer, app, key, 1, 3)  # Cat's Four now defeated: −12
    answer = viewer.follow()
    assert sorted(answer["rows"]) == ["1", "2", "3"] and "totals" in answer["parts"]

    # undo: the last row goes
    undone = scorer.post(f"/e/{key}/undo", data={"number": "3", "version": "1", "hand_id": hand_id(app, key, 3)})
    assert undone.status_code == 302
    answer = viewer.follow()
    assert answer["removed"] == [3] and answer["rows"] == {}

    # a dispute: the banner at the top and the row's badge
    raised = viewer.client.post(f"/e/{key}/hand/1/dispute", data={
        "hand_id": hand_id(app, key, 1), "kind": "score", "note": "Cat took four"})
    assert raised.status_code == 302
    answer = viewer.follow()
    assert "top" in answer["parts"] and "disputed" in answer["parts"]["top"]
    assert list(answer["rows"]) == ["1"] and "badge disputed" in answer["rows"]["1"]

    # finished and opened again: the status part says so
    assert scorer.post(f"/e/{key}/finish").status_code == 302
    answer = viewer.follow()
    assert "The evening is finished." in answer["parts"]["status"]
    assert scorer.post(f"/e/{key}/reopen").status_code == 302
    assert "The evening is finished." not in viewer.follow()["parts"]["status"]

    # a player joins: the table's columns change, the page is fetched
    assert scorer.post(f"/e/{key}/seats", data={"action": "join", "name": "Eve", "left_of": "1"}).status_code == 302
    assert viewer.ask()["reload"] is True
    viewer.load()
    assert "Eve joined before hand 3" in viewer.rows[2]  # the line of the change, above hand 2's row
    # the next hand on an evening with changes of seats: its row, the others unchanged
    dealer = int(re.search(r'data-dealer="(\d+)"', viewer.parts["status"]).group(1))  # type: ignore[union-attr]
    assert post_hand(scorer, key, 3, dealer, {0: "three"}, 3).status_code == 302
    answer = viewer.follow()
    assert list(answer["rows"]) == ["3"] and answer["removed"] == []
    # a player leaves: the same columns; the line of the change comes with the row above it
    assert scorer.post(f"/e/{key}/seats", data={"action": "leave", "seat": "4", "confirm": "1"}).status_code == 302
    answer = viewer.follow()
    assert list(answer["rows"]) == ["3"] and "Eve left before hand 4" in answer["rows"]["3"]


def test_a_scorer_gets_a_scorers_parts_and_a_russian_phone_russian_ones(app: Any) -> None:
    scorer_client = app.test_client()
    key = start_evening(scorer_client)
    assert post_hand(scorer_client, key, 1, 0, {2: "four"}, 4).status_code == 302
    russian_client = app.test_client()
    russian_client.set_cookie("lang", "ru")
    scorer, russian = Phone(scorer_client, key), Phone(russian_client, key)
    assert scorer.changes.endswith("shown=en/scorer") and russian.changes.endswith("shown=ru/viewer")
    assert post_hand(scorer_client, key, 2, 1, {3: "nap"}, 5).status_code == 302
    mine, theirs = scorer.follow(), russian.follow()
    assert 'id="record-hand"' in mine["parts"]["status"] and 'id="record-hand"' not in theirs["parts"]["status"]
    assert "Сдача 3" in theirs["parts"]["status"] and "Hand 3" in mine["parts"]["status"]

    # the same URL from a phone whose language or role is not the page's: fetch the page
    english = app.test_client()
    answer = english.get(f"{russian.changes}&since={russian.revision}").get_json()
    assert answer == {"revision": 2, "reload": True}
    assert english.get(f"{scorer.changes}&since={scorer.revision}").get_json()["reload"] is True


def test_a_revision_no_longer_held_or_unknown_is_answered_reload(app: Any) -> None:
    client = app.test_client()
    key = start_evening(client)
    assert post_hand(client, key, 1, 0, {2: "four"}, 4).status_code == 302
    phone = Phone(client, key)
    assert post_hand(client, key, 2, 1, {3: "nap"}, 5).status_code == 302
    # a club night's other tables churn the cache of renders: this table's last ones are kept
    caches.sheet_cache.clear()
    assert phone.ask()["rows"].keys() == {"2"}
    assert post_hand(client, key, 3, 2, {0: "three"}, 3).status_code == 302
    _other_process()
    _forget_kept(app)  # and the database no longer holds it (older than the last few)
    assert phone.ask() == {"revision": 3, "reload": True}
    for since in ("9", "x", ""):
        assert client.get(f"{phone.changes}&since={since}").get_json() == {"revision": 3, "reload": True}
    assert client.get("/e/nosuchtable/changes?since=0").status_code == 404


def _other_process() -> None:
    """What another app process holds in memory of this table: nothing (it rendered none
    of its pages)."""
    caches.sheet_cache.clear()
    caches.sheet_history.clear()
    caches.page_cache.clear()
    caches.frame_cache.clear()
    caches.changes_cache.clear()


def _forget_kept(app: Any) -> None:
    with app.app_context():
        db.session.execute(sa.delete(SheetDigest))
        db.session.commit()


def _kept(app: Any, key: str) -> list[tuple[str, int]]:
    with app.app_context():
        return [tuple(r) for r in db.session.execute(  # type: ignore[misc]
            sa.select(SheetDigest.variant, SheetDigest.revision).where(SheetDigest.evening_key == key)
            .order_by(SheetDigest.variant, SheetDigest.revision)).all()]


def test_a_phone_whose_page_another_process_rendered_gets_the_change_not_the_page(any_app: Any) -> None:
    """Two app processes behind the proxy: the page was rendered by one, the phone's next
    question goes to the other, which never rendered that revision. It reads what the page
    showed (the digests of its parts and rows) from the database and answers the change."""
    app = any_app
    scorer, viewer_client = app.test_client(), app.test_client()
    key = start_evening(scorer)
    assert post_hand(scorer, key, 1, 0, {2: "four"}, 4).status_code == 302
    phone = Phone(viewer_client, key)  # revision 1, rendered "in process A"
    assert _kept(app, key) == [("en/viewer/", 1)]
    assert post_hand(scorer, key, 2, 1, {3: "nap"}, 5).status_code == 302
    _other_process()  # "process B": nothing of this table in memory
    answer = phone.follow()  # the parts and rows placed give the fresh page, byte for byte
    assert sorted(answer["rows"]) == ["2"] and answer["removed"] == [] and "totals" in answer["parts"]
    assert "hands" not in answer["parts"]  # the frame of the rows is the same
    # the scorer's pages are kept apart from the viewers' (they differ: Record hand)
    scorer.get(f"/e/{key}")
    assert ("en/scorer/", 2) in _kept(app, key) and ("en/viewer/", 2) in _kept(app, key)
    # a corrected hand from yet another process: every later row moves, and comes
    _other_process()
    _correct_hand_one(scorer, app, key, 1, 3)
    _other_process()
    assert sorted(phone.follow()["rows"]) == ["1", "2"]


def test_only_the_last_revisions_are_kept_and_an_older_one_is_answered_reload(any_app: Any) -> None:
    """On PostgreSQL the keeping and the forgetting are one statement (scorer.storage.sheet_digests.keep)."""
    app = any_app
    client = app.test_client()
    key = start_evening(client, opt_hands_per_dealer="5")
    assert post_hand(client, key, 1, 0, {2: "four"}, 4).status_code == 302
    phone = Phone(client, key)  # revision 1
    for number in range(2, sheet_digests.DEPTH + 3):  # hands 2 … DEPTH + 2, each page loaded
        assert post_hand(client, key, number, (number - 1) % 4, {number % 4: "three"}, 3).status_code == 302
        assert Phone(client, key).revision == number
    latest = sheet_digests.DEPTH + 2  # 10: revisions 3 … 10 kept, 1 and 2 forgotten
    assert [r for _, r in _kept(app, key)] == list(range(latest - sheet_digests.DEPTH + 1, latest + 1))
    _other_process()
    assert phone.ask() == {"revision": latest, "reload": True}


def test_the_phones_of_a_table_share_one_answer_and_a_correction_is_never_answered_from_it(app: Any) -> None:
    """The phones watching a table ask the same question after each hand (issue 23 item 2):
    the answer is made once per process and the others get the same bytes (compressed once
    too); a hand corrected meanwhile is a new revision, so a phone still at the older one
    gets the corrected rows, never the answer kept for the revision before."""
    import brotli

    scorer = app.test_client()
    key = start_evening(scorer)
    assert post_hand(scorer, key, 1, 0, {2: "four"}, 4).status_code == 302  # Cat Four made: +12
    phones = [Phone(app.test_client(), key) for _ in range(3)]
    assert {p.revision for p in phones} == {1}
    assert post_hand(scorer, key, 2, 1, {3: "nap"}, 5).status_code == 302
    url = f"{phones[0].changes}&since=1"
    asked = [p.client.get(url, headers={"Accept-Encoding": "br"}) for p in phones[:2]]
    assert [a.headers["Content-Encoding"] for a in asked] == ["br", "br"]
    assert asked[0].data == asked[1].data  # the second phone got the kept answer
    kept = caches.changes_cache.get((key, 2, 1, "en", False, ""))
    assert kept is not None and brotli.decompress(asked[0].data) == kept.body
    first = phones[0].follow()  # placed as live.js places it: the fresh page
    assert first["revision"] == 2 and list(first["rows"]) == ["2"] and '<span class="chg">+12</span>' not in str(first)
    # hand 1 corrected before the third phone asks: it is still at revision 1
    _correct_hand_one(scorer, app, key, 1, 3)  # Cat's Four now defeated: −12
    late = phones[2].follow()
    assert late["revision"] == 3 and sorted(late["rows"]) == ["1", "2"]
    assert '<span class="chg">−12</span>' in late["rows"]["1"]
    assert late != first and caches.changes_cache.get((key, 3, 1, "en", False, "")) is not None
    # the first phone, at revision 2, gets the correction as well
    assert sorted(phones[0].follow()["rows"]) == ["1", "2"]
    # an unknown revision or another role's question is still answered reload, never from the memo
    assert phones[1].client.get(f"/e/{key}/changes?shown=en/scorer&since=1").get_json() == {"revision": 3,
                                                                                             "reload": True}


def test_a_change_through_another_process_is_answered_though_this_one_has_not_heard_of_it(
        app: Any, monkeypatch: Any) -> None:
    """Two app processes, no LISTEN (SQLite): this one's memory of the table's revision is
    older than a hand saved through the other. A phone that heard of the new hand asks this
    one what changed since the revision it shows: not "nothing" (the memory is not newer than
    the phone's, so the database is read), and its page's chart of the new revision is drawn
    at that revision."""

    from scorer.storage import live, units
    from webhelpers import second_scorer

    monkeypatch.setattr(live, "POLL_TTL", 60.0)  # this process goes on believing its memory
    scorer = app.test_client()
    key = start_evening(scorer)
    assert post_hand(scorer, key, 1, 0, {2: "four"}, 4).status_code == 302
    phone = Phone(app.test_client(), key)
    assert phone.client.get(f"/e/{key}/revision").get_json() == {"revision": 1}  # the poll fills the memory
    first_chart = phone.client.get(f"/e/{key}/chart.svg?r=1").data
    assert caches.chart_cache.get((key, 1)).body == first_chart  # type: ignore[union-attr]
    other = make_app(app.config["SQLALCHEMY_DATABASE_URI"])
    try:
        assert post_hand(second_scorer(other, key), key, 2, 1, {3: "nap"}, 5).status_code == 302
    finally:
        _dispose(other)
    with app.app_context():
        assert units.revisions().cached(key) == 1  # not heard of here
    answer = phone.follow()  # placed: the fresh page, byte for byte
    assert answer["revision"] == 2 and list(answer["rows"]) == ["2"]
    with app.app_context():
        units.revisions().forget(key)
        assert units.revisions().fill(key, lambda: 1) == 1  # not heard of here, still
    drawn = phone.client.get(f"/e/{key}/chart.svg?r=2")
    assert drawn.status_code == 200 and drawn.data != first_chart  # not the kept chart of revision 1
    assert drawn.data == caches.chart_cache.get((key, 2)).body  # type: ignore[union-attr]


def test_the_digests_a_render_carries_are_its_parts_and_rows_hashed_again(app: Any) -> None:
    """Each row's digest is made once, with the row, and kept with it (issue 23 item 4: a
    2,000-hand evening's rows were hashed again at every revision): what a render carries is
    what hashing its fragment and every row again gives (the way digests_of made them), in the
    same order, after new hands, a correction, a dispute (a row rendered again with its mark)
    and a change of seats (rows rendered whole, the line of the change among them)."""
    from scorer.web.sheet_changes import digest, parts_of, rows_by_hand

    scorer = app.test_client()
    key = start_evening(scorer)
    viewer = Phone(app.test_client(), key)

    def check() -> None:
        viewer.load()
        assert scorer.get(f"/e/{key}").status_code == 200
        renders = [value for (cached, *_), value in list(caches.sheet_cache._data.items()) if cached == key]
        assert len(renders) >= 2  # the viewer's and the scorer's
        for rendered in renders:
            rows, loose = rows_by_hand(rendered[3])
            again = {"parts": {name: digest(html) for name, html in parts_of(rendered[2]).items()},
                     "rows": {str(n): digest(html) for n, html in rows.items()}, "loose": digest("\0".join(loose))}
            assert rendered[4] == again and list(rendered[4]["rows"]) == list(again["rows"])

    for number, dealer, calls, tricks in ((1, 0, {2: "four"}, 4), (2, 1, {3: "nap"}, 5), (3, 2, {0: "three"}, 3)):
        assert post_hand(scorer, key, number, dealer, calls, tricks).status_code == 302
    check()
    _correct_hand_one(scorer, app, key, 1, 3)
    check()
    raised = viewer.client.post(f"/e/{key}/hand/2/dispute", data={
        "hand_id": hand_id(app, key, 2), "kind": "score", "note": "Dan took four"})
    assert raised.status_code == 302
    check()
    assert 'class="badge disputed"' in viewer.rows[2]
    assert scorer.post(f"/e/{key}/seats", data={"action": "join", "name": "Eve", "left_of": "1"}).status_code == 302
    check()
    assert "Eve joined before hand 4" in viewer.rows[3]


def test_a_viewers_page_is_answered_without_reading_the_phones_role(app: Any) -> None:
    """Issue 23 item 2: a viewer's page gets a viewer's changes, which any phone holding the
    link may see, so the phone's role is not read (most of what each watching phone's ask
    cost); a scorer's page still has its phone's role read, and a phone that is no scorer is
    told to reload."""
    scorer_client = app.test_client()
    key = start_evening(scorer_client)
    assert post_hand(scorer_client, key, 1, 0, {2: "four"}, 4).status_code == 302
    viewer, scorer = Phone(app.test_client(), key), Phone(scorer_client, key)
    assert viewer.changes.endswith("shown=en/viewer") and scorer.changes.endswith("shown=en/scorer")
    assert post_hand(scorer_client, key, 2, 1, {3: "nap"}, 5).status_code == 302
    with statements(app) as seen:
        # the scorer's phone asking with a viewer's page, first at this revision: a viewer's parts
        # (made for it, and kept for the viewers), no role read, no reload
        answer = scorer_client.get(f"{viewer.changes}&since={viewer.revision}").get_json()
        scorers_asking_as_viewer, seen[:] = list(seen), []
        assert not viewer.ask().get("reload")
        viewers_reads, seen[:] = list(seen), []
        mine = scorer.ask()
        scorers_reads = list(seen)
    role = re.compile(r"\b(table_access|device)\b")
    assert not [s for s in viewers_reads + scorers_asking_as_viewer if role.search(s)]
    assert any(role.search(s) for s in scorers_reads)
    assert not answer.get("reload") and answer == viewer.ask()
    assert 'id="record-hand"' not in answer["parts"]["status"] and 'id="record-hand"' in mine["parts"]["status"]
    viewer.follow()  # placed as live.js places it: the fresh viewer's page, part by part and row by row
    scorer.follow()
    # a phone that is no scorer, asking with a scorer's page: reload, as before
    assert viewer.client.get(f"{scorer.changes}&since={scorer.revision}").get_json()["reload"] is True
