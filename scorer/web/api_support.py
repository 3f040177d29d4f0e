"""What the JSON commands of the disputes, the table's access, the groups and the
evenings share (``scorer.web.views.api_*``, ``docs/api.md``): the blueprint with the
conventions of :mod:`scorer.web.views.api` (JSON only, 415 otherwise; exempt from the
forms' CSRF token; 422 refusals with a message and a rule; 409 conflicts with the
table's state), reading a body, and :func:`run`, which runs a command in ONE unit of
work with its one-time token.

Until the command framework of the ``commands`` branch is merged, this is the small
runner those commands use; they move onto the framework's runner and outcomes then.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, TypeVar

from flask import Blueprint, abort, jsonify, request
from flask_babel import gettext

from ..evening.file import EveningFileError
from ..rules import RulesError, clean_text
from ..storage import errors, once, tokens, units
from ..storage.disputes import DisputeRefused
from ..storage.groups import GroupError
from .extensions import csrf
from .i18n import error_text

T = TypeVar("T")

#: Any whole number a command carries (a row id, a revision).
MAX_INT = 1_000_000_000


class Refused(Exception):
    """The command cannot be done as sent (bad body, or the state refuses it): 422."""

    def __init__(self, message: str, rule: str | None = None) -> None:
        super().__init__(message)
        self.message, self.rule = message, rule


def refused(message: str, rule: str | None = None) -> Any:
    return jsonify(error={"code": "refused", "rule": rule, "message": message}), 422


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

    @bp.errorhandler(Refused)
    def on_refused(error: Refused) -> Any:
        return refused(error.message, error.rule)

    @bp.errorhandler(RulesError)
    @bp.errorhandler(EveningFileError)
    def on_rules(error: Any) -> Any:
        return refused(error_text(error), error.rule)

    @bp.errorhandler(DisputeRefused)
    @bp.errorhandler(GroupError)
    @bp.errorhandler(errors.TokenReused)
    def on_scorer_error(error: Any) -> Any:
        return refused(error_text(error))

    @bp.errorhandler(errors.HandConflict)
    @bp.errorhandler(errors.EveningFinished)
    def on_conflict(error: errors.ScorerError) -> Any:
        return conflict(error_text(error))

    return bp


def conflict(message: str) -> Any:
    """409: the table is not what the client saw; nothing was saved; here is the table now."""
    from .views.api import state_of  # the state every JSON command answers a conflict with

    evening = units.get_evening((request.view_args or {}).get("key", ""), fresh=True)
    if evening is None:
        abort(404)
    return jsonify(error={"code": "conflict", "message": message}, state=state_of(evening)), 409


def evening_of(key: str) -> Any:
    evening = units.get_evening(key)
    if evening is None:
        abort(404)
    return evening


# --------------------------------------------------------------------------- reading a body
def body() -> dict[str, Any]:
    try:
        data = json.loads(request.get_data(cache=True) or b"")
    except (ValueError, RecursionError):
        raise Refused(gettext("The body is not JSON.")) from None
    if not isinstance(data, dict):
        raise Refused(gettext("The body must be a JSON object."))
    return data


def integer(data: dict[str, Any], name: str, low: int = 0) -> int:
    value = data.get(name)
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= MAX_INT:
        raise Refused(gettext("%(field)s must be a whole number from %(low)s.", field=name, low=low))
    return value


def text(data: dict[str, Any], name: str, default: str, limit: int = 80) -> str:
    value = data.get(name, default)
    value = clean_text(value) if isinstance(value, str) else value
    if not isinstance(value, str) or len(value) > limit:
        raise Refused(gettext("%(field)s must be a text of at most %(limit)s characters.", field=name, limit=limit))
    return value


def flag(data: dict[str, Any], name: str) -> bool:
    value = data.get(name)
    if not isinstance(value, bool):
        raise Refused(gettext("%(field)s must be true or false.", field=name))
    return value


def token(data: dict[str, Any]) -> str:
    """The client's idempotency token: the same token again saves nothing a second time."""
    value = data.get("token")
    if not isinstance(value, str) or not tokens.TOKEN.fullmatch(value):
        raise Refused(gettext("token must be a text of 1 to 64 characters, new for each command."))
    return value


def seat(data: dict[str, Any], name: str, names: list[str]) -> int | None:
    """A player named by name (``null`` or absent: nobody)."""
    value = data.get(name)
    if value is None:
        return None
    if not isinstance(value, str) or value not in names:
        raise Refused(gettext("%(field)s must name a player at the table.", field=name))
    return names.index(value)


# --------------------------------------------------------------------------- running a command
def run(command: str, key_token: str, do: Callable[[], T], *, evening_id: int | None = None,
        group_id: int | None = None, hand_id: int | None = None) -> tuple[T | None, bool]:
    """Run ``do`` and keep the token with it in ONE unit of work (everything or
    nothing is saved): ``(what it returned, True)``, or ``(None, False)`` when the same
    command already used this token (a retry): nothing is run again."""
    try:
        with units.writing():
            once.check(key_token, command, evening_id=evening_id, group_id=group_id)
            result = do()
            once.keep(key_token, command, evening_id=evening_id, group_id=group_id, hand_id=hand_id)
    except once.Retried:
        return None, False
    return result, True
