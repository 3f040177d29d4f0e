"""The refusals of storage: requests the current state of an evening refuses.

Each carries an English :class:`~scorer.rules.Text` template (``message``) that the
web layer shows in the phone's language (:func:`scorer.web.i18n.error_text`). The
command runner (:mod:`scorer.storage.commands`) turns them into outcomes; the engine's
own refusals are :class:`~scorer.rules.RulesError`.
"""

from __future__ import annotations

from ..rules import Text


class ScorerError(Exception):
    """A request the current state of the evening refuses. ``message`` is an English
    :class:`~scorer.rules.Text` template with its parameters (``str()`` gives it in
    English); the web layer shows it in the phone's language (:func:`scorer.web.i18n.error_text`)."""

    def __init__(self, message: Text) -> None:
        super().__init__(message)
        self.message = message


class EveningFinished(ScorerError):
    """The evening is closed (or its agreed end is reached): no more hands."""


class AlreadySaved(ScorerError):
    """This very form was saved before (a double tap or a browser retry): nothing new
    is saved; ``number`` is where the hand the first submission saved was then, and
    ``hand_id`` its row (``None`` for tokens saved before migration 0010)."""

    def __init__(self, message: Text, number: int | None, hand_id: int | None = None) -> None:
        super().__init__(message)
        self.number = number
        self.hand_id = hand_id


class HandConflict(ScorerError):
    """Another phone saved that hand (or a newer version of it) first."""

    def __init__(self, message: Text, number: int) -> None:
        super().__init__(message)
        self.number = number


class TokenReused(ScorerError):
    """A token already used by another command, at another table or for another hand:
    it is not a retry, and nothing is saved."""


class AlreadyCreated(ScorerError):
    """This very form created something before (posted twice, or retried by the browser):
    nothing new is made; ``evening_key`` or ``group_key`` is what the first post made."""

    def __init__(self, evening_key: str | None = None, group_key: str | None = None) -> None:
        super().__init__(Text("This form was already sent (it was sent twice); nothing was made again."))
        self.evening_key = evening_key
        self.group_key = group_key


#: The conflict of a change made from a screen older than the table.
TABLE_CHANGED = Text("The table changed on another phone while you were editing; here it is now.")
