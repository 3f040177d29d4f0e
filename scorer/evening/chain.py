"""The evening's record, chained (issue 22 item 6): a record every player can check.

Pure Python (standard library: :mod:`hashlib`, :mod:`json`). An evening's record is the
list of its changes in the order the engine applies them
(:func:`scorer.evening.ledger.settle_evening`): change 0 is the set-up (variant, resolved
options, stake, the players at the first deal and their names, the first dealer, the
draw), then each change of seats and each hand, then ``finished`` if the table closed
the evening. Each change is **linked** to the one before it::

    link[0] = SHA-256(32 zero bytes ‖ canonical JSON of change 0)
    link[i] = SHA-256(link[i − 1] ‖ canonical JSON of change i)

(canonical JSON: keys sorted, no spaces, UTF-8). So a link stands for every change up to
it, and the last link for the whole record: whoever changes a hand, a stake or a name
changes every link from that change on. The **fingerprint** is the first 40 bits of the
last link in Crockford's base 32, as two groups of four (``"R3YE-F8JA"``): short enough
to read aloud across a table, the same in every language. Two phones that show the same
fingerprint agree on every hand (up to a 1 in 2⁴⁰ chance).

What is covered is what a settlement is worked from, and who it is between: the facts
of every hand (a correction, an undo, a ruling or an override moves the fingerprint),
the seats and the players' names (a rename is a change of its own). The evening's own
name, date, place and time zone are labels and are not covered.

Seats are written in the evening file's numbering (the players at the first deal in
clockwise order, then each newcomer by first join), so the same evening stored by the
app, exported and imported again has the same record. There is no secret key: anyone
who edits a file can chain it again, but its fingerprint is then not the one the phones
and the PDF showed (docs/evening-format.md, "The record").
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..rules import EveningSetup, HandFacts, SeatChange, Text, get_variant
from ..rules.options import resolve_options
from .codec import encode_hand

if TYPE_CHECKING:
    from .ledger import Ledger

#: The link before change 0.
GENESIS = bytes(32)
#: Names this way of chaining, in change 0: a later way would be told apart.
SCHEME = "nap-chain/1"
#: Crockford's base 32 (no I, L, O, U: nothing to misread aloud).
ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"


@dataclass(frozen=True)
class Change:
    """One change of the record: ``kind`` is ``"setup"``, ``"hand"``, ``"join"``,
    ``"leave"``, ``"rename"`` or ``"finished"``; ``hand`` the hand's number (for a hand)
    or the hand a change of seats comes before (``None`` for the set-up and the finish);
    ``data`` what is hashed (JSON-ready)."""

    kind: str
    hand: int | None
    data: dict[str, Any]


def canonical(change: Change) -> bytes:
    """The change as the bytes that are hashed: canonical JSON (keys sorted, no spaces,
    UTF-8)."""
    return json.dumps(change.data, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def link(previous: bytes, change: Change) -> bytes:
    """SHA-256 of ``previous`` (32 bytes) followed by the change's canonical JSON."""
    return hashlib.sha256(previous + canonical(change)).digest()


def links(changes: Iterable[Change], start: bytes = GENESIS) -> list[bytes]:
    """The link of each of ``changes``, chained on from ``start`` (the link before the
    first of them)."""
    out: list[bytes] = []
    last = start
    for change in changes:
        last = link(last, change)
        out.append(last)
    return out


def fingerprint(last: bytes) -> str:
    """The fingerprint of a record whose last link is ``last``: its first 40 bits as 8
    Crockford base-32 characters in two groups of four (``"R3YE-F8JA"``)."""
    value = int.from_bytes(last[:5], "big")
    chars = "".join(ALPHABET[(value >> shift) & 31] for shift in range(35, -1, -5))
    return f"{chars[:4]}-{chars[4:]}"


class Seats:
    """An evening's seats in the file's numbering and its players' names as they were at
    each change (renames undone back to the first deal). ``changes`` in the order the
    engine applies them."""

    def __init__(self, setup: EveningSetup, changes: Sequence[SeatChange] = ()) -> None:
        order = list(setup.seated_at_start)
        for change in changes:
            if change.kind == "join" and change.seat not in order:
                order.append(change.seat)
        order += [s for s in range(setup.n) if s not in order]  # never seated: kept, numbered last
        #: the file's number of each seat (``number[seat]``)
        self.number = [0] * setup.n
        for i, seat in enumerate(order):
            self.number[seat] = i
        names = list(setup.players)
        #: for each rename (by its position in ``changes``), the name it gave
        self.renamed_to: dict[int, str] = {}
        for i in range(len(changes) - 1, -1, -1):
            if changes[i].kind == "rename":
                self.renamed_to[i] = names[changes[i].seat]
                names[changes[i].seat] = changes[i].name
        #: every seat's name at the first deal
        self.first_names = tuple(names)


def setup_change(setup: EveningSetup, seats: Seats, draw: Sequence[str] = ()) -> Change:
    """Change 0: the set-up, with the options resolved (defaults written out) so that an
    evening stored with some left out has the record of one with all of them."""
    try:
        options = resolve_options(get_variant(setup.variant).option_specs, setup.options)
    except (KeyError, ValueError):  # not a set-up the rules take: hashed as it is
        options = dict(setup.options)
    stake = None if setup.stake is None else {"minor": setup.stake.minor, "currency": setup.stake.currency}
    seated = setup.seated_at_start
    return Change("setup", None, {
        "scheme": SCHEME, "variant": setup.variant, "options": options, "stake": stake,
        "players": [seats.first_names[s] for s in seated],
        "first_dealer": seats.number[setup.first_dealer], "draw": list(draw),
    })


def hand_change(number: int, facts: HandFacts, seats: Seats) -> Change:
    """Hand ``number`` (1-based): its facts as the evening file writes them, seats as
    numbers."""
    return Change("hand", number, {"hand": number, "facts": encode_hand(facts, seats.number)})


def seat_change(index: int, change: SeatChange, seats: Seats, names: list[str]) -> Change:
    """A change of seats (the ``index``-th of the evening's); ``names`` are the players'
    names so far, updated by a rename."""
    number = seats.number
    if change.kind == "join":
        data: dict[str, Any] = {"join": number[change.seat], "left_of": number[change.left_of or 0],
                                "name": names[change.seat]}
    elif change.kind == "leave":
        data = {"leave": number[change.seat]}
    else:
        names[change.seat] = seats.renamed_to.get(index, names[change.seat])
        data = {"rename": number[change.seat], "to": names[change.seat]}
    return Change(change.kind, change.before_hand, data)


FINISHED = Change("finished", None, {"finished": True})


def in_engine_order(changes: Sequence[SeatChange], hands: int) -> list[SeatChange]:
    """The changes of seats as the engine applies them: by the hand they come before
    (stable), those after the last hand before hand ``hands + 1``."""
    ordered = sorted(changes, key=lambda c: c.before_hand)
    return [c if c.before_hand <= hands + 1 else SeatChange(hands + 1, c.kind, c.seat, c.left_of, c.name)
            for c in ordered]


def record(setup: EveningSetup, hands: Sequence[HandFacts], changes: Sequence[SeatChange] = (), *,
           draw: Sequence[str] = (), finished: bool = False) -> list[Change]:
    """The evening's changes in order: the set-up, each change of seats before the hand it
    comes before, each hand, the changes after the last hand, then the finish.

    ``setup``, ``hands`` and ``changes`` as :func:`~scorer.evening.ledger.settle_evening`
    takes them; ``draw`` the cards drawn for the first deal (H-3, B-2), in seat order;
    ``finished`` whether the table closed the evening. Nothing is ruled on here: a record
    can be made of facts the rules would refuse."""
    ordered = in_engine_order(changes, len(hands))
    seats = Seats(setup, ordered)
    names = list(seats.first_names)
    out = [setup_change(setup, seats, draw)]
    pending = list(enumerate(ordered))
    for number, facts in enumerate(hands, start=1):
        while pending and pending[0][1].before_hand <= number:
            i, change = pending.pop(0)
            out.append(seat_change(i, change, seats, names))
        out.append(hand_change(number, facts, seats))
    out += [seat_change(i, change, seats, names) for i, change in pending]
    if finished:
        out.append(FINISHED)
    return out


def describe(change: Change | None, index: int) -> Text:
    """Which change ``index`` is, in words: "change 3 (hand 3)"; ``change`` ``None`` for
    one past the end of the record."""
    if change is None:
        return Text("change {index} (after the last change)", index=index)
    if change.kind == "setup":
        return Text("change {index} (the set-up)", index=index)
    if change.kind == "hand":
        return Text("change {index} (hand {hand})", index=index, hand=change.hand)
    if change.kind == "finished":
        return Text("change {index} (the evening finished)", index=index)
    return Text("change {index} (a change of seats before hand {hand})", index=index, hand=change.hand)


@dataclass(frozen=True)
class Verdict:
    """What :func:`check` found: ``whole`` when every link written matches the facts;
    otherwise ``altered_from`` is the first change whose link does not, and ``where`` it
    in words (:func:`describe`). ``fingerprint`` is the facts' own; ``chained`` false
    for a file that carries no chain (nothing was checked)."""

    whole: bool
    fingerprint: str
    altered_from: int | None = None
    where: Text | None = None
    chained: bool = True


def check(changes: Sequence[Change], written: Sequence[str]) -> Verdict:
    """Compare the links ``written`` (hexadecimal, one per change, as the evening file
    carries them) with those of ``changes``. A link written in capitals or with a bad
    digit simply does not match."""
    made = links(changes)
    own = fingerprint(made[-1]) if made else fingerprint(GENESIS)
    for i in range(max(len(made), len(written))):
        if i >= len(made) or i >= len(written) or made[i].hex() != written[i]:
            return Verdict(False, own, i, describe(changes[i] if i < len(changes) else None, i))
    return Verdict(True, own)


def check_written(changes: Sequence[Change], data: Mapping[str, Any]) -> Verdict:
    """The record ``changes`` of an evening file's facts against the ``chain`` and
    ``fingerprint`` written in it (``data``, the parsed file): whole, or altered from
    which change. A fingerprint written that is not the one of the chain written counts as
    altered at the last change."""
    verdict = check(changes, list(data.get("chain", ())))
    stated = data.get("fingerprint")
    if verdict.whole and stated is not None and stated != verdict.fingerprint:
        last = len(changes) - 1
        return Verdict(False, verdict.fingerprint, last, describe(changes[last], last))
    return verdict


def of_ledger(ledger: Ledger, *, draw: Sequence[str] = (), finished: bool = False) -> list[Change]:
    """The record of a settled evening (:class:`~scorer.evening.ledger.Ledger`): its
    set-up, the changes of seats folded in and the facts of its rows."""
    return record(ledger.setup, [row.facts for row in ledger.rows], ledger.changes, draw=draw, finished=finished)


def summary(changes: Sequence[Change]) -> tuple[str, int]:
    """``(fingerprint, number of changes)`` of a record."""
    made = links(changes)
    return fingerprint(made[-1] if made else GENESIS), len(made)
