"""One-time tokens: a form or a JSON command carries a token, saved with what it did in
the same transaction, so the same command sent twice (a double tap, a browser or
outbox retry, two posts at once) saves once.

The command runner (:mod:`scorer.storage.commands`) keeps the tokens of the commands on
an evening's hands; :func:`creating` those of the forms that make something new (an
evening, an import, a group). Both answer two posts at once the same way: the second
one's token row collides (unique), its unit rolls back, and the first one's is named.

A token remembers what it saved: the :func:`digest` of its command's content. The runner
checks it before anything else (:func:`same_content`): the same token with other content
(hand 2 sent with hand 1's token) is not a retry, and is refused rather than answered
with what the first one saved. Tokens kept before migration 0015 have no digest and are
answered as before.
"""

from __future__ import annotations

import dataclasses
import enum
import functools
import hashlib
import json
import re
from typing import Any

import sqlalchemy as sa
from sqlalchemy.exc import IntegrityError

from ..rules import Text
from .errors import AlreadyCreated, TokenReused
from .models import Evening, Group, Submission, db
from .units import reading, writing

#: A one-time token: 1 to 64 printable ASCII characters (forms make 22 with
#: ``secrets.token_urlsafe``; a JSON command's client makes its own).
TOKEN = re.compile(r"[!-~]{1,64}")

REUSED = Text("This one-time token was used for another change; send the command with a new token. "
              "Nothing was saved.")
SAVED_TWICE = Text("This form was already saved (it was sent twice); nothing was saved again.")


def _submission(token: str) -> Submission | None:
    if not TOKEN.fullmatch(token):
        raise ValueError("a one-time token is 1 to 64 printable ASCII characters")
    return db.session.scalar(sa.select(Submission).where(Submission.token == token))


def token_used(token: str | None, evening: Evening, command: str, hand_id: int | None = None) -> Submission | None:
    """The submission that used ``token`` before, if the same command on this table (and
    this hand) used it: a retry. Raises :class:`TokenReused` when another command used it,
    and ``ValueError`` for a token that is not :data:`TOKEN` (forms and the API check first)."""
    if not token:
        return None
    return _retry(_submission(token), evening, command, hand_id)


def _retry(used: Submission | None, evening: Evening, command: str, hand_id: int | None) -> Submission | None:
    """:func:`token_used` of the token's row ``used`` (``None``: never used)."""
    if used is None:
        return None
    same = (used.evening_id == evening.id and used.command in ("", command)
            and (hand_id is None or used.hand_id in (None, hand_id)))
    if not same:
        raise TokenReused(REUSED)
    return used


def _plain(value: Any) -> Any:
    """``value`` as plain JSON: a dataclass as its type and fields, tuples as lists, bytes by their SHA-256."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        fields = {f.name: _plain(getattr(value, f.name)) for f in dataclasses.fields(value) if f.name != "token"}
        return {"type": type(value).__name__, **fields}
    if isinstance(value, enum.Enum):
        return _plain(value.value)
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        items = [_plain(v) for v in value]
        return sorted(items, key=repr) if isinstance(value, set | frozenset) else items
    if isinstance(value, bytes):
        return {"sha256": hashlib.sha256(value).hexdigest()}
    if value is None or isinstance(value, str | int | float | bool):
        return value
    return repr(value)


def digest(command: Any) -> str:
    """The SHA-256 (hex) of a command's content: its type and its fields but the token,
    as sorted JSON. The same command sent again has the same digest."""
    text = json.dumps(_plain(command), sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()  # never raises on any str


def same_content(token: str | None, content: str | None) -> None:
    """Raise :class:`TokenReused` when ``token`` saved a command whose digest is not
    ``content``: not a retry but another change with a used token. A token kept without
    a digest (before 0015) passes, as then."""
    if not token or content is None:
        return
    used = _submission(token)
    if used is not None and used.digest is not None and used.digest != content:
        raise TokenReused(REUSED)


def retry_of(token: str | None, content: str | None, evening: Evening, command: str,
             hand_id: int | None = None) -> Submission | None:
    """:func:`same_content`, then :func:`token_used`, with one reading of the token's row
    (the runner's first check on an evening, under its lock)."""
    if not token:
        return None
    used = _submission(token)
    if used is not None and content is not None and used.digest is not None and used.digest != content:
        raise TokenReused(REUSED)
    return _retry(used, evening, command, hand_id)


def remember(token: str | None, content: str | None) -> None:
    """Keep ``content`` (the command's digest) with ``token``, kept in the pending unit by
    the command's handler (:func:`keep_created`): the runner's last step."""
    if not token or content is None:
        return
    db.session.flush()
    db.session.execute(sa.update(Submission).where(Submission.token == token, Submission.digest.is_(None))
                       .values(digest=content).execution_options(synchronize_session=False))


def keep(token: str | None, evening: Evening, command: str, *, number: int | None = None,
         hand_id: int | None = None, content: str | None = None) -> None:
    """Add ``token`` to the pending unit as used by ``command`` (on hand ``number``, row
    ``hand_id``), with the command's digest ``content``: inserted now, with no ORM object
    (two posts at once: the second one's collides here)."""
    if token:
        db.session.connection().execute(sa.insert(Submission), {
            "token": token, "evening_id": evening.id, "hand_number": number, "command": command,
            "hand_id": hand_id, "digest": content})


def creation_retry(token: str | None, command: str) -> None:
    """Raise :class:`AlreadyCreated` if ``token`` already made something with ``command``
    ("start", "import", "group"); :class:`TokenReused` if another command used it."""
    if not token:
        return
    used = _submission(token)
    if used is None:
        return
    if used.command != command:
        raise TokenReused(REUSED)
    if used.group_id is not None:
        raise AlreadyCreated(group_key=db.session.scalar(sa.select(Group.key).where(Group.id == used.group_id)))
    raise AlreadyCreated(evening_key=db.session.scalar(sa.select(Evening.key).where(Evening.id == used.evening_id)))


def keep_created(token: str | None, command: str, *, evening_id: int | None = None,
                 group_id: int | None = None) -> None:
    """Add the creating form's ``token`` with what it made to the pending unit (see :func:`creating`)."""
    if token:
        db.session.add(Submission(token=token, evening_id=evening_id, group_id=group_id, command=command))


def creating(command: str) -> Any:
    """Run a function that makes something new (its ``token`` keyword is the form's
    one-time token) as one unit of work: :class:`AlreadyCreated` before anything is made
    when the token made something already, and when two posts at once collide on it
    (the second one's unit is rolled back: nothing of it is saved)."""

    def decorate(function: Any) -> Any:
        @functools.wraps(function)
        def wrapper(*args: Any, token: str | None = None, **kwargs: Any) -> Any:
            try:
                with writing():
                    creation_retry(token, command)
                    made = function(*args, token=token, **kwargs)
                    db.session.flush()
                    return made
            except IntegrityError:
                with reading():
                    creation_retry(token, command)
                raise

        return wrapper

    return decorate
