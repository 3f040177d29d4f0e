"""JSON commands that make an evening (``docs/api.md``): start a new one
(:class:`~scorer.storage.evening_writes.NewEvening`), or import an evening file
(:class:`~scorer.storage.evening_writes.ImportEvening`), the same commands as the forms
of :mod:`scorer.web.views.start` (anyone may; the phone that makes it is its first
scorer). Sent again with the same token, they answer the evening the first one made and
make nothing new (:func:`scorer.web.answers.json_answer`)."""

from __future__ import annotations

import json
from typing import Any

from flask import jsonify
from flask_babel import gettext

from ...rules import VARIANTS, Stake
from ...storage.commands import Command, Saved, execute
from ...storage.evening_writes import ImportEvening, NewEvening
from ...storage.groups import get_group
from .. import access
from ..answers import json_answer, sender
from ..json_body import BadBody, body, integer, json_blueprint, text, token
from ..lan import external_url
from ..permissions import permission

bp = json_blueprint("api_evenings", __name__)


def _run(command: Command, via: str) -> Any:
    """Run the command; made (201) or made before by the same token (200): the evening,
    and this phone is its scorer (the table's creator is its first scorer)."""
    def made(saved: Saved, status: int) -> Any:
        access.grant_scorer(saved.key, via=via)
        return jsonify(key=saved.key, scoresheet=external_url("sheet.scoresheet", key=saved.key)), status

    return json_answer(command.key, execute(command, device=sender()), made, 201)


def _stake(data: dict[str, Any]) -> Stake | None:
    stake = data.get("stake")
    if stake is None:
        return None
    if not isinstance(stake, dict) or set(stake) - {"minor", "currency"}:
        raise BadBody(gettext("stake must be null (points) or {\"minor\": whole number, \"currency\": text}."))
    return Stake(integer(stake, "minor", 1), text(stake, "currency", "", 3).strip())


@bp.post("/evenings")
@permission("public")
def new_evening() -> Any:
    """Start a new evening: the variant, the players in seating order, the first dealer."""
    data = body()
    once = token(data)
    variant = text(data, "variant", "", 20)
    if variant not in VARIANTS:
        raise BadBody(gettext("variant must be one of %(ids)s.", ids=", ".join(sorted(VARIANTS))))
    players = data.get("players")
    if not isinstance(players, list) or not all(isinstance(p, str) and len(p) <= 40 for p in players):
        raise BadBody(gettext("players must be a list of names (each at most 40 characters)."))
    names = [" ".join(p.split()) for p in players]
    first = text(data, "first_dealer", names[0] if names else "", 40)
    if first not in names:
        raise BadBody(gettext("first_dealer must name a player at the table."))
    options = data.get("options", {})
    if not isinstance(options, dict):
        raise BadBody(gettext("options must be a JSON object."))
    group = None
    if data.get("group") is not None:
        group = get_group(text(data, "group", "", 32))
        if group is None:
            raise BadBody(gettext("There is no such group."))
    return _run(NewEvening(variant, tuple(names), names.index(first), options, _stake(data),
                           name=text(data, "name", ""), group_id=group.id if group else None,
                           time_zone=text(data, "time_zone", "", 64), token=once), "start")


@bp.post("/evenings/import")
@permission("public")
def import_evening() -> Any:
    """Import an evening file (``docs/evening-format.md``) given as ``evening``."""
    data = body()
    once = token(data)
    if not isinstance(data.get("evening"), dict):
        raise BadBody(gettext("evening must be an evening file (a JSON object)."))
    # compact, as an export is: the file the engine reads is no larger than the one sent
    file = json.dumps(data["evening"], ensure_ascii=False, separators=(",", ":"))
    return _run(ImportEvening(file, time_zone=text(data, "time_zone", "", 64), token=once),
                "import")
