"""JSON commands of groups (``docs/api.md``): start a group (anyone), and on a group
(its link is its key: holding it is enough to manage it, as for the forms of
:mod:`scorer.web.views.groups`) add or remove an evening, merge two spellings of a
player or undo a merge. Each is a command of :mod:`scorer.storage.groups`, run by
:func:`~scorer.storage.commands.execute` in one unit of work with its one-time token."""

from __future__ import annotations

from typing import Any

from flask import abort, jsonify
from flask_babel import gettext

from ...storage import groups
from ...storage.commands import Command, Saved, execute
from ...storage.groups import AddToGroup, MergeNames, NewGroup, RemoveFromGroup, UnmergeNames
from ...storage.models import Evening, Group, db
from ..answers import json_answer, sender
from ..json_body import BadBody, body, json_blueprint, text, token
from ..lan import external_url
from ..permissions import permission

bp = json_blueprint("api_groups", __name__)


def group_of(group: Group) -> dict[str, Any]:
    """A group as the commands answer it: its key, name, evenings (by key) and merges."""
    keys = db.session.scalars(db.select(Evening.key).where(Evening.group_id == group.id)
                              .order_by(Evening.played_on, Evening.id))
    return {"key": group.key, "name": group.name, "page": external_url("groups.group", key=group.key),
            "evenings": list(keys),
            "merges": [{"id": a.id, "alias": a.alias, "canonical": a.canonical}
                       for a in sorted(group.aliases, key=lambda a: a.id)]}


def _answer(saved: Saved, status: int) -> Any:
    """The group as it is now (the one the command wrote, or a retry's first one)."""
    group = groups.get_group(saved.key)
    if group is None:
        abort(404)
    db.session.refresh(group)
    return jsonify(group=group_of(group)), status


def _run(command: Command, status: int) -> Any:
    return json_answer(command.key, execute(command, device=sender()), _answer, status)


def _group(key: str) -> None:
    if groups.get_group(key) is None:
        abort(404)


@bp.post("/groups")
@permission("public")
def new_group() -> Any:
    data = body()
    once, name = token(data), text(data, "name", "").strip()
    if not name:
        raise BadBody(gettext("name must be a text of 1 to 80 characters."))
    return _run(NewGroup(name, once), 201)


@bp.post("/g/<key>/evenings")
@permission("manage", of="group")
def add_evening(key: str) -> Any:
    """Put an evening (its link, or its key) into the group."""
    data = body()
    once, link = token(data), text(data, "evening", "", 300)
    _group(key)
    return _run(AddToGroup(key, link, once), 201)


@bp.post("/g/<key>/evenings/remove")
@permission("manage", of="group")
def remove_evening(key: str) -> Any:
    """Take an evening (by key) out of the group; the evening itself is unchanged."""
    data = body()
    once, evening = token(data), text(data, "evening", "", 32)
    _group(key)
    return _run(RemoveFromGroup(key, evening, once), 200)


@bp.post("/g/<key>/merges")
@permission("manage", of="group")
def merge(key: str) -> Any:
    """Count the player spelt ``alias`` as ``canonical`` in the group's season."""
    data = body()
    once, alias, canonical = token(data), text(data, "alias", "", 200), text(data, "canonical", "", 200)
    _group(key)
    return _run(MergeNames(key, alias, canonical, once), 201)


@bp.post("/g/<key>/merges/<int:merge_id>/unmerge")
@permission("manage", of="group")
def unmerge(key: str, merge_id: int) -> Any:
    """Undo one merge: the two spellings count apart again."""
    data = body()
    once = token(data)
    _group(key)
    return _run(UnmergeNames(key, merge_id, once), 200)
