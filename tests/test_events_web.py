"""A club night through its JSON commands and pages (issue 22 items 1–6): made in a group,
seated by a recorded draw or as typed, begun (each table an ordinary evening), a late
arrival, hands entered at two tables, the round finished table by table, the next round
seated from the standings worked out by hand, the room screen, and what a watcher of one
table is shown (nothing of another table)."""

from __future__ import annotations

import itertools
import json
import re
from typing import Any

from scorer.evening import seating

P14 = [f"P{i:02d}" for i in range(1, 15)]
TOKENS = itertools.count(1)  # a new one-time token for each club night made


def post(client: Any, url: str, body: Any) -> Any:
    return client.post(url, data=json.dumps(body), content_type="application/json")


def _group(client: Any) -> str:
    return post(client, "/api/groups", {"name": "Thursday club", "token": "g-1"}).get_json()["group"]["key"]


def _event(client: Any, **more: Any) -> dict[str, Any]:
    group = _group(client)
    answer = post(client, f"/api/g/{group}/events", {
        "name": "Club night", "variant": "pagat", "options": {"hands_per_dealer": 1}, "stake": None,
        "players": P14, "rounds": 2, "length": "hands", "amount": 5, "token": f"ev-{next(TOKENS)}", **more})
    assert answer.status_code == 201, answer.get_data(as_text=True)
    return answer.get_json()["event"]  # type: ignore[no-any-return]


def _hand(client: Any, key: str, number: int, facts: dict[str, Any]) -> None:
    answer = post(client, f"/api/e/{key}/hands", {"number": number, "token": f"{key}-{number}", "facts": facts})
    assert answer.status_code == 201, answer.get_data(as_text=True)


def _finish(client: Any, key: str) -> None:
    revision = client.get(f"/api/e/{key}").get_json()["revision"]
    answer = post(client, f"/api/e/{key}/finish", {"revision": revision})
    assert answer.status_code == 200, answer.get_data(as_text=True)


def test_a_draw_is_recorded_and_repeatable_and_a_bad_seating_changes_nothing(app: Any) -> None:
    owner = app.test_client()
    event = _event(owner)
    key = event["key"]
    drawn = post(owner, f"/api/ev/{key}/seat", {"how": "draw", "seed": "pub-7"}).get_json()["event"]["round"]
    assert drawn["seed"] == "pub-7" and [len(t) for t in drawn["seating"]] == [5, 5, 4]
    assert drawn["seating"] == [list(t) for t in seating.draw(P14, "pagat", "pub-7")]
    # a table of 7 breaks pagat's player count (P-1): refused, the draw stays
    bad = post(owner, f"/api/ev/{key}/seat", {"how": "typed", "tables": [P14[:7], P14[7:10], P14[10:]]})
    assert bad.status_code == 422 and bad.get_json()["error"]["rule"] == "P-1"
    assert "Table 1 has 7 players" in bad.get_json()["error"]["message"]
    assert owner.get(f"/api/ev/{key}").get_json()["event"]["round"]["seating"] == drawn["seating"]
    # another phone may read the event but not run it
    stranger = app.test_client()
    assert stranger.get(f"/api/ev/{key}").status_code == 200
    refused = post(stranger, f"/api/ev/{key}/start", {})
    assert refused.status_code == 403 and refused.get_json()["error"]["code"] == "forbidden"
    assert owner.get(f"/api/ev/{key}").get_json()["event"]["tables"] == []  # nothing began
    # an event whose tables cannot all be seated is refused when made
    group = _group(owner)
    made = post(owner, f"/api/g/{group}/events", {"variant": "pagat", "players": ["A", "B"], "rounds": 2,
                                                  "length": "hands", "amount": 5, "token": "ev-bad"})
    assert made.status_code == 422 and made.get_json()["error"]["rule"] == "P-1"


def test_a_whole_round_then_the_next_seated_from_the_standings(app: Any) -> None:
    owner = app.test_client()
    key = _event(owner)["key"]
    assert post(owner, f"/api/ev/{key}/seat", {"how": "typed", "tables": "P01, P02, P03, P04, P05\n"
                                               "P06, P07, P08, P09, P10\nP11, P12, P13, P14"}).status_code == 200
    begun = post(owner, f"/api/ev/{key}/start", {}).get_json()["event"]
    tables = begun["tables"]
    assert [t["players"] for t in tables] == [P14[:5], P14[5:10], P14[10:]]
    for table in tables:  # the organiser hands out each table's scorers' link; here it takes them all
        assert owner.get(table["scorers_link"].split("localhost", 1)[-1]).status_code == 302
    t1, t2, t3 = (t["evening"] for t in tables)
    state = owner.get(f"/api/e/{t1}").get_json()
    assert state["variant"] == "pagat" and state["options"]["hands_per_dealer"] == 1
    # a table may not change the event's options: refused, nothing changed
    refused = post(owner, f"/api/e/{t1}/settings", {"revision": state["revision"], "options": {"hands_per_dealer": 3}})
    assert refused.status_code == 422 and "event's options" in refused.get_json()["error"]["message"]
    assert owner.get(f"/api/e/{t1}").get_json()["options"]["hands_per_dealer"] == 1

    # a late arrival: table 3 has four, the smallest with room
    arrived = post(owner, f"/api/ev/{key}/arrive", {"name": "Zoe"}).get_json()["event"]
    assert arrived["round"]["seating"][2] == ["P11", "P12", "P13", "P14", "Zoe"]
    assert post(owner, f"/api/ev/{key}/arrive", {"name": "zoe"}).status_code == 422  # already playing

    # table 1: P02 (eldest) bids Four and makes it: +4 from each of four = +16, the others −4
    _hand(owner, t1, 1, {"dealer": "P01", "auction": ["four", "pass", "pass", "pass", "pass"], "tricks": 4})
    # table 3, Zoe seated: P13 bids Nap and makes it: +5 from each of four = +20, the others −5
    _hand(owner, t3, 1, {"dealer": "P11", "auction": ["pass", "nap", "pass", "pass", "pass"], "tricks": 5})
    ranked = owner.get(f"/api/ev/{key}").get_json()["event"]["standings"]
    assert ranked["money"] is False
    assert [(r["place"], r["name"], r["total"]) for r in ranked["rows"][:2]] == [(1, "P13", 20), (2, "P02", 16)]
    assert {r["name"]: r["total"] for r in ranked["rows"]}["Zoe"] == -5
    assert [r["place"] for r in ranked["rows"]] == [1, 2, 3, 3, 3, 3, 3, 8, 8, 8, 8, 12, 12, 12, 12]

    for evening in (t1, t2):
        _finish(owner, evening)
    assert owner.get(f"/api/ev/{key}").get_json()["event"]["round"]["number"] == 1  # table 3 still plays
    _finish(owner, t3)
    after = owner.get(f"/api/ev/{key}").get_json()["event"]
    # 15 players: 5, 5, 5; together by the standings: P13 +20, P02 +16, table 2's five at 0 (by name),
    # P01 P03 P04 P05 at −4, then P11 P12 P14 Zoe at −5
    assert after["round"]["number"] == 2 and after["round"]["how"] == "together" and after["round"]["begun"]
    assert after["round"]["seating"] == [["P13", "P02", "P06", "P07", "P08"], ["P09", "P10", "P01", "P03", "P04"],
                                         ["P05", "P11", "P12", "P14", "Zoe"]]

    # table 1's scoresheet now says where each of its players goes; one tap takes this phone there
    sheet = owner.get(f"/e/{t1}").get_data(as_text=True)
    assert "The next round is seated:" in sheet and "P02: go to table 1" in sheet and "P05: go to table 3" in sheet
    round2 = after["tables"][0]["evening"]
    phone = app.test_client()
    assert phone.get(tables[0]["scorers_link"].split("localhost", 1)[-1]).status_code == 302  # a scorer of table 1
    token = re.search(r'name="csrf_token" value="([^"]+)"', phone.get(f"/e/{t1}").get_data(as_text=True))
    moved = phone.post(f"/e/{t1}/next", data={"player": "P02", "csrf_token": token.group(1) if token else ""})
    assert moved.status_code == 302 and moved.headers["Location"].endswith(f"/e/{round2}")
    assert post(phone, f"/api/e/{round2}/hands", {"number": 1, "token": "r2-1", "facts": {
        "dealer": "P13", "auction": ["pass", "pass", "pass", "pass", "pass"]}}).status_code == 201  # it scores there


def test_the_room_screen_and_a_watcher_of_one_table(app: Any) -> None:
    owner = app.test_client()
    event = _event(owner)
    key = event["key"]
    post(owner, f"/api/ev/{key}/seat", {"how": "typed", "tables": [P14[:5], P14[5:10], P14[10:]]})
    tables = post(owner, f"/api/ev/{key}/start", {}).get_json()["event"]["tables"]
    secrets = [t["evening"] for t in tables] + [t["pin"] for t in tables] + \
        [t["scorers_link"].rsplit("/", 1)[-1] for t in tables]
    room = app.test_client().get(f"/ev/{key}/room")
    html = room.get_data(as_text=True)
    assert room.status_code == 200 and "P01" in html and "Round 1 of 2" in html
    assert owner.get(f"/api/ev/{key}").get_json()["event"]["fingerprint"] in html
    assert not [s for s in secrets if s in html]  # no table's key, PIN or scorers' link
    version = app.test_client().get(f"/api/ev/{key}/version").get_json()["version"]
    # the room screen's version moves when a table plays a hand
    owner.get(tables[0]["scorers_link"].split("localhost", 1)[-1])
    _hand(owner, tables[0]["evening"], 1, {"dealer": "P01", "auction": ["three", "pass", "pass", "pass", "pass"],
                                           "tricks": 3})
    assert app.test_client().get(f"/api/ev/{key}/version").get_json()["version"] != version
    assert "1 hand" in app.test_client().get(f"/ev/{key}/room").get_data(as_text=True)

    # a watcher given table 1 only sees its table and round, nothing of another table or of the event's key
    watcher = app.test_client()
    sheet = watcher.get(f"/e/{tables[0]['evening']}").get_data(as_text=True)
    assert "Table 1, round 1 of 2" in sheet
    assert not [s for s in secrets[1:3] + secrets[3:] if s in sheet] and key not in sheet
    state = watcher.get(f"/api/ev/{key}").get_json()["event"]  # with the event's own link: still no table key
    assert all(set(t) == {"number", "players", "hands", "finished"} for t in state["tables"])
    assert app.test_client().get("/ev/nosuchevent/room").status_code == 404


def _csrf(page: str) -> str:
    found = re.search(r'name="csrf_token"[^>]*value="([^"]+)"', page)
    return found.group(1) if found else ""


def test_the_pages_make_seat_and_begin_a_club_night(app: Any) -> None:
    owner = app.test_client()
    group = _group(owner)
    form = owner.get(f"/g/{group}/events/new").get_data(as_text=True)
    made = owner.post(f"/g/{group}/events/new", data={
        "csrf_token": _csrf(form), "name": "Friday", "variant": "pagat", "players": "\n".join(P14), "rounds": "3",
        "length": "hands", "amount": "8", "style": "spread", "stake_minor": "", "currency": "GBP"})
    assert made.status_code == 302, made.get_data(as_text=True)
    page_url = made.headers["Location"]
    key = page_url.rsplit("/", 1)[-1]
    page = owner.get(page_url).get_data(as_text=True)
    assert "Draw the first round" in page and "Fingerprint" in page
    before = re.search(r'id="event-fingerprint">([^<]+)<', page).group(1)  # type: ignore[union-attr]
    owner.post(f"/ev/{key}/seat", data={"csrf_token": _csrf(page), "how": "draw", "seed": "42"})
    page = owner.get(page_url).get_data(as_text=True)
    assert "Drawn with the seed 42" in page
    assert re.search(r'id="event-fingerprint">([^<]+)<', page).group(1) != before  # type: ignore[union-attr]
    # a typed seating that leaves a player out: said, nothing changed
    answer = owner.post(f"/ev/{key}/seat", data={"csrf_token": _csrf(page), "how": "typed",
                                                  "tables": "P01, P02, P03\nP04, P05, P06"}, follow_redirects=True)
    assert "Nothing was changed" in answer.get_data(as_text=True)
    assert "Drawn with the seed 42" in answer.get_data(as_text=True)
    owner.post(f"/ev/{key}/start", data={"csrf_token": _csrf(page)})
    page = owner.get(page_url).get_data(as_text=True)
    assert page.count("Scorers’ link") == 3  # the organiser hands them out
    viewer = app.test_client().get(page_url).get_data(as_text=True)
    assert "Scorers’ link" not in viewer and "Run the club night from this phone" in viewer
    # the group page lists it
    assert "Friday" in owner.get(f"/g/{group}").get_data(as_text=True)
    # a stranger's post to a manage route is sent to the PIN page, and the PIN makes it an organiser
    stranger = app.test_client()
    sent = stranger.post(f"/ev/{key}/finish", data={})
    assert sent.status_code == 302 and sent.headers["Location"].endswith(f"/ev/{key}/join")
    with app.app_context():
        from scorer.storage import events

        pin = events.get_event(key).pin  # type: ignore[union-attr]
    join = stranger.get(f"/ev/{key}/join").get_data(as_text=True)
    assert stranger.post(f"/ev/{key}/join", data={"csrf_token": _csrf(join), "pin": "000000" if pin != "000000"
                                                  else "111111"}).status_code == 422
    assert stranger.post(f"/ev/{key}/join", data={"csrf_token": _csrf(join), "pin": pin}).status_code == 302
    assert "Draw the first round" not in stranger.get(page_url).get_data(as_text=True)  # begun: no seating forms
    assert "A late arrival" in stranger.get(page_url).get_data(as_text=True)


def test_a_table_of_a_club_night_stays_in_its_group(app: Any) -> None:
    owner = app.test_client()
    group = _group(owner)
    answer = post(owner, f"/api/g/{group}/events", {"name": "Club night", "variant": "pagat", "players": P14,
                                                    "rounds": 2, "length": "hands", "amount": 5, "token": "ev-1"})
    key = answer.get_json()["event"]["key"]
    assert post(owner, f"/api/ev/{key}/seat", {"how": "draw", "seed": 1}).status_code == 422  # a seed is a text
    post(owner, f"/api/ev/{key}/seat", {"how": "draw", "seed": "1"})
    tables = post(owner, f"/api/ev/{key}/start", {}).get_json()["event"]["tables"]
    evening = tables[1]["evening"]
    refused = post(owner, f"/api/g/{group}/evenings/remove", {"evening": evening, "token": "rm-1"})
    assert refused.status_code == 422
    assert "table 2 of round 1 of the club night Club night" in refused.get_json()["error"]["message"]
    with app.app_context():
        from scorer.storage import groups, units

        assert units.get_evening(evening).group_id == groups.get_group(group).id  # type: ignore[union-attr]


def test_the_room_screen_speaks_the_phones_language(app: Any) -> None:
    owner = app.test_client()
    key = _event(owner)["key"]
    post(owner, f"/api/ev/{key}/seat", {"how": "typed", "tables": [P14[:5], P14[5:10], P14[10:]]})
    expected = {"ru": ("Таблица", "Следующая рассадка"), "nb": ("Stilling", "Neste plassering"),
                "pt-BR": ("Classificação", "Próxima distribuição"), "en": ("Standings", "Next seating")}
    for language, words in expected.items():
        page = app.test_client().get(f"/ev/{key}/room", headers={"Accept-Language": language}).get_data(as_text=True)
        assert all(w in page for w in words), language


def test_a_round_of_minutes_says_when_it_ends(app: Any) -> None:
    owner = app.test_client()
    key = _event(owner, length="minutes", amount=45, time_zone="Europe/London")["key"]
    post(owner, f"/api/ev/{key}/seat", {"how": "typed", "tables": [P14[:5], P14[5:10], P14[10:]]})
    post(owner, f"/api/ev/{key}/start", {})
    with app.app_context():
        from scorer.storage import events
        from scorer.storage.evenings import as_utc

        started = as_utc(events.get_event(key).round_rows[0].started_at)  # type: ignore[union-attr]
    from datetime import timedelta
    from zoneinfo import ZoneInfo

    ends = (started + timedelta(minutes=45)).astimezone(ZoneInfo("Europe/London")).strftime("%Y-%m-%d %H:%M")
    assert f"ends {ends}" in app.test_client().get(f"/ev/{key}/room").get_data(as_text=True)


def test_the_owner_renews_the_organisers_link_and_pin(app: Any) -> None:
    owner = app.test_client()
    key = _event(owner)["key"]
    with app.app_context():
        from scorer.storage import events

        event = events.get_event(key)
        old_pin, old_link = event.pin, event.edit_key  # type: ignore[union-attr]
    helper = app.test_client()
    assert helper.get(f"/ev/{key}/organise/{old_link}").status_code == 302
    page = helper.get(f"/ev/{key}").get_data(as_text=True)
    assert "Seat as typed" in page  # an organiser now
    refused = helper.post(f"/ev/{key}/renew", data={"csrf_token": _csrf(page)}, follow_redirects=True)
    assert "owner can change its organisers" in refused.get_data(as_text=True)  # an organiser is not the owner
    page = owner.get(f"/ev/{key}").get_data(as_text=True)
    owner.post(f"/ev/{key}/renew", data={"csrf_token": _csrf(page)})
    with app.app_context():
        event = events.get_event(key)
        assert (event.pin, event.edit_key) != (old_pin, old_link)  # type: ignore[union-attr]
    assert "Seat as typed" not in helper.get(f"/ev/{key}").get_data(as_text=True)  # a viewer again
    assert post(helper, f"/api/ev/{key}/start", {}).status_code == 403
    assert "Seat as typed" in owner.get(f"/ev/{key}").get_data(as_text=True)  # the owner stays


def test_the_room_screen_shows_an_open_call_from_the_hook(app: Any) -> None:
    """The slot the referee's calls fill: a function in events.ROOM_CALLS gives the texts; a
    change it makes moves the event's revision (events.touch), so the room screen shows it."""
    from scorer.storage import events

    owner = app.test_client()
    key = _event(owner)["key"]
    calls: list[str] = []
    events.ROOM_CALLS.append(lambda event: list(calls) if event.key == key else [])
    try:
        assert "class=\"room-call\"" not in app.test_client().get(f"/ev/{key}/room").get_data(as_text=True)
        calls.append("Table 3: dispute on hand 7")
        with app.app_context():
            from scorer.storage.units import writing

            with writing():
                events.touch(events.get_event(key))  # type: ignore[arg-type]
        page = app.test_client().get(f"/ev/{key}/room").get_data(as_text=True)
        assert '<p class="room-call">Table 3: dispute on hand 7</p>' in page
    finally:
        events.ROOM_CALLS.pop()
