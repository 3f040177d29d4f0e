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


class EveningFull(ScorerError):
    """The evening is at one of its bounds (:mod:`scorer.evening.limits`: 2,000 hands, 500
    changes of seats, 20 players): the app refuses, as it is recorded, what would make an
    evening its own import and ``nap settle`` could not read back (issue 23, item 7)."""


class HandConflict(ScorerError):
    """Another phone saved that hand (or a newer version of it) first."""

    def __init__(self, message: Text, number: int) -> None:
        super().__init__(message)
        self.number = number


class OwnerOnly(ScorerError):
    """What only the table's owner may do (renew its credentials, hand it over), asked by
    another phone (``forbidden``), or done to the owner (revoking it): refused, rule "owner"."""

    def __init__(self, message: Text, forbidden: bool = False) -> None:
        super().__init__(message)
        self.forbidden = forbidden


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


class NotAParty(ScorerError):
    """A phone that is neither a scorer of the table nor the phone of a party to the payment
    (its player's link) asked to mark a payment paid: refused, rule "party" (403)."""
