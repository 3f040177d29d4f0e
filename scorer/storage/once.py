"""One-time tokens of the commands that are not about one hand (disputes, the table's
access, groups, new evenings): the token is kept with what the command did, in the
same unit of work, so the same command sent again (a retry, a double tap) is known
and saves nothing twice. A token another command used is refused
(:class:`scorer.storage.errors.TokenReused`), as for the hand commands.

The hand commands keep theirs in :mod:`scorer.storage.services`; both use
:class:`~scorer.storage.models.Submission` rows, so one token is never used twice."""

from __future__ import annotations

import sqlalchemy as sa
from sqlalchemy.exc import IntegrityError

from ..rules import Text
from .errors import TokenReused
from .models import Submission, db
from .tokens import TOKEN


class Retried(Exception):
    """The same command was saved with this token before: nothing new is saved (the
    caller answers with what is there now)."""


def _reused() -> TokenReused:
    return TokenReused(Text("This one-time token was used for another change; send the command with a new "
                            "token. Nothing was saved."))


def check(token: str, command: str, *, evening_id: int | None = None, group_id: int | None = None) -> None:
    """Raise :class:`Retried` if ``command`` at this evening (or group) used ``token``
    before; :class:`TokenReused` if anything else did; ``ValueError`` for a token that
    is not :data:`scorer.storage.tokens.TOKEN` (the API checks first)."""
    if not TOKEN.fullmatch(token):
        raise ValueError("a one-time token is 1 to 64 printable ASCII characters")
    used = db.session.scalar(sa.select(Submission).where(Submission.token == token))
    if used is None:
        return
    if used.command == command and used.evening_id == evening_id and used.group_id == group_id:
        raise Retried(command)
    raise _reused()


def keep(token: str, command: str, *, evening_id: int | None = None, group_id: int | None = None,
         hand_id: int | None = None) -> None:
    """Keep ``token`` with what ``command`` did, in the caller's unit of work. The same
    token saved meanwhile by another request (two at once): :class:`Retried` or
    :class:`TokenReused`, and the caller's unit of work saves nothing."""
    try:
        with db.session.begin_nested():
            db.session.add(Submission(token=token, command=command, evening_id=evening_id, group_id=group_id,
                                      hand_id=hand_id))
    except IntegrityError:
        check(token, command, evening_id=evening_id, group_id=group_id)
        raise _reused() from None
