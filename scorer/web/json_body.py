"""Reading a JSON command's body (``docs/api.md``), for every blueprint of JSON commands
(:mod:`scorer.web.views.api` and ``scorer.web.views.api_*``): the blueprint with the
API's conventions (JSON only, 415 otherwise; exempt from the forms' CSRF token) and the
typed fields. A body that cannot be read as the command is a 422 (:class:`BadBody`, or
a hand or file the rules cannot read) before any command runs; the command's outcome
is answered by :func:`scorer.web.answers.json_answer`."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from typing import Any

from flask import Blueprint, jsonify, request
from flask_babel import gettext

from ..evening.file import EveningFileError
from ..reports.words import error_text
from ..rules import RulesError, clean_text
from ..storage import tokens
from .answers import refused_json
from .extensions import csrf

#: Any whole number a command carries (a row id, a revision).
MAX_INT = 1_000_000_000
#: An amount of money in minor units (a settle-up payment: the stake times the units, past
#: :data:`MAX_INT`), kept in a 64-bit column.
MAX_AMOUNT = 10**15


class BadBody(Exception):
    """The body cannot be read as the command (not JSON, wrong types): 422, nothing was tried."""

    def __init__(self, message: str, rule: str | None = None) -> None:
        super().__init__(message)
        self.message, self.rule = message, rule


def json_blueprint(name: str, import_name: str) -> Blueprint:
    """A blueprint of JSON commands under ``/api``, with the API's conventions."""
    bp = Blueprint(name, import_name, url_prefix="/api")
    csrf.exempt(bp)

    @bp.before_request
    def json_only() -> Any:
        if request.method == "POST" and request.mimetype != "application/json":
            return jsonify(error={"code": "unsupported_media_type",
                                  "message": gettext("Send the command as JSON (Content-Type: application/json).")
                                  }), 415
        return None

    @bp.errorhandler(BadBody)
    def on_bad_body(error: BadBody) -> Any:
        return refused_json(error.message, error.rule)

    @bp.errorhandler(RulesError)
    @bp.errorhandler(EveningFileError)
    def on_unreadable(error: Any) -> Any:  # a hand or an evening file in the body the rules cannot read
        return refused_json(error_text(error), error.rule)

    return bp


def body() -> dict[str, Any]:
    try:
        data = json.loads(request.get_data(cache=True) or b"")
    except (ValueError, RecursionError):
        raise BadBody(gettext("The body is not JSON.")) from None
    if not isinstance(data, dict):
        raise BadBody(gettext("The body must be a JSON object."))
    return data


def integer(data: dict[str, Any], name: str, low: int = 0, high: int = MAX_INT) -> int:
    value = data.get(name)
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise BadBody(gettext("%(field)s must be a whole number from %(low)s.", field=name, low=low))
    return value


def text(data: dict[str, Any], name: str, default: str, limit: int = 80) -> str:
    value = data.get(name, default)
    value = clean_text(value) if isinstance(value, str) else value
    if not isinstance(value, str) or len(value) > limit:
        raise BadBody(gettext("%(field)s must be a text of at most %(limit)s characters.", field=name, limit=limit))
    return value


def flag(data: dict[str, Any], name: str) -> bool:
    value = data.get(name)
    if not isinstance(value, bool):
        raise BadBody(gettext("%(field)s must be true or false.", field=name))
    return value


def token(data: dict[str, Any]) -> str:
    """The client's idempotency token: the same token again saves nothing a second time."""
    value = data.get("token")
    if not isinstance(value, str) or not tokens.TOKEN.fullmatch(value):
        raise BadBody(gettext("token must be a text of 1 to 64 characters, new for each command."))
    return value


#: how far back a phone may say a hand was played (its outbox keeps hands while offline)
PLAYED_WITHIN = timedelta(days=7)


def played_at(data: dict[str, Any], now: datetime | None = None) -> datetime | None:
    """The optional ``played_at`` of a new hand: when the phone says it was played, an ISO 8601
    time with its offset ("2026-12-06T20:15:00Z"), in the past :data:`PLAYED_WITHIN` and not
    ahead of ``now`` (the server's clock, UTC). Anything else (absent, not a text, no offset,
    out of bounds) is ignored: ``None``, and the hand is saved as ever. Never raises."""
    value = data.get("played_at")
    if not isinstance(value, str) or len(value) > 40:
        return None
    try:
        when = datetime.fromisoformat(value.strip().replace("Z", "+00:00").replace("z", "+00:00"))
    except ValueError:
        return None
    if when.tzinfo is None or when.utcoffset() is None:
        return None
    now = now or datetime.now(UTC)
    when = when.astimezone(UTC)
    return when if now - PLAYED_WITHIN <= when <= now else None


def seat(data: dict[str, Any], name: str, names: list[str]) -> int | None:
    """A player named by name (``null`` or absent: nobody)."""
    value = data.get(name)
    if value is None:
        return None
    if not isinstance(value, str) or value not in names:
        raise BadBody(gettext("%(field)s must name a player at the table.", field=name))
    return names.index(value)
