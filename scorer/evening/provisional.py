"""Provisional rulings: the hands a scorer's phone keeps while the network is down, settled by
the phone's own copy of this engine (Pyodide, ``static/engine/worker.js``) from the server's last
state, before the server has them.

The server's last state is the evening file it exports (``/e/<key>/evening.json``); each hand
waiting in the phone's outbox is the ``facts`` of its ``POST /api/e/<key>/hands`` command
(docs/api.md), read exactly as that command reads it: the dealer the ledger names next when the
hand names none, quick entry's ``lone_bid`` made into the variant's auction
(:func:`scorer.evening.lone_bid.lone_bid_hand`), the schema's check (:func:`~scorer.evening.file.check_hand`)
and :func:`~scorer.evening.file.read_hand`. A waiting correction is ``{"correct": N, "facts": …}``
(the facts of its ``POST /api/e/<key>/hands/<id>/versions`` command, read as that command reads
them: hand N's dealer when they name none): hand N's facts replaced. The hands are settled in
order; the ledger after them is what the phone shows, marked provisional, until the server's
answer replaces it.

Standard library (and the evening file's ``jsonschema``) only.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..rules import RulesError, Text
from .file import EveningFile, EveningFileError, check_hand, loads, read_hand
from .ledger import Ledger, settle_evening
from .lone_bid import lone_bid_hand


@dataclass(frozen=True)
class Refusal:
    """A waiting hand the rules refuse: ``index`` (0-based, among the waiting hands), ``number``
    (its hand number), the rule id (or ``None``) and the message (a :class:`~scorer.rules.Text`,
    the very words of the server's refusal: :func:`scorer.evening.said.refusal_text` puts it in the
    phone's language)."""

    index: int
    number: int
    rule: str | None
    message: Any


def provisional(server_file: str | bytes, waiting: Sequence[Mapping[str, Any]]) -> tuple[EveningFile, Ledger,
                                                                                           Refusal | None]:
    """The evening of ``server_file`` (the server's last evening file) with the ``waiting``
    hands' facts (JSON-ready dicts, in order) settled after it: (the evening, its ledger, the
    first refusal or ``None``). A refused hand and every hand after it are left out of the
    ledger (the phone refuses it at the tap; nothing after it can be settled before it).
    Raises :class:`~scorer.evening.file.EveningFileError` when ``server_file`` itself is not an
    evening file."""
    evening = loads(server_file)
    hands = list(evening.hands)
    ledger = settle_evening(evening.setup, hands, evening.changes)
    for index, facts in enumerate(waiting):
        number = len(hands) + 1
        try:
            corrected = _corrected(facts, len(hands))
            data = dict(facts) if isinstance(facts, Mapping) else facts
            dealer, seated = ledger.next_dealer, ledger.seated
            if corrected is not None:  # a correction: hand N's facts replaced, its dealer and seats kept
                number, data = corrected, dict(facts["facts"])
                row = ledger.rows[number - 1]
                dealer, seated = row.facts.dealer, row.seated or ledger.seated
            if isinstance(data, dict) and "lone_bid" in data:
                data = lone_bid_hand(data, ledger, dealer, seated)
            check_hand(data, "facts")
            hand = read_hand(data, ledger.setup.players, dealer=dealer, where="facts")
            settled = [*hands, hand] if corrected is None else [*hands[: number - 1], hand, *hands[number:]]
            after = settle_evening(evening.setup, settled, evening.changes)
        except (EveningFileError, RulesError) as error:
            inner = getattr(error, "error", error)  # a HandError: the rule's own refusal
            message = inner.message
            if isinstance(inner, EveningFileError) and inner.where:  # as the server words it (storage's unreadable)
                message = Text("{where}: {message}", where=inner.where, message=inner.message)
            return evening, ledger, Refusal(index, number, inner.rule, message)
        hands = settled
        ledger = after
    return evening, ledger, None


def _corrected(item: Any, count: int) -> int | None:
    """The number of the hand a waiting correction ``{"correct": N, "facts": {…}}`` corrects
    (one of the ``count`` hands before it), ``None`` for a new hand's facts."""
    if not isinstance(item, Mapping) or set(item) != {"correct", "facts"} or not isinstance(item["facts"], Mapping):
        return None
    number = item["correct"]
    if isinstance(number, int) and not isinstance(number, bool) and 1 <= number <= count:
        return number
    raise EveningFileError("correct: no such hand", where="facts")
