"""A group's season: the evenings' ledgers added up per player (pure Python, no Flask).

Input: the group's evenings, each with its settled :class:`~scorer.evening.ledger.Ledger`
(``scorer.storage.evenings.ledger_of``), and the group's merged spellings. Output: the
**books** of the season. Money and points are never added together: a book is one
variant played for points, or one variant at one stake in one currency, and each
book has its own table, columns and chart.

Units: a player's totals are the ledger's units (chips or points, the variant's
unit, see :mod:`scorer.evening.ledger`); in a money book ``money`` is units × the book's
stake, in the currency's smallest unit (pence, kopecks). The pool (chips still in
it at the end of an evening) belongs to nobody and is not in any player's total,
exactly as in the evening's own ledger totals.

Players are recognised across evenings by name: :func:`name_key` (trimmed, inner
spaces collapsed, Unicode NFC, casefolded), so "Åse", "åse" and "Åse " (typed with a
combining ring) are one player; a merge (``aliases``: alias key → canonical key)
makes two spellings one player. Merges are followed transitively (Bobby → Bob →
Robert) and never change an evening: they only change how the season counts it.
"""

from __future__ import annotations

import functools
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from itertools import accumulate

from ..rules import EveningSetup, Stake
from .ledger import Ledger


@functools.lru_cache(maxsize=4096)
def name_key(name: str) -> str:
    """The key that recognises a player across evenings: ``"  Ann  Marie "`` and
    ``"ann marie"`` give the same key; so do the composed and decomposed forms of
    an accented letter."""
    text = " ".join(unicodedata.normalize("NFC", name).split())
    return unicodedata.normalize("NFC", text.casefold())


def resolve(key: str, aliases: Mapping[str, str]) -> str:
    """Follow the merges from ``key`` to the player it counts as (a merge chain that
    loops back stops where it would repeat, so a bad mapping cannot hang)."""
    seen = {key}
    while key in aliases and aliases[key] not in seen:
        key = aliases[key]
        seen.add(key)
    return key


@dataclass(frozen=True)
class EveningResult:
    """What the season reads of an evening's settled ledger, and nothing more: its
    ``setup`` (players, variant, stake), the players' ``totals`` (units, by seat), the
    ``winners`` (seats; as :attr:`~scorer.evening.ledger.Ledger.winners`) and how many
    ``hands`` are in play. Small enough to be kept in the database for every process
    (``scorer.storage.kept_results``, issue 23 item 4)."""

    setup: EveningSetup
    totals: tuple[int, ...]
    winners: tuple[int, ...]
    hands: int

    @classmethod
    def of(cls, ledger: Ledger) -> EveningResult:
        """The result of a settled ledger."""
        return cls(ledger.setup, tuple(ledger.totals), tuple(ledger.winners), len(ledger.rows))


def hands_of(ledger: Ledger | EveningResult) -> int:
    """How many hands are in play in a ledger or a result."""
    return ledger.hands if isinstance(ledger, EveningResult) else len(ledger.rows)


@dataclass(frozen=True)
class SeasonEvening:
    """One evening of the group, as the season reads it: ``key`` (its URL key),
    ``name``, ``played_on`` and its settled ``ledger`` (or only its
    :class:`EveningResult`: the season reads nothing else)."""

    key: str
    name: str
    played_on: date
    ledger: Ledger | EveningResult


@dataclass(frozen=True)
class BookKey:
    """What keeps books apart: the ``variant`` id and, for money, the ``currency``
    label and ``stake_minor`` (the value of one unit in minor units); both are
    ``""``/``None`` for points."""

    variant: str
    currency: str = ""
    stake_minor: int | None = None

    @property
    def stake(self) -> Stake | None:
        return None if self.stake_minor is None else Stake(self.stake_minor, self.currency)


def book_key(ledger: Ledger | EveningResult) -> BookKey:
    """The book an evening's ledger belongs to."""
    stake = ledger.setup.stake
    if stake is None:
        return BookKey(ledger.setup.variant)
    return BookKey(ledger.setup.variant, stake.currency, stake.minor)


@dataclass(frozen=True)
class SeasonPlayer:
    """One player's season in one book.

    ``key`` is the name key after merges; ``name`` the spelling shown (of the
    spellings whose own key is the player's key, the one used at most evenings,
    the latest on a tie; else the same among the merged spellings);
    ``spellings`` every spelling used, in order of first use. ``results[i]`` is the
    player's total at the book's evening ``i`` in units, ``None`` if they did not
    play it; ``cumulative[i]`` the running season total after evening ``i`` (units,
    unchanged over evenings they missed). ``total`` is the season total in units,
    ``money`` the same in minor currency units (``None`` for points), ``played`` and
    ``won`` count evenings (a shared win counts for each winner; an evening with no
    hands has no winner).
    """

    key: str
    name: str
    spellings: tuple[str, ...]
    results: tuple[int | None, ...]
    cumulative: tuple[int, ...]
    total: int
    money: int | None
    played: int
    won: int
    place: int


@dataclass(frozen=True)
class Book:
    """A season table: ``key`` (variant and stake), the ``evenings`` in order of
    play, and ``players`` best first (equal totals share a ``place``)."""

    key: BookKey
    evenings: tuple[SeasonEvening, ...]
    players: tuple[SeasonPlayer, ...]

    @property
    def stake(self) -> Stake | None:
        return self.key.stake

    @property
    def hands(self) -> int:
        """Hands played in the book's evenings."""
        return sum(hands_of(e.ledger) for e in self.evenings)


def seat_keys(players: Sequence[str], aliases: Mapping[str, str]) -> list[str]:
    """The season key of each seat of one evening. Two seats of one evening are
    always two players: if a merge would make them one, that merge is ignored for
    this evening (each keeps its own spelling's key), and two seats whose names are
    the same key (which the app's forms refuse) are told apart by seat number."""
    own = [name_key(n) for n in players]
    merged = [resolve(k, aliases) for k in own]
    keys = [m if merged.count(m) == 1 else o for m, o in zip(merged, own, strict=True)]
    out: list[str] = []
    for seat, k in enumerate(keys):
        out.append(k if k not in out else f"{k}\x00{seat}")
    return out


def season_books(evenings: Sequence[SeasonEvening], aliases: Mapping[str, str] | None = None) -> list[Book]:
    """Add up the evenings into books.

    ``evenings`` in any order: each book lists its evenings by ``played_on`` (evenings
    of one day in the order given). ``aliases`` maps a name key to the key it is
    merged into. Books come in order of their first evening (then variant and
    stake). Every player's ``total`` is the sum of their ledger totals over the
    book's evenings, so a book's totals add up to the sum of its evenings'.
    Raises ``ValueError`` if an evening's ledger has no set-up players.
    """
    aliases = dict(aliases or {})
    ordered = sorted(enumerate(evenings), key=lambda pair: (pair[1].played_on, pair[0]))
    grouped: dict[BookKey, list[SeasonEvening]] = {}
    for _, evening in ordered:
        if not evening.ledger.setup.players:
            raise ValueError(f"evening {evening.key!r} has no players")
        grouped.setdefault(book_key(evening.ledger), []).append(evening)
    books = [_book(key, tuple(items), aliases) for key, items in grouped.items()]
    return books


def _book(key: BookKey, evenings: tuple[SeasonEvening, ...], aliases: Mapping[str, str]) -> Book:
    """One book of ``evenings`` (in order of play). The evenings are taken a seating at a
    time (the same names in the same seats, as a club plays evening after evening): each
    seating's keys and spellings are worked out once, and its evenings' totals are turned
    into the players' columns in one go, so a season of a thousand evenings is not a
    thousand evenings of work per player (issue 23 item 4)."""
    n = len(evenings)
    seatings: dict[tuple[str, ...], list[int]] = {}  # players by seat → the evenings they sat so
    wins: dict[str, int] = {}
    for i, evening in enumerate(evenings):
        seatings.setdefault(evening.ledger.setup.players, []).append(i)
    results: dict[str, list[int | None]] = {}
    spellings: dict[str, list[str]] = {}
    uses: dict[str, dict[str, tuple[int, int]]] = {}  # key → spelling → (evenings, last evening)
    for players, indices in seatings.items():  # in order of each seating's first evening
        keys = seat_keys(players, aliases)
        columns = zip(*(evenings[i].ledger.totals for i in indices))
        whole = len(indices) == n
        for pkey, name, column in zip(keys, players, columns, strict=True):
            row = results.get(pkey)
            if row is None:
                row = results[pkey] = [None] * n
                spellings[pkey], uses[pkey], wins[pkey] = [], {}, 0
            if whole:
                row[:] = column
            else:
                for i, value in zip(indices, column):
                    row[i] = value
            shown = " ".join(name.split())
            if shown not in spellings[pkey]:
                spellings[pkey].append(shown)
            count, last = uses[pkey].get(shown, (0, -1))
            uses[pkey][shown] = (count + len(indices), max(last, indices[-1]))
        for i in indices:
            ledger = evenings[i].ledger
            if hands_of(ledger):
                for seat in set(ledger.winners):
                    wins[keys[seat]] += 1
    players_out = []
    for pkey, row in results.items():
        cumulative = tuple(accumulate(0 if value is None else value for value in row))
        players_out.append((pkey, row, cumulative, cumulative[-1] if cumulative else 0))
    totals = [p[3] for p in players_out]
    out = []
    for pkey, row, cumulative, total in players_out:
        out.append(SeasonPlayer(
            key=pkey,
            name=_shown_name(pkey, uses[pkey]),
            spellings=tuple(spellings[pkey]),
            results=tuple(row),
            cumulative=cumulative,
            total=total,
            money=None if key.stake_minor is None else total * key.stake_minor,
            played=n - row.count(None),
            won=wins.get(pkey, 0),
            place=1 + sum(t > total for t in totals),
        ))
    out.sort(key=lambda p: (p.place, p.name.casefold(), p.key))
    return Book(key, evenings, tuple(out))


def _shown_name(key: str, uses: Mapping[str, tuple[int, int]]) -> str:
    """The spelling to show for player ``key``: the most used (then latest) of those
    whose own key is ``key``, else of all of them (a player known only by merged
    spellings)."""
    own = {s: u for s, u in uses.items() if name_key(s) == key.split("\x00")[0]} or uses
    return max(own, key=lambda s: own[s])


def spellings_in(tables: Sequence[Sequence[str]]) -> dict[str, str]:
    """Every name key used at the ``tables`` (each evening's players, in order of
    play) → its latest spelling: for choosing names to merge, and showing a merge."""
    out: dict[str, str] = {}
    for players in tables:
        for name in players:
            out[name_key(name)] = " ".join(name.split())
    return out


def shared_table(tables: Sequence[Sequence[str]], aliases: Mapping[str, str], alias: str,
                 canonical: str) -> int | None:
    """The index of the first of the ``tables`` (each evening's players) at which the
    players ``alias`` and ``canonical`` (name keys, each with the players already
    merged into it) sat together, so they cannot be one person; ``None`` if none."""
    one, other = resolve(alias, aliases), resolve(canonical, aliases)
    for index, players in enumerate(tables):
        keys = {resolve(name_key(n), aliases) for n in players}
        if one in keys and other in keys:
            return index
    return None
