"""JSON commands of groups (``docs/api.md``): start a group (anyone), and on a group
(its link is its key: holding it is enough to manage it, as for the forms of
:mod:`scorer.web.views.groups`) add or remove an evening, merge two spellings of a
player or undo a merge. Each runs in one unit of work with its one-time token."""

from __future__ import annotations

from typing import Any

from flask import abort, jsonify
from flask_babel import gettext

from ...storage import errors, groups
from ...storage.models import Evening, Group, db
from ..access import permission
from ..api_support import Refused, body, json_blueprint, run, text, token
from .common import external_url

bp = json_blueprint("api_groups", __name__)


@bp.errorhandler(errors.AlreadyCreated)
def _on_retry(again: errors.AlreadyCreated) -> Any:
    """The same new group again: the group the first one made."""
    group = groups.get_group(again.group_key or "")
    if group is None:  # pragma: no cover - a group token always names its group
        abort(409)
    return _answer(group, 200)


def group_of(group: Group) -> dict[str, Any]:
    """A group as the commands answer it: its key, name, evenings (by key) and merges."""
    keys = db.session.scalars(db.select(Evening.key).where(Evening.group_id == group.id)
                              .order_by(Evening.played_on, Evening.id))
    return {"key": group.key, "name": group.name, "page": external_url("groups.group", key=group.key),
            "evenings": list(keys),
            "merges": [{"id": a.id, "alias": a.alias, "canonical": a.canonical}
                       for a in sorted(group.aliases, key=lambda a: a.id)]}


def _answer(group: Group, status: int) -> Any:
    fresh = groups.get_group(group.key)
    assert fresh is not None  # groups are never deleted
    db.session.refresh(fresh)
    return jsonify(group=group_of(fresh)), status


def _group(key: str) -> Group:
    group = groups.get_group(key)
    if group is None:
        abort(404)
    return group


@bp.post("/groups")
@permission("public")
def new_group() -> Any:
    data = body()
    once, name = token(data), text(data, "name", "").strip()
    if not name:
        raise Refused(gettext("name must be a text of 1 to 80 characters."))
    return _answer(groups.create_group(name, token=once), 201)


@bp.post("/g/<key>/evenings")
@permission("manage", of="group")
def add_evening(key: str) -> Any:
    """Put an evening (its link, or its key) into the group."""
    data = body()
    once, link = token(data), text(data, "evening", "", 300)
    group = _group(key)
    _done, fresh = run("group_add", once, lambda: groups.add_evening(group, link), group_id=group.id)
    return _answer(group, 201 if fresh else 200)


@bp.post("/g/<key>/evenings/remove")
@permission("manage", of="group")
def remove_evening(key: str) -> Any:
    """Take an evening (by key) out of the group; the evening itself is unchanged."""
    data = body()
    once, evening = token(data), text(data, "evening", "", 32)
    group = _group(key)
    run("group_remove", once, lambda: groups.remove_evening(group, evening), group_id=group.id)
    return _answer(group, 200)


@bp.post("/g/<key>/merges")
@permission("manage", of="group")
def merge(key: str) -> Any:
    """Count the player spelt ``alias`` as ``canonical`` in the group's season."""
    data = body()
    once, alias, canonical = token(data), text(data, "alias", "", 200), text(data, "canonical", "", 200)
    group = _group(key)
    _done, fresh = run("merge", once, lambda: groups.merge(group, alias, canonical), group_id=group.id)
    return _answer(group, 201 if fresh else 200)


@bp.post("/g/<key>/merges/<int:merge_id>/unmerge")
@permission("manage", of="group")
def unmerge(key: str, merge_id: int) -> Any:
    """Undo one merge: the two spellings count apart again."""
    data = body()
    once = token(data)
    group = _group(key)
    run("unmerge", once, lambda: groups.unmerge(group, merge_id), group_id=group.id)
    return _answer(group, 200)
