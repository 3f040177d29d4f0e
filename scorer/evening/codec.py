"""One shape for a hand's facts: :class:`~scorer.rules.HandFacts` ↔ a JSON-ready dict.

The dict is the evening file's hand (``docs/evening-format.md``, the ``hands`` items of
``scorer/schema/evening.schema.json``). Every place that stores or sends a hand uses
this module and nothing else: the evening file, the database (each
:class:`~scorer.storage.models.HandVersion` keeps its facts as one JSON ``facts`` column), the
history (:class:`~scorer.storage.models.Change` ``before``/``after``), the JSON commands
(``docs/api.md``) and the hand form's initial values. Adding a fact to a hand means
the engine's :class:`~scorer.rules.HandFacts`, this codec, and the form.

A player is written through a *reference*: the evening file, the history and the JSON
commands write a seat as the player's name (``names`` given); the database writes the
seat index itself (``names=None``), so renaming a player never rewrites a stored hand.
Every other field is the same in both: a misdeal is ``{"dealer": …, "misdeal": true}``;
otherwise ``auction`` (calls in speaking order) and, when they say something,
``tricks``, ``trump``, ``purchase``, ``widow``, ``peeks``, ``claims``, ``record``; a
``note`` (the table's line of text, on a misdeal too) when there is one; an
``override`` is ``{"entries": {player: units, …}, "pool": units, "reason": text}``
(units are chips or points, the variant's unit).

Pure Python: no Flask, SQLAlchemy or WTForms.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ..rules import Claim, HandFacts, Override

#: Reads one player reference (a name, or a seat index in the database's form) at a
#: place in the data (``"claims"``); returns the seat or raises the caller's error.
SeatReader = Callable[[Any, str], int]

_CLAIM_DETAILS = ("trick", "suit_led", "card", "evidence", "evidence_trick", "cards_held")


def encode_hand(facts: HandFacts, names: Sequence[str] | None = None) -> dict[str, Any]:
    """``facts`` as the evening file's hand dict; seats written as ``names[seat]``, or as
    the seat index (``int``) when ``names`` is ``None`` (the database's form).

    Raises ``IndexError`` if a seat is not one of ``names``.
    """
    def ref(seat: int) -> Any:
        return seat if names is None else names[seat]

    row: dict[str, Any] = {"dealer": ref(facts.dealer)}
    if facts.misdeal:
        row["misdeal"] = True
    else:
        row["auction"] = list(facts.auction)
        if facts.tricks is not None:
            row["tricks"] = facts.tricks
        if facts.trump is not None:
            row["trump"] = facts.trump
        if facts.purchase:
            row["purchase"] = True
        if facts.widow:
            row["widow"] = True
        if facts.peeks:
            row["peeks"] = [ref(s) for s in facts.peeks]
        if facts.claims:
            row["claims"] = [_encode_claim(c, ref) for c in facts.claims]
        if facts.record:
            row["record"] = [list(trick) for trick in facts.record]
    if facts.override is not None:
        # JSON object keys are strings: a seat index is written "0", "1", …
        row["override"] = {"entries": {str(ref(s)): units for s, units in enumerate(facts.override.units)},
                           "pool": facts.override.pool, "reason": facts.override.reason}
    if facts.note:
        row["note"] = facts.note
    return row


def _encode_claim(claim: Claim, ref: Callable[[int], Any]) -> dict[str, Any]:
    out: dict[str, Any] = {"kind": claim.kind, "accused": ref(claim.accused), "upheld": claim.upheld}
    if claim.by is not None:
        out["by"] = ref(claim.by)
    for key in _CLAIM_DETAILS:
        if getattr(claim, key) is not None:
            out[key] = getattr(claim, key)
    if claim.before_speaking:
        out["before_speaking"] = True
    return out


def seat_index(n: int) -> SeatReader:
    """The database's reader: a reference is the seat index (an int, or its string in
    an override's entries), which must be below ``n``. Raises ``ValueError``."""
    def read(value: Any, where: str) -> int:
        seat = int(value)
        if not 0 <= seat < n:
            raise ValueError(f"{where}: seat {seat} is not at the table")
        return seat

    return read


def decode_hand(data: Mapping[str, Any], n: int, seat_of: SeatReader | None = None, *,
                dealer: int | None = None, where: str = "") -> HandFacts:
    """The :class:`HandFacts` that :func:`encode_hand` wrote as ``data``, at a table of
    ``n`` players (an override gets one entry per seat; a player it leaves out, 0).

    ``seat_of(reference, where)`` reads a player reference: by default the database's
    form (:func:`seat_index`); the evening file passes its own, which looks names up. ``dealer``
    is used when ``data`` has none (the evening file lets the rules give it). The data
    is assumed to have the right shape (the evening file checks its schema first); the
    rules are not applied here. Raises whatever ``seat_of`` raises.
    """
    seat_of = seat_of or seat_index(n)
    here = f"{where}." if where else ""
    if "dealer" in data:
        dealer = seat_of(data["dealer"], f"{here}dealer")
    if dealer is None:
        raise ValueError(f"{here}dealer: missing")
    override = data.get("override")
    return HandFacts(
        dealer=dealer,
        auction=tuple(data.get("auction", ())),
        tricks=data.get("tricks"),
        misdeal=bool(data.get("misdeal", False)),
        trump=data.get("trump"),
        purchase=bool(data.get("purchase", False)),
        widow=bool(data.get("widow", False)),
        peeks=tuple(seat_of(p, f"{here}peeks") for p in data.get("peeks", ())),
        claims=tuple(_decode_claim(c, seat_of, f"{here}claims") for c in data.get("claims", ())),
        override=None if override is None else _decode_override(override, n, seat_of, f"{here}override"),
        record=tuple(tuple(trick) for trick in data.get("record", ())),
        note=data.get("note") or "",
    )


def _decode_claim(data: Mapping[str, Any], seat_of: SeatReader, where: str) -> Claim:
    fields = dict(data)
    fields["accused"] = seat_of(data["accused"], where)
    if data.get("by") is not None:
        fields["by"] = seat_of(data["by"], where)
    return Claim(**fields)


def _decode_override(data: Mapping[str, Any], n: int, seat_of: SeatReader, where: str) -> Override:
    entries = {seat_of(ref, where): int(units) for ref, units in data["entries"].items()}
    return Override(units=tuple(entries.get(s, 0) for s in range(n)), reason=data["reason"],
                    pool=int(data.get("pool", 0)))

