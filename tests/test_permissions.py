"""Every route declares what it lets a phone do (scorer.web.permissions.permission), and one
check before the view enforces it: a test fails on any route without a declaration."""

from __future__ import annotations

from typing import Any

import pytest

from scorer.web.permissions import LEVELS, permission_of
from webhelpers import counts, post_hand, start_evening


def _rules(app: Any) -> list[Any]:
    return [r for r in app.url_map.iter_rules() if r.endpoint != "static"]


def test_every_route_declares_a_permission(app: Any) -> None:
    undeclared = [r.rule for r in _rules(app) if permission_of(app.view_functions[r.endpoint]) is None]
    assert undeclared == []
    assert {permission_of(app.view_functions[r.endpoint])[0] for r in _rules(app)} <= set(LEVELS)  # type: ignore[index]


def test_the_declared_levels_are_the_ones_agreed(app: Any) -> None:
    """Writes to a table are for its scorers; table-wide changes are 'manage'; reading is 'view'.
    What only the table's owner may do (renew, hand over) is 'manage' at the door and checked
    by its command under the table's lock (tests/test_owner.py)."""
    level = {r.endpoint: permission_of(app.view_functions[r.endpoint])[0] for r in _rules(app)}  # type: ignore[index]
    assert {e for e, lv in level.items() if lv == "score"} == {
        "hands.new_hand", "hands.edit_hand", "hands.override_hand", "hands.restore_version", "play.record_play",
        "table.undo", "table.confirm_undo", "table.quick", "table.seats", "disputes.dismiss",
        "api.new_hand", "api.correct", "api.restore", "api.override", "api.claims", "api.play", "api.undo",
        "api.seats", "api.undo_seats", "api_disputes.dismiss", "api_disputes.rule",
        # issue 25 items 7 and 8: the table's notes and the rematch are a scorer's
        "hands.hand_note", "sheet.evening_note", "sheet.rematch", "api.hand_note", "api.evening_note", "api.rematch",
        # issue 24: a scorer's phone tells the server when its provisional ruling was not the server's
        "api.differs",
        # issue 22: a scorer of a table of a club night takes this phone to its next table
        "events.next_table"}
    # a club night's manage routes are its organisers' (tests/test_events_web.py); a new one is the group's
    assert {e for e, lv in level.items() if lv == "manage" and e.startswith(("events.", "api_events."))} == {
        "events.new_event", "events.add_players", "events.seat", "events.start", "events.arrive", "events.leave",
        "events.finish", "events.renew", "api_events.new_event", "api_events.add_players", "api_events.seat",
        "api_events.start", "api_events.arrive", "api_events.leave", "api_events.finish"}
    # issue 22 item 5: the event's owner names and revokes referees ('manage' of the event at the door, the owner
    # checked by the command); a referee's desk and commands are 'referee'; calling one is any phone's ('view')
    assert {e for e, lv in level.items() if lv == "manage" and e.startswith(("referee.", "api_referee."))} == {
        "referee.manage", "referee.revoke", "api_referee.name_referee", "api_referee.list_referees",
        "api_referee.revoke"}
    assert all(permission_of(app.view_functions[e])[1] == "event"  # type: ignore[index]
               for e, lv in level.items() if e.startswith(("referee.", "api_referee.")) and lv != "view")
    assert {e for e, lv in level.items() if lv == "referee"} == {
        "referee.desk", "referee.take", "referee.close", "referee.rule", "referee.dismiss", "api_referee.calls",
        "api_referee.take", "api_referee.close", "api_referee.rule", "api_referee.dismiss"}
    assert level["referee.call"] == level["api_referee.call"] == level["referee.join_pin"] == "view"
    assert {e for e, lv in level.items() if lv == "manage"
            and not e.startswith(("groups.", "api_groups.", "events.", "api_events.", "referee.", "api_referee."))
            } == {
        "sheet.finish", "sheet.reopen", "sheet.confirm_finish", "table.settings", "table.revoke", "table.renew",
        "disputes.confirmation", "api.settings", "api.finish", "api.reopen", "api_disputes.confirmation",
        "api_table.revoke", "api_table.renew", "owner.confirm_hand_over", "owner.hand_over", "api_table.hand_over"}
    assert level["sheet.scoresheet"] == level["table.revision"] == level["sheet.export_pdf"] == "view"
    assert level["api.state"] == "view"
    # any phone, a viewer's included, may dispute a hand or accept one another phone entered (issue 12)
    assert level["disputes.dispute"] == level["disputes.confirm"] == "view"
    assert level["api_disputes.raise_dispute"] == level["api_disputes.confirm"] == level["api_table.join"] == "view"
    # the JSON commands ask exactly what their forms ask
    same = {"api_disputes.raise_dispute": "disputes.dispute", "api_disputes.dismiss": "disputes.dismiss",
            "api_disputes.rule": "hands.edit_hand", "api_disputes.confirm": "disputes.confirm",
            "api_disputes.confirmation": "disputes.confirmation", "api_table.revoke": "table.revoke",
            "api_table.renew": "table.renew", "api_table.hand_over": "owner.hand_over",
            "api_table.join": "table.join", "api_table.device": "table.device",
            "api_evenings.new_evening": "start.new_evening", "api_evenings.import_evening": "start.import_evening",
            "api_groups.new_group": "groups.new_group", "api_groups.add_evening": "groups.add_evening",
            "api_groups.remove_evening": "groups.remove_evening", "api_groups.merge": "groups.merge",
            "api_groups.unmerge": "groups.unmerge", "api.hand_note": "hands.hand_note",
            "api.evening_note": "sheet.evening_note", "api.rematch": "sheet.rematch",
            "api_referee.call": "referee.call", "api_referee.name_referee": "referee.manage",
            "api_referee.revoke": "referee.revoke", "api_referee.calls": "referee.desk",
            "api_referee.take": "referee.take", "api_referee.close": "referee.close",
            "api_referee.rule": "referee.rule", "api_referee.dismiss": "referee.dismiss",
            "api_referee.join": "referee.join_pin",
            **{f"api_events.{name}": f"events.{name}" for name in ("new_event", "add_players", "seat", "start",
                                                                    "arrive", "leave", "finish")}}
    declared = {e: permission_of(app.view_functions[e]) for e in {*same, *same.values()}}
    assert {api: declared[api] for api in same} == {api: declared[form] for api, form in same.items()}


def test_a_route_without_a_declaration_is_refused(app: Any) -> None:
    app.add_url_rule("/e/<key>/undeclared", "undeclared", lambda key: "ran", methods=["GET", "POST"])
    client = app.test_client()
    assert client.get("/e/abc/undeclared").status_code == 403
    assert client.post("/e/abc/undeclared").status_code == 403


@pytest.mark.parametrize("method", ["GET", "POST"])
def test_a_viewer_is_refused_every_scorer_route_and_nothing_changes(app: Any, client: Any, method: str) -> None:
    key = start_evening(client)
    post_hand(client, key, 1, 0, {1: "three"}, 3)
    before = counts(app), _revision(app, key)
    viewer = app.test_client()
    tried = 0
    for rule in _rules(app):
        declared = permission_of(app.view_functions[rule.endpoint])
        if declared is None or declared[0] not in ("score", "manage") or declared[1] != "evening":
            continue
        if method not in rule.methods:
            continue
        url = rule.build({"key": key, "number": 1, "version": 1, "hand_id": 1, "access_id": 1, "dispute_id": 1,
                          "merge_id": 1},
                         append_unknown=False)[1]
        answer = viewer.open(url, method=method, data={"number": "1", "version": "1", "dealer": "0",
                                                        "call_1": "four", "tricks": "4", "save": "1"})
        if rule.rule.startswith("/api/"):  # a script has no PIN page: a JSON refusal
            assert answer.status_code == 403 and answer.json["error"]["code"] == "forbidden", url
        else:
            assert answer.status_code == 302 and answer.headers["Location"].endswith(f"/e/{key}/join"), url
        tried += 1
    assert tried >= (5 if method == "GET" else 9)
    assert (counts(app), _revision(app, key)) == before  # no hand, version, setting or finish changed


def _revision(app: Any, key: str) -> int | None:
    from scorer.storage import units

    with app.app_context():
        return units.evening_revision(key)


def test_an_unknown_table_is_a_404_for_a_scorer_route(client: Any) -> None:
    assert client.post("/e/nosuchtable/undo").status_code == 404
    assert client.get("/e/nosuchtable/quick").status_code == 404
