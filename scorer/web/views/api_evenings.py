"""JSON commands that make an evening (``docs/api.md``): start a new one, or import an
evening file, over the same functions as the forms of :mod:`scorer.web.views.start`
(anyone may; the phone that makes it is its first scorer). Sent again with the same
token, they answer the evening the first one made and make nothing new."""

from __future__ import annotations

import json
from typing import Any

from flask import jsonify, request
from flask_babel import gettext

from ...evening.file import loads
from ...rules import VARIANTS, Stake
from ...storage import errors, evening_writes
from ...storage.groups import get_group
from .. import access
from ..answers import refused_json
from ..i18n import error_text
from ..json_body import BadBody, body, integer, json_blueprint, text, token
from ..lan import external_url
from ..permissions import permission

bp = json_blueprint("api_evenings", __name__)


@bp.errorhandler(errors.AlreadyCreated)
def _on_retry(again: errors.AlreadyCreated) -> Any:
    """The same command again: the evening the first one made (this phone stays its scorer)."""
    assert again.evening_key is not None  # a start or import token always names its evening
    return _made(again.evening_key, "import" if request.path.endswith("/import") else "start", 200)


@bp.errorhandler(errors.TokenReused)
def _on_reused(error: errors.TokenReused) -> Any:
    return refused_json(error_text(error))


def _made(key: str, via: str, status: int) -> Any:
    access.grant_scorer(key, via=via)  # the table's creator is its first scorer
    return jsonify(key=key, scoresheet=external_url("sheet.scoresheet", key=key)), status


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
    evening = evening_writes.create_evening(
        variant=variant, players=names, first_dealer=names.index(first), options=options, stake=_stake(data),
        name=text(data, "name", ""), device=access.device_name(), group_id=group.id if group else None,
        time_zone=text(data, "time_zone", "", 64), token=once)
    return _made(evening.key, "start", 201)


@bp.post("/evenings/import")
@permission("public")
def import_evening() -> Any:
    """Import an evening file (``docs/evening-format.md``) given as ``evening``."""
    data = body()
    once = token(data)
    if not isinstance(data.get("evening"), dict):
        raise BadBody(gettext("evening must be an evening file (a JSON object)."))
    evening = evening_writes.import_evening(loads(json.dumps(data["evening"])), device=access.device_name(),
                                      time_zone=text(data, "time_zone", "", 64), token=once)
    return _made(evening.key, "import", 201)
