"""The shapes every variant shares: bids, the facts of a hand, rulings and errors.

The engine is pure Python: facts in, rulings out. Units are integers (tricks' worth
of the variant's scoring unit, i.e. chips or points); money is ``units × stake`` in
the currency's smallest unit (pence, kopecks, centavos; yen, which have none smaller:
:mod:`.currency`). No floats anywhere.
"""

from __future__ import annotations

import enum
import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .currency import format_amount, minor_digits

PASS = "pass"
#: Tricks in a hand: five cards each (P-2, H-2, R-4, B-3).
TRICKS_PER_HAND = 5

#: Unicode categories never kept in a name: controls, format characters (bidi
#: overrides, zero-width spaces), private use, surrogates, unassigned.
_INVISIBLE = {"Cc", "Cf", "Co", "Cs", "Cn"}


def clean_text(text: str) -> str:
    """A name as typed, made safe to show and compare: NFKC-normalised (so a
    full-width "Ａｎｎ" is "Ann"), invisible and control characters removed (a
    right-to-left override cannot reverse the page), runs of spaces made one."""
    text = unicodedata.normalize("NFKC", text)
    text = "".join(ch for ch in text if unicodedata.category(ch) not in _INVISIBLE or ch in "\t\n")
    return re.sub(r"\s+", " ", text).strip()


#: Unicode's first-strong isolate and pop directional isolate (UAX #9, 2.7): text between
#: them takes its own direction and leaves the direction of the text around it alone.
FSI, PDI = "\u2068", "\u2069"
#: Bidi classes that read right to left, or pull the neutrals beside them that way: Hebrew
#: (R), Arabic letters (AL) and Arabic-Indic digits (AN).
_RIGHT_TO_LEFT = {"R", "AL", "AN"}


def right_to_left(text: str) -> bool:
    """Whether ``text`` holds a character that reads right to left (Arabic, Hebrew, …)."""
    return any(unicodedata.bidirectional(ch) in _RIGHT_TO_LEFT for ch in text)


def isolate(text: str) -> str:
    """``text`` (a player's name, anything typed) made safe to put beside other words and
    numbers: a name that holds right-to-left characters is wrapped in FSI…PDI, so that
    "محمد −12" does not read "12− محمد" and a list of names keeps its order and commas.
    Text that is all left to right (``"Ann"``) is returned as it is, with no invisible marks."""
    if not right_to_left(text) or (text.startswith(FSI) and text.endswith(PDI)):
        return text
    return f"{FSI}{text}{PDI}"


def _isolated(params: Mapping[str, Any]) -> dict[str, Any]:
    """``params`` with every plain string (a player's name, a typed currency) isolated
    (:func:`isolate`); :class:`Text` (translated words) and numbers as they are."""
    return {k: isolate(v) if isinstance(v, str) and not isinstance(v, Text) else v for k, v in params.items()}


def N_(message: str) -> str:
    """Mark an English message template for translation (``pybabel extract`` finds it);
    returns it unchanged. The engine never translates: the web layer does."""
    return message


class Text(str):
    """English text that the web layer can translate.

    A ``Text`` *is* the English string (``str()``, comparisons, JSON and f-strings
    are as before) and also keeps its ``message`` template (``str.format`` fields)
    and ``params``; for a count, ``plural`` is the plural template and ``n`` the
    count. Player names are plain ``str`` params and are never translated; params
    that are ``Text`` themselves (a bid's name, a suit, a nested phrase) are. A plain
    ``str`` param that holds right-to-left characters is isolated in the text
    (:func:`isolate`): ``"{FSI}محمد{PDI} −12"``.
    """

    message: str
    params: Mapping[str, Any]
    plural: str | None
    n: int | None

    def __new__(cls, message: str, /, **params: Any) -> Text:
        self = super().__new__(cls, message.format(**_isolated(params)) if params else message)
        self.message, self.params, self.plural, self.n = message, params, None, None
        return self


def ntext(singular: str, plural: str, n: int, /, **params: Any) -> Text:
    """A :class:`Text` that depends on a count: ``ntext("{n} trick", "{n} tricks", 3)``."""
    text = Text(singular if n == 1 else plural, n=n, **params)
    text.message, text.plural, text.n = singular, plural, n
    return text


def listing(items: Any) -> Text:
    """``"One, Two, Three"`` as a :class:`Text` whose items are translated one by one; a
    list of names (``"Ann, محمد, Cat"``) has each name isolated on its own (:func:`isolate`),
    so that two right-to-left names keep their order and the commas between them."""
    items = list(items)
    template = ", ".join(f"{{i{k}}}" for k in range(len(items)))
    params = {f"i{k}": item for k, item in enumerate(items)}
    return Text(template, **params)


class RulesError(ValueError):
    """Facts that the variant's rules do not allow.

    ``rule`` is the rule id that forbids them (``"P-7"``) or ``None`` when the
    facts are malformed rather than illegal; ``str(error)`` is a message for users.
    """

    def __init__(self, message: str, rule: str | None = None) -> None:
        super().__init__(message)
        self.rule = rule
        self.message = message

    def __str__(self) -> str:
        return f"{self.message} ({self.rule})" if self.rule else self.message


class IllegalAuction(RulesError):
    """The recorded auction breaks a rule of the variant (a bid not allowed, not
    higher than an earlier one, out of order, …)."""


class IllegalFacts(RulesError):
    """Other facts of a hand that cannot be (7 tricks, a dealer who is not seated, …)."""


class IllegalSetup(RulesError):
    """An evening's set-up that the variant does not allow (player count, options)."""


@dataclass(frozen=True)
class Bid:
    """A bid of the variant's ladder.

    ``id`` is the stored call (``"four"``, ``"nap"``); ``name`` the English name
    shown to users; ``tricks`` the tricks the declarer must win (1–5); ``rank`` its
    place in the ladder (higher outbids lower).
    """

    id: str
    name: str
    tricks: int
    rank: int


#: Every bid any variant knows. ``rank`` orders the bids within a variant's ladder.
BIDS: dict[str, Bid] = {
    b.id: b
    for b in (
        Bid("one", Text("One"), 1, 10),
        Bid("two", Text("Two"), 2, 20),
        Bid("three", Text("Three"), 3, 30),
        Bid("misere", Text("Misère"), 0, 35),  # other-sources.md: between Three and Four; lose every trick
        Bid("four", Text("Four"), 4, 40),
        Bid("five", Text("Five"), 5, 50),  # russian36: a plain five
        Bid("nap", Text("Nap"), 5, 50),
        Bid("napoleon", Text("Napoleon"), 5, 55),  # russian36 R-7: a five "for Napoleon" outranks a plain five
        Bid("garnet", Text("Sir Garnet"), 5, 55),  # hoyle H-19: takes the widow instead of an ordinary bid
        Bid("wellington", Text("Wellington"), 5, 60),
        Bid("blucher", Text("Blücher"), 5, 70),
    )
}

#: The dealer's «Здесь» in russian36 (R-6): holds the current highest bid at the same level.
HERE = "here"
#: The pool (kitty, treasure) as a party of the ledger.
POOL = "pool"


@dataclass(frozen=True)
class TableState:
    """What one hand leaves for the next, besides the totals.

    ``pool`` is the chips in the pool or treasure; ``pool_open`` whether the
    current pool's opening stakes are paid (H-16); ``double_next`` whether the next
    hand's payments are doubled (Peel's "double header" when everyone passed).
    """

    pool: int = 0
    pool_open: bool = False
    double_next: bool = False


@dataclass(frozen=True)
class Stake:
    """The money value of one unit: ``minor`` of the currency's own smallest unit (10
    for 10p, 5 for 5 yen, 125 for 0.125 KWD) and a ``currency`` label shown beside
    amounts (``"£"``, ``"RUB"``, ``"JPY"``); :attr:`digits` says how many decimals
    the currency has (:mod:`scorer.rules.currency`: ISO 4217's minor unit; 2 for a
    label that is no currency code)."""

    minor: int
    currency: str = ""

    @property
    def digits(self) -> int:
        """Decimals of the stake's currency: 2 for ``£``, 0 for ``JPY``, 3 for ``KWD``."""
        return minor_digits(self.currency)

    def format(self, minor_units: int) -> Amount:
        """Format an amount in minor units as ``"−£1.20"``, ``"JPY 5"``, ``"KWD 0.125"``
        (the currency's own decimals, a real minus sign).

        The result is an :class:`Amount`: the English text, which also keeps the stake and
        the amount so that the web layer can format it for the phone's language."""
        sign = "−" if minor_units < 0 else ""
        label = f"{self.currency} " if self.currency[-1:].isalpha() else self.currency  # "RUB 1.00", "£1.00"
        return Amount(f"{sign}{label}{format_amount(minor_units, self.digits)}", self, minor_units)


class Amount(str):
    """An amount of money as English text (``"−£1.20"``) that remembers its ``stake`` and
    ``minor`` units, so that a page can show it in the phone's language instead."""

    stake: Stake
    minor: int

    def __new__(cls, text: str, stake: Stake, minor: int) -> Amount:
        self = super().__new__(cls, text)
        self.stake, self.minor = stake, minor
        return self


@dataclass(frozen=True)
class EveningSetup:
    """What the table agreed before the first deal.

    ``variant`` is a variant id (``"pagat"``, ``"hoyle"``); ``options`` the
    variant's options, already resolved (every key present); ``players`` names in
    seat order, clockwise (so "left of the dealer" is the next seat);
    ``first_dealer`` a seat index; ``stake`` ``None`` for a points-only evening.
    ``seated``: the seats at the table for the first deal, clockwise, when some of
    ``players`` only join later (:class:`SeatChange`); ``None`` means all of them, in
    seat order.
    """

    variant: str
    players: tuple[str, ...]
    first_dealer: int = 0
    options: Mapping[str, Any] = field(default_factory=dict)
    stake: Stake | None = None
    seated: tuple[int, ...] | None = None

    @property
    def n(self) -> int:
        """Number of players (everyone who sits at the table during the evening)."""
        return len(self.players)

    @property
    def seated_at_start(self) -> tuple[int, ...]:
        """The seats at the table for the first deal, clockwise."""
        return tuple(range(self.n)) if self.seated is None else self.seated


#: The kinds of :class:`SeatChange`.
SEAT_CHANGE_KINDS = ("join", "leave", "rename")


@dataclass(frozen=True)
class SeatChange:
    """Who sits at the table changes between hands (issue 12, "People come and go").

    ``before_hand``: the hand it comes before (1-based: ``9`` is "before hand 9", after
    the 8 hands played so far). ``kind``: ``"join"`` (``seat`` takes a place at the
    table, on the left of the seated player ``left_of``, and plays from the next hand;
    a newcomer starts at 0, a player who comes back keeps their total), ``"leave"``
    (``seat`` stops playing and keeps their total) or ``"rename"`` (``name`` is the name
    ``seat`` had until then: the engine ignores it, names are the set-up's). Seats are
    indices into :attr:`EveningSetup.players`.
    """

    before_hand: int
    kind: str
    seat: int
    left_of: int | None = None
    name: str = ""


@dataclass(frozen=True)
class Claim:
    """A claimed irregularity, recorded as a fact of the hand with the table's decision.

    ``kind`` is ``"revoke"`` (failing to follow suit while able; in ``russian36``
    also failing to trump, R-11; in ``napoleao`` trumping while able to follow,
    B-17), ``"wrong_cards"`` (H-13) or ``"out_of_turn"`` (H-14). ``accused`` and
    ``by`` are seats; ``trick`` 1–5. ``upheld`` is the table's decision: a rejected
    claim changes nothing. Revoke details: ``suit_led``, ``card`` played and the
    ``evidence`` (a later card of that suit) with ``evidence_trick``, the trick it
    was played to: with it the claim is a partial record of play that the engine
    reads (:func:`scorer.rules.play.read_claim_cards`). Wrong cards: ``cards_held`` and
    whether it was said ``before_speaking`` (then it is a misdeal).
    """

    kind: str
    accused: int
    upheld: bool
    by: int | None = None
    trick: int | None = None
    suit_led: str | None = None
    card: str | None = None
    evidence: str | None = None
    cards_held: int | None = None
    before_speaking: bool = False
    evidence_trick: int | None = None


@dataclass(frozen=True)
class Override:
    """The table overruling the engine: ``units`` per seat (and ``pool``) replace the
    ruling's entries, for the written ``reason``. In a money variant they must sum
    to zero with the pool."""

    units: tuple[int, ...]
    reason: str
    pool: int = 0


@dataclass(frozen=True)
class HandFacts:
    """What happened in one hand, as the table recorded it.

    ``dealer`` is a seat index. ``auction`` is the calls in speaking order
    (``"pass"``, a bid id, or ``"here"``); for the one-round auctions of
    ``pagat``, ``hoyle`` and ``napoleao`` it starts with eldest hand and has one
    call per player; in ``russian36`` it starts with the dealer and goes round
    until all but one have passed (R-5). ``tricks`` is the number of tricks the
    declarer won (0–5), ``None`` when nobody bid. ``misdeal`` marks a deal found
    irregular: nothing else is looked at.

    Variant facts: ``trump`` the suit the declarer named (``napoleao`` B-7: one of
    S H D C); ``purchase`` the declarer bought a card from the stock (``russian36``
    R-9); ``widow`` the declarer took the widow (``hoyle`` H-17, H-18);
    ``peeks`` the seats that paid to look at the Peep Nap card (H-18);
    ``claims`` the irregularities claimed, each with the table's decision;
    ``override`` the table's own figures replacing the ruling's, with a reason;
    ``record`` the cards played to each trick, in order from the leader (optional);
    ``note`` the table's line of free text about the hand ("replayed after a spilled
    drink"; at most 280 characters, one line): it never changes a ruling (issue 25 item 7).
    """

    dealer: int
    auction: tuple[str, ...] = ()
    tricks: int | None = None
    misdeal: bool = False
    trump: str | None = None
    purchase: bool = False
    widow: bool = False
    peeks: tuple[int, ...] = ()
    claims: tuple[Claim, ...] = ()
    override: Override | None = None
    record: tuple[tuple[str, ...], ...] = ()
    note: str = ""


class Result(enum.Enum):
    """How a hand ended."""

    MADE = "made"
    DEFEATED = "defeated"
    ALL_PASSED = "all passed"
    MISDEAL = "misdeal"


@dataclass(frozen=True)
class Reason:
    """One step of a ruling: the rule id applied and what it decided.

    ``message`` is an English template with ``{name}`` fields filled from
    ``params`` (kept apart so that the web layer can translate the template and
    the params that are :class:`Text`; player names stay as they are).
    """

    rule: str
    message: str
    params: Mapping[str, Any] = field(default_factory=dict)

    @property
    def text(self) -> Text:
        """The English sentence (a :class:`Text`, so a page that prints it shows it translated)."""
        return Text(self.message, **self.params)


@dataclass(frozen=True)
class Ruling:
    """The engine's decision on one hand.

    ``units`` holds each seat's change in units (chips or points), in seat order;
    ``pool`` the pool's change (positive when chips go into it). In every money
    hand ``sum(units) + pool == 0`` (points variants such as ``napoleao`` award
    points and need not). ``state_after`` is what the next hand starts from.
    ``next_dealer`` is the seat that deals next;
    ``shuffle`` says the next dealer must shuffle (P-4). ``counts`` says whether
    the hand counts towards an agreed end point (P-14).
    """

    result: Result
    dealer: int
    declarer: int | None
    contract: Bid | None
    tricks: int | None
    units: tuple[int, ...]
    reasons: tuple[Reason, ...]
    next_dealer: int
    pool: int = 0
    shuffle: bool = False
    counts: bool = True
    state_after: TableState = TableState()
    #: the engine's own entries when the table overruled them (``None`` otherwise)
    overruled: tuple[tuple[int, ...], int] | None = None
    #: the claims as decided: by the table, or by the record of play where it proves or disproves them
    claims: tuple[Claim, ...] = ()
    #: each seat's movements with the pool (treasure) in units, within ``units``: negative
    #: for stakes, top-ups, antes, fines and doublings paid in (H-16, H-18, R-2, R-16),
    #: positive for a pool taken (H-16, R-15). Empty when nobody paid in or out, and when
    #: the table overruled the ruling (its figures are not split).
    pool_units: tuple[int, ...] = ()

    @property
    def contract_units(self) -> tuple[int, ...]:
        """Each seat's change from the contract alone (the players paying one another,
        P-12, H-11, R-13 …): ``units`` less the pool movements (``pool_units``)."""
        if not self.pool_units:
            return self.units
        return tuple(u - p for u, p in zip(self.units, self.pool_units))

    @property
    def rule_ids(self) -> tuple[str, ...]:
        """The rule ids applied, in order, without repeats."""
        return tuple(dict.fromkeys(r.rule for r in self.reasons))

    def money(self, stake: Stake | None) -> tuple[int, ...] | None:
        """Each seat's change in minor currency units, or ``None`` for points only."""
        if stake is None:
            return None
        return tuple(u * stake.minor for u in self.units)
