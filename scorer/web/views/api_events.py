"""JSON commands of club nights (``docs/api.md``, issue 22): make an event in a group,
add players, seat the first round, begin a round, place a late arrival or an early leaver,
end it, and read its state. Each asks what its form asks (:mod:`scorer.web.views.events`);
a refusal is a 422 with the engine's words, and nothing is changed.

The state read by anyone with the event's link names no table's key, link or PIN; the
event's organisers are also given each table's scoresheet and scorers' link, to hand out."""

from __future__ import annotations

from typing import Any

from flask import abort, jsonify
from flask_babel import gettext

from ...reports.words import error_text, tr
from ...rules import RulesError, Stake
from ...storage import event_moves, events, groups
from ...storage.errors import ScorerError
from ...storage.tokens import digest
from .. import access
from ..answers import refused_json
from ..event_pages import event_state, typed_tables
from ..json_body import BadBody, body, integer, json_blueprint, text, token
from ..lan import external_url
from ..permissions import permission

bp = json_blueprint("api_events", __name__)


def state_json(key: str) -> dict[str, Any]:
    """The event now, as JSON (see the module's text for what an organiser sees more)."""
    event = events.get_event(key)
    if event is None:
        abort(404)
    state = event_state(event)
    organiser = events.is_organiser(event, access.current_device())
    ranked, round_ = state["standings"], state["round"]
    tables = []
    for line in state["tables"]:
        row: dict[str, Any] = {"number": line.number, "players": list(line.players), "hands": line.hands,
                               "finished": line.finished}
        if organiser:
            row.update(evening=line.key, page=external_url("sheet.scoresheet", key=line.key),
                       scorers_link=external_url("table.scorer_link", key=line.key, edit_key=line.edit_key),
                       pin=line.pin)
        tables.append(row)
    return {
        "key": event.key, "name": event.name, "variant": event.variant, "options": dict(event.options or {}),
        "stake": None if event.stake_minor is None else {"minor": event.stake_minor, "currency": event.currency},
        "rounds": event.rounds, "length": event.length, "amount": event.amount, "style": event.style,
        "players": state["playing"], "finished": event.finished_at is not None,
        "round": None if round_ is None else {"number": round_.number, "how": round_.how, "seed": round_.seed,
                                              "begun": round_.started_at is not None,
                                              "seating": [list(t) for t in round_.seating]},
        "tables": tables,
        "standings": None if ranked is None else {
            "money": ranked.money, "currency": ranked.currency, "tie_break": str(tr(state["tie_break"])),
            "rows": [{"place": r.place, "name": r.name, "total": r.total, "made": r.made, "won": r.won,
                      "tables": r.tables, "hands": r.hands} for r in ranked.rows]},
        "problem": state["problem"], "fingerprint": state["fingerprint"], "changes": state["changes"],
        "page": external_url("events.event_page", key=event.key), "room": external_url("events.room", key=event.key),
        "pdf": external_url("events.event_pdf", key=event.key),
        "organiser": organiser,
    }


def _do(key: str, action: Any, status: int = 200) -> Any:
    event = events.get_event(key)
    if event is None:
        abort(404)
    try:
        action(event)
    except (RulesError, ScorerError) as error:
        return refused_json(error_text(error), getattr(error, "rule", None))
    return jsonify(event=state_json(key)), status


def _names(data: dict[str, Any], field: str) -> list[str]:
    value = data.get(field)
    if not isinstance(value, list) or not all(isinstance(v, str) and len(v) <= 40 for v in value) or len(value) > 400:
        raise BadBody(gettext("%(field)s must be a list of at most 400 names of at most 40 characters.", field=field))
    return value


@bp.post("/g/<key>/events")
@permission("manage", of="group")
def new_event(key: str) -> Any:
    """Make a club night in the group; this phone is its owner."""
    group = groups.get_group(key)
    if group is None:
        abort(404)
    data = body()
    stake_data = data.get("stake")
    stake = None
    if stake_data is not None:
        if not isinstance(stake_data, dict):
            raise BadBody(gettext("stake must be null or an object with minor and currency."))
        stake = Stake(integer(stake_data, "minor", 1), text(stake_data, "currency", "GBP", 8) or "GBP")
    options = data.get("options", {})
    if not isinstance(options, dict):
        raise BadBody(gettext("options must be a JSON object."))
    amount = data.get("amount")
    if amount is not None:
        amount = integer(data, "amount", 0)
    once = token(data)  # as every creating command: a retry with it makes no second club night
    setup = {"name": text(data, "name", ""), "variant": text(data, "variant", "pagat", 20), "options": options,
             "stake": stake, "players": _names(data, "players"), "rounds": integer(data, "rounds", 0),
             "length": text(data, "length", "hands", 10), "amount": amount,
             "style": text(data, "style", "together", 10), "time_zone": text(data, "time_zone", "", 64)}
    content = digest({"command": "event", "group": group.key, **setup})
    try:
        event, made = events.create_event_once(group, once, content, **setup,
                                               device=access.current_device(create=True),
                                               device_name=access.device_name())
    except (RulesError, ScorerError) as error:
        return refused_json(error_text(error), getattr(error, "rule", None))
    return jsonify(event=state_json(event.key)), 201 if made else 200


@bp.get("/ev/<key>")
@permission("view")
def state(key: str) -> Any:
    """The event now: set-up, seating, tables, standings (worked out now), fingerprint."""
    response = jsonify(event=state_json(key))
    response.headers["Cache-Control"] = "no-store"
    return response


@bp.post("/ev/<key>/players")
@permission("manage", of="event")
def add_players(key: str) -> Any:
    names = _names(body(), "players")
    return _do(key, lambda e: events.add_players(e, names, device_name=access.device_name()))


@bp.post("/ev/<key>/seat")
@permission("manage", of="event")
def seat(key: str) -> Any:
    """Seat the first round: ``how`` "draw" (``seed`` optional, recorded) or "typed"
    (``tables``: lists of names, or lines of names separated by commas)."""
    data = body()
    how, seed = text(data, "how", "draw", 10), text(data, "seed", "", 40) or None
    tables = data.get("tables")
    if isinstance(tables, str):
        tables = typed_tables(tables)
    if tables is not None and not (isinstance(tables, list) and all(
            isinstance(t, list) and all(isinstance(n, str) and len(n) <= 40 for n in t) for t in tables)):
        raise BadBody(gettext("tables must be a list of tables, each a list of names."))
    return _do(key, lambda e: events.seat_first_round(e, how=how, seed=seed, tables=tables,
                                                       device_name=access.device_name()))


@bp.post("/ev/<key>/start")
@permission("manage", of="event")
def start(key: str) -> Any:
    body()
    return _do(key, lambda e: events.start_round(e, device_name=access.device_name()))


@bp.post("/ev/<key>/arrive")
@permission("manage", of="event")
def arrive(key: str) -> Any:
    name = text(body(), "name", "", 40)
    return _do(key, lambda e: event_moves.arrive(e, name, device_name=access.device_name()))


@bp.post("/ev/<key>/leave")
@permission("manage", of="event")
def leave(key: str) -> Any:
    name = text(body(), "name", "", 40)
    return _do(key, lambda e: event_moves.leave(e, name, device_name=access.device_name()))


@bp.post("/ev/<key>/finish")
@permission("manage", of="event")
def finish(key: str) -> Any:
    body()
    return _do(key, lambda e: events.finish_event(e, device_name=access.device_name()))
