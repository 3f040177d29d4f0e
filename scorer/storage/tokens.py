"""One-time tokens: a form or a JSON command carries a token, saved with what it did in
the same transaction, so the same command sent twice (a double tap, a browser or
outbox retry, two posts at once) saves once.

The command runner (:mod:`scorer.storage.commands`) keeps the tokens of the commands on
an evening's hands; :func:`creating` those of the forms that make something new (an
evening, an import, a group). Both answer two posts at once the same way: the second
one's token row collides (unique), its unit rolls back, and the first one's is named.
"""

from __future__ import annotations

import functools
import re
from typing import Any

import sqlalchemy as sa
from sqlalchemy.exc import IntegrityError

from ..rules import Text
from .errors import AlreadyCreated, AlreadySaved, TokenReused
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
    used = _submission(token)
    if used is None:
        return None
    same = (used.evening_id == evening.id and used.command in ("", command)
            and (hand_id is None or used.hand_id in (None, hand_id)))
    if not same:
        raise TokenReused(REUSED)
    return used


def already_saved(submission: Submission) -> AlreadySaved:
    """The refusal of a retry: what the first submission saved (its hand's number then, and row)."""
    return AlreadySaved(SAVED_TWICE, submission.hand_number, submission.hand_id)


def keep(token: str | None, evening: Evening, command: str, *, number: int | None = None,
         hand_id: int | None = None) -> None:
    """Add ``token`` to the pending unit as used by ``command`` (on hand ``number``, row ``hand_id``)."""
    if token:
        db.session.add(Submission(token=token, evening_id=evening.id, hand_number=number, command=command,
                                  hand_id=hand_id))


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
