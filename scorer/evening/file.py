"""The JSON evening file: read and write an evening's facts (pure Python).

Format: ``docs/evening-format.md``; JSON Schema: ``scorer/schema/evening.schema.json``.
The file holds facts only; :func:`scorer.evening.ledger.settle_evening` turns them into the
ledger, so importing an export reproduces the same ledger exactly.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from datetime import date
from functools import cache
from importlib import resources
from typing import Any

import jsonschema

from ..rules import EveningSetup, HandFacts, RulesError, SeatChange, Stake, Text, clean_text, get_variant, ntext
from ..rules.cards import parse_card
from . import chain
from .codec import decode_hand, encode_hand
from .ledger import Fold, HandError, Ledger
from .limits import MAX_FILE_BYTES, MAX_HANDS, MAX_PLAYERS, MAX_SEAT_CHANGES, NOTE_LIMIT, check_nesting, mebibytes
from .seat_names import seated_name_clash
from .stakes import format_stake, parse_stake, stake_minor, too_fine  # noqa: F401 - the file's stakes, imported from here
from .zones import valid_zone

FORMAT = "nap-evening"
#: The version written when the evening has seat changes; without any, version 1 (which
#: every reader takes) is written. Both are read.
VERSION = 2
#: The evening's bounds (the largest file, hands, seat changes, players) are
#: :mod:`scorer.evening.limits`.


class EveningFileError(ValueError):
    """An evening file that cannot be read: bad JSON, wrong shape or illegal facts.

    ``where`` says which part of the file (``"hands[3].auction"``); ``rule`` the
    rule id when the rules refused it; ``message`` the message alone (a
    :class:`~scorer.rules.Text` where the web app can translate it).
    """

    def __init__(self, message: str, where: str = "", rule: str | None = None) -> None:
        super().__init__(f"{where}: {message}" if where else message)
        self.message = message
        self.where = where
        self.rule = rule


@dataclass
class EveningFile:
    """An evening as read from a file: set-up, hands (facts) and a few labels."""

    setup: EveningSetup
    hands: list[HandFacts] = field(default_factory=list)
    name: str = ""
    date: str | None = None
    place: str | None = None
    finished: bool = False
    #: H-3 / B-2: the card each seat drew for the first deal, in seat order (or empty)
    draw: list[str] = field(default_factory=list)
    #: who joined, left or was renamed between hands (version 2), in order; seats index
    #: ``setup.players``, where players who join later follow those at the first deal
    changes: list[SeatChange] = field(default_factory=list)
    #: the table's IANA time zone ("America/Sao_Paulo"), or None (the importing phone's)
    time_zone: str | None = None
    #: the table's line of free text about the evening ("" for none; issue 25 item 7)
    note: str = ""


@cache
def schema() -> dict[str, Any]:
    """The JSON Schema of the evening file (draft 2020-12), its ``maxItems`` of ``hands`` and
    ``seats`` those of :mod:`scorer.evening.limits` (the published file says the same; a test
    checks it)."""
    text = resources.files("scorer").joinpath("schema/evening.schema.json").read_text("utf-8")
    data = json.loads(text)
    data["properties"]["hands"]["maxItems"] = MAX_HANDS
    data["properties"]["seats"]["maxItems"] = MAX_SEAT_CHANGES
    data["properties"]["chain"]["maxItems"] = MAX_HANDS + MAX_SEAT_CHANGES + 2  # the set-up and the finish
    return data


def loads(text: str | bytes, *, check_chain: bool = True) -> EveningFile:
    """Read an evening from JSON text of at most :data:`MAX_FILE_BYTES` (in UTF-8); see
    :func:`load`. Raises :class:`EveningFileError`."""
    size = len(text.encode("utf-8", "surrogatepass") if isinstance(text, str) else text)
    if size > MAX_FILE_BYTES:
        raise EveningFileError(Text("An evening file is at most {mib} MB ({limit} bytes); this one has {size} bytes.",
                                    mib=mebibytes(MAX_FILE_BYTES), limit=MAX_FILE_BYTES, size=size))
    try:
        check_nesting(text)  # before parsing: the phone's parser would overflow its stack
        data = json.loads(text)
    except (ValueError, RecursionError) as error:  # bad JSON, bad UTF-8, absurd nesting or numbers
        raise EveningFileError(Text("This is not a JSON file ({detail}).", detail=_short(str(error)))) from None
    return load(data, check_chain=check_chain)


def _short(text: str, limit: int = 160) -> str:
    """``text`` cut to ``limit`` characters, so a huge bad value is not echoed back whole."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def load(data: Any, *, check_chain: bool = True) -> EveningFile:
    """Check ``data`` (parsed JSON) against the schema and the rules.

    Returns an :class:`EveningFile` whose hands all settle. A hand without a
    ``dealer`` gets the dealer the rules give (the deal passes left; after a
    misdeal the same dealer deals again). Raises :class:`EveningFileError`, also for
    a rename that had two seated players share a name (:func:`.seat_names.seated_name_clash`),
    and, unless ``check_chain`` is false, for a ``chain`` (:mod:`scorer.evening.chain`) that does not
    match the facts, naming the first change altered (``where``: ``"chain"``; no chain, no check).
    """
    evening = _load(data)
    if check_chain and isinstance(data, dict) and "chain" in data:
        verdict = chain.check_written(record_of(evening), data)
        if not verdict.whole:
            raise EveningFileError(Text("This file's record does not match its facts: it was altered from "
                                        "{where}. A file changed on purpose imports without its chain and "
                                        "fingerprint (remove both), under a new fingerprint.", where=verdict.where),
                                   "chain")
    return evening


def record_of(evening: EveningFile) -> list[chain.Change]:
    """The evening's record (:func:`scorer.evening.chain.record`): its set-up, changes of
    seats and hands in order, then the finish."""
    return chain.record(evening.setup, evening.hands, evening.changes, draw=evening.draw, finished=evening.finished)


def _load(data: Any) -> EveningFile:
    """:func:`load` without the chain."""
    _check_shape(data)
    seated = tuple(_cleaned(p, 40, f"players[{i}]") for i, p in enumerate(data["players"]))
    players = _everyone(seated, data.get("seats", ()))
    seat_of = seat_reader(players)
    changes = _read_seats(data.get("seats", ()), seat_of)

    stake = None
    if data.get("stake") is not None:
        currency = _cleaned(data["stake"].get("currency", ""), 8, "stake.currency")
        try:  # in the currency's own minor unit: "5.00" JPY (an older file) is 5 yen, as "5"
            minor = parse_stake(data["stake"]["amount"], currency)
        except ValueError as error:
            raise EveningFileError(error.args[0], "stake.amount") from None
        stake = Stake(minor, currency)
    first = seat_of(data["first_dealer"], "first_dealer") if "first_dealer" in data else 0
    draw: list[str] = []
    try:
        variant = get_variant(data["variant"])
        if "draw" in data:
            cards = {seat_of(name, "draw"): card for name, card in data["draw"].items()}
            if sorted(cards) != list(range(len(seated))):
                raise EveningFileError(Text("Give the card every player drew."), "draw")
            draw = [str(parse_card(cards[s])) for s in range(len(seated))]
            drawn_first = variant.dealer_by_draw(draw)[0]
            if "first_dealer" in data and drawn_first != first:
                raise EveningFileError(Text("The draw makes {drawn} the first dealer, not {first}.",
                                            drawn=players[drawn_first], first=players[first]), "first_dealer")
            first = drawn_first
        setup = variant.check_setup(EveningSetup(data["variant"], players, first, data.get("options", {}), stake,
                                                 None if len(players) == len(seated) else tuple(range(len(seated)))))
    except RulesError as error:
        raise EveningFileError(error.message, "setup", error.rule) from None
    clash = seated_name_clash(setup, changes)  # issue 25 item 11: unique at the table, renames too
    if clash is not None:
        raise EveningFileError(clash[1], f"seats[{clash[0]}]")
    fold = Fold(setup)
    pending = list(enumerate(changes))
    for i, hand in enumerate(data["hands"]):
        pending = _change_seats(fold, pending, i + 1)
        _check_not_over(fold.ledger(), i)
        facts = read_hand(hand, players, dealer=fold.next_dealer, where=f"hands[{i}]", seat_of=seat_of)
        try:
            fold.add(facts)
        except HandError as error:
            raise EveningFileError(Text("Hand {number}: {message}", number=i + 1, message=error.error.message),
                                   f"hands[{i}]", error.rule) from None
    _change_seats(fold, pending, None)
    hands = [row.facts for row in fold.rows]
    return EveningFile(
        changes=changes,
        setup=setup,
        hands=hands,
        name=_cleaned(data.get("name", ""), 80, "name"),
        date=data.get("date"),
        place=_cleaned(data.get("place", ""), 80, "place") or None,
        time_zone=_zone(data.get("time_zone")),
        draw=draw,
        finished=data.get("finished", False),
        note=_cleaned(data.get("note", ""), NOTE_LIMIT, "note"),
    )


def _zone(name: Any) -> str | None:
    """The file's ``time_zone`` if this machine knows it; raises :class:`EveningFileError`."""
    if name is None:
        return None
    zone = valid_zone(name)
    if not zone:
        raise EveningFileError(Text("{zone} is not a time zone this server knows (write it as "
                                    "\"Europe/London\").", zone=_short(json.dumps(name, ensure_ascii=False), 40)),
                               "time_zone")
    return zone


def _everyone(seated: tuple[str, ...], seats: Any) -> tuple[str, ...]:
    """The players at the first deal, then each newcomer of ``seats`` (by first join)."""
    players = list(seated)
    known = {clean_text(p).casefold() for p in seated}
    for i, item in enumerate(seats):
        if "join" in item:
            name = _cleaned(item["join"], 40, f"seats[{i}].join")
            if name.casefold() not in known:
                known.add(name.casefold())
                players.append(name)
                if len(players) > MAX_PLAYERS:
                    raise EveningFileError(Text("An evening names at most {limit} players; this one has more.",
                                                limit=MAX_PLAYERS), f"seats[{i}].join")
    return tuple(players)


def _read_seats(seats: Any, seat_of: Callable[[Any, str], int]) -> list[SeatChange]:
    """The file's ``seats`` as :class:`SeatChange` s, which must come in hand order."""
    changes: list[SeatChange] = []
    for i, item in enumerate(seats):
        where, before = f"seats[{i}]", item["before_hand"]
        if changes and before < changes[-1].before_hand:
            raise EveningFileError(Text("Seat changes are listed in the order of the hands."), where)
        if "join" in item:
            changes.append(SeatChange(before, "join", seat_of(item["join"], where), seat_of(item["left_of"], where)))
        elif "leave" in item:
            changes.append(SeatChange(before, "leave", seat_of(item["leave"], where)))
        else:
            changes.append(SeatChange(before, "rename", seat_of(item["rename"], where),
                                      name=_cleaned(item["from"], 40, f"{where}.from")))
    return changes


def _change_seats(fold: Fold, pending: list[tuple[int, SeatChange]], before: int | None
                  ) -> list[tuple[int, SeatChange]]:
    """Fold in the seat changes of ``pending`` that come before hand ``before`` (all of them
    when ``None``); returns those left. Raises :class:`EveningFileError`."""
    while pending and (before is None or pending[0][1].before_hand <= before):
        i, change = pending.pop(0)
        if change.before_hand > len(fold.rows) + 1:
            raise EveningFileError(Text("This change of seats comes after the last hand."), f"seats[{i}]")
        try:
            fold.change_seats(change)
        except RulesError as error:
            raise EveningFileError(error.message, f"seats[{i}]", error.rule) from None
    return pending


def _check_player_count(data: Any) -> None:
    """Refuse a player count outside the variant's range citing its rule (P-1, H-1, R-1,
    B-1), before the schema's own bounds (2 to 6 names) can answer with no rule."""
    if not isinstance(data, dict) or not isinstance(data.get("players"), list):
        return
    try:
        variant = get_variant(data.get("variant"))  # type: ignore[arg-type]
    except (KeyError, TypeError, ValueError):
        return  # an unknown variant: the schema names the ones there are
    n = len(data["players"])
    if not variant.min_players <= n <= variant.max_players:
        raise EveningFileError(
            Text("{name} is for {low} to {high} players, not {n}.", name=variant.name, low=variant.min_players,
                 high=variant.max_players, n=n), "players", variant.rule_players)


def _check_shape(data: Any) -> None:
    """Check ``data`` against the schema (and its date); raise :class:`EveningFileError`
    naming the first place that is wrong."""
    _check_player_count(data)
    validator = jsonschema.Draft202012Validator(schema())
    try:
        errors = sorted(validator.iter_errors(data), key=lambda e: [str(p) for p in e.absolute_path])
    except RecursionError:
        raise EveningFileError(Text("This file is nested far too deeply to be an evening.")) from None
    if errors:
        err = jsonschema.exceptions.best_match(errors)
        where = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in err.absolute_path).lstrip(".")
        raise EveningFileError(_schema_message(err), where or "file")
    if "date" in data:
        try:
            date.fromisoformat(data["date"])
        except ValueError:
            raise EveningFileError(Text("{value} is not a date (YYYY-MM-DD).", value=repr(data["date"])),
                                   "date") from None


def _check_not_over(ledger: Ledger, i: int) -> None:
    """Raise :class:`EveningFileError` if the evening was over before hand ``i + 1``
    (P-14, B-14: the agreed hands were played, or a player reached the target)."""
    variant, setup = ledger.variant, ledger.setup
    target_score = variant.target_score(setup.options)
    if target_score is not None and max(ledger.totals) >= target_score:
        raise EveningFileError(
            Text("A player reached the target of {target} before hand {number}; no more hands can follow.",
                 target=target_score, number=i + 1), f"hands[{i}]", variant.rule_end)
    if ledger.deals_owed is not None and ledger.hands_remaining == 0:
        raise EveningFileError(
            Text("Every player had dealt the agreed {each} counted hands before hand {number}; no more hands can "
                 "follow.", each=variant.deals_each(setup), number=i + 1), f"hands[{i}]", variant.rule_end)
    if ledger.hands_remaining == 0:
        raise EveningFileError(
            Text("The agreed {target} hands were played before hand {number}; no more hands can follow.",
                 target=ledger.hands_to_play, number=i + 1), f"hands[{i}]", variant.rule_end)


def seat_reader(players: Sequence[str]) -> Callable[[Any, str], int]:
    """The reader of a player reference by name (the evening file's and the JSON
    commands' form, :data:`scorer.evening.codec.SeatReader`): capitals, spaces and accents typed
    two ways do not matter. Raises :class:`EveningFileError` for anyone not at the table."""
    seats = {clean_text(p).casefold(): i for i, p in enumerate(players)}

    def seat_of(name: Any, where: str) -> int:
        try:
            return seats[clean_text(name).casefold()]
        except (KeyError, TypeError, AttributeError):
            raise EveningFileError(Text("{name} is not one of the players.", name=_short(repr(name), 40)),
                                   where) from None

    return seat_of


def read_hand(data: Any, players: Sequence[str], *, dealer: int, where: str,
              seat_of: Callable[[Any, str], int] | None = None) -> HandFacts:
    """One hand of the file (or of a JSON command) as facts: players by name
    (:func:`seat_reader`), ``dealer`` when the hand names none, and its free text (an
    override's reason, at most 500 characters; the hand's note, at most :data:`NOTE_LIMIT`)
    cleaned like every text the app keeps (:func:`clean_text`: no control characters or
    lone surrogates, one line). The shape must have been checked (the schema). Raises
    :class:`EveningFileError`."""
    facts = decode_hand(data, len(players), seat_of or seat_reader(players), dealer=dealer, where=where)
    if facts.note:
        facts = replace(facts, note=_cleaned(facts.note, NOTE_LIMIT, f"{where}.note"))
    if facts.override is not None:
        facts = replace(facts, override=replace(
            facts.override, reason=_cleaned(facts.override.reason, 500, f"{where}.override.reason")))
    return facts


def check_hand(data: Any, where: str = "hand") -> None:
    """Check one hand dict against the schema's ``hands`` item (types, names as strings,
    limits); raises :class:`EveningFileError`, in the words :func:`load` uses."""
    validator = jsonschema.Draft202012Validator(schema()["properties"]["hands"]["items"])
    try:
        errors = list(validator.iter_errors(data))
    except RecursionError:
        raise EveningFileError(Text("This file is nested far too deeply to be an evening."), where) from None
    if errors:
        err = jsonschema.exceptions.best_match(errors)
        path = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in err.absolute_path)
        raise EveningFileError(_schema_message(err), where + path)


#: The schema's JSON types in words.
_TYPES = {"string": "text", "integer": "a whole number", "number": "a number", "boolean": "true or false",
          "array": "a list", "object": "an object", "null": "null"}


def _expected(err: jsonschema.ValidationError, described: str | None) -> str:
    """What the field takes, in words: a value in JSON's spelling (``false``, not Python's
    ``False``), a type in words, the choices of an enum; else the field's description."""
    if err.validator == "const":
        return _short(json.dumps(err.validator_value, ensure_ascii=False), 80)
    if err.validator == "enum":
        return "one of " + _short(", ".join(json.dumps(v, ensure_ascii=False) for v in err.validator_value), 80)
    if err.validator == "type":
        kinds = err.validator_value if isinstance(err.validator_value, list) else [err.validator_value]
        words = " or ".join(_TYPES.get(str(k), str(k)) for k in kinds)
        return f"{words}; {described}" if described else words
    if described:
        return described
    try:
        return _short(json.dumps(err.validator_value, ensure_ascii=False), 80)
    except (TypeError, ValueError):
        return _short(str(err.validator_value), 80)


def _schema_message(err: jsonschema.ValidationError) -> str:
    """A schema error in words a player can act on (the schema's own description of
    the field where there is one), never echoing a long bad value."""
    described = err.schema.get("description") if isinstance(err.schema, dict) else None
    if list(err.absolute_path) == ["stake", "amount"]:  # in the engine's words, which are translated
        return Text("The stake must be a number such as 0.10.")
    if err.validator == "required":
        return _short(err.message)
    if err.validator == "additionalProperties":
        return _short(err.message.replace("Additional properties are not allowed", "Unknown field"))
    limit = _limit_message(err)
    if limit is not None:
        return limit
    if err.validator in ("type", "const", "enum", "oneOf", "anyOf", "pattern", "minimum", "maximum", "maxLength",
                         "minLength", "maxItems", "minItems", "not", "format"):
        value = _short(json.dumps(err.instance, ensure_ascii=False), 40)
        return f"{value} is not allowed here (expected: {_expected(err, described)})"
    return _short(err.message)


#: What a list of the file holds, by its field name, as a count in words.
_ITEMS: dict[str, Callable[[int], Text]] = {
    "hands": lambda n: ntext("{n} hand", "{n} hands", n),
    "players": lambda n: ntext("{n} player", "{n} players", n),
    "auction": lambda n: ntext("{n} call", "{n} calls", n),
    "claims": lambda n: ntext("{n} claim", "{n} claims", n),
    "peeks": lambda n: ntext("{n} name", "{n} names", n),
    "record": lambda n: ntext("{n} trick", "{n} tricks", n),
}


def _limit_message(err: jsonschema.ValidationError) -> Text | None:
    """A limit of the format (docs/evening-format.md, "Limits") broken, in words: which
    limit and its value, and how far the file went ("An evening file holds at most 500
    hands; this one has 501."). ``None`` for an error that is not a limit."""
    bound = err.validator_value
    if err.validator in ("maxItems", "minItems") and isinstance(err.instance, list):
        path = [p for p in err.absolute_path if isinstance(p, str)]
        count = _ITEMS.get(path[-1] if path else "", lambda n: ntext("{n} item", "{n} items", n))
        if path == ["hands"]:
            return Text("An evening file holds at most {limit}; this one has {n}.", limit=count(bound),
                        n=len(err.instance))
        if err.validator == "maxItems":
            return Text("At most {limit} here; this has {n}.", limit=count(bound), n=len(err.instance))
        return Text("At least {limit} here; this has {n}.", limit=count(bound), n=len(err.instance))
    if err.validator == "maxLength" and isinstance(err.instance, str):
        return Text("At most {limit} here; this has {n}.", limit=ntext("{n} character", "{n} characters", bound),
                    n=len(err.instance))
    if err.validator == "minLength" and isinstance(err.instance, str):
        return Text("This cannot be empty.")
    if err.validator in ("maximum", "minimum") and isinstance(err.instance, int | float):
        value = _short(json.dumps(err.instance), 40)
        if err.validator == "maximum":
            return Text("{value} is too large: at most {limit} here.", value=value, limit=bound)
        return Text("{value} is too small: at least {limit} here.", value=value, limit=bound)
    return None


def dump(evening: EveningFile) -> dict[str, Any]:
    """The evening as JSON-ready data (every dealer written out), with its record's ``chain`` and
    ``fingerprint`` (:mod:`scorer.evening.chain`); ``load(dump(e))`` gives ``e`` back."""
    setup = evening.setup
    out: dict[str, Any] = {"format": FORMAT, "version": VERSION if evening.changes else 1}
    for label in ("name", "date", "place", "time_zone", "note"):  # written when there is one
        if getattr(evening, label):
            out[label] = getattr(evening, label)
    out["variant"] = setup.variant
    out["options"] = dict(setup.options)
    stake = setup.stake
    out["stake"] = None if stake is None else {"amount": format_stake(stake.minor, stake.currency),
                                               "currency": stake.currency}
    out["players"] = [setup.players[s] for s in setup.seated_at_start]
    out["first_dealer"] = setup.players[setup.first_dealer]
    if evening.draw:
        out["draw"] = dict(zip(setup.players, evening.draw))
    out["finished"] = evening.finished
    if evening.changes:
        out["seats"] = [dump_seat_change(c, setup.players) for c in evening.changes]
    out["hands"] = [encode_hand(facts, setup.players) for facts in evening.hands]
    made = chain.links(record_of(evening))
    out["chain"] = [x.hex() for x in made]
    out["fingerprint"] = chain.fingerprint(made[-1])
    return out


def dump_seat_change(change: SeatChange, players: Sequence[str]) -> dict[str, Any]:
    """One item of the file's ``seats`` (players by name; also the history's and the JSON
    commands' form)."""
    out: dict[str, Any] = {"before_hand": change.before_hand}
    if change.kind == "join":
        out.update({"join": players[change.seat], "left_of": players[change.left_of or 0]})
    elif change.kind == "leave":
        out["leave"] = players[change.seat]
    else:
        out.update({"rename": players[change.seat], "from": change.name})
    return out


def _cleaned(text: str, limit: int, where: str) -> str:
    """``clean_text(text)``, which must still fit in ``limit`` characters: NFKC can
    lengthen text ("\ufdfa" is 18 letters), so the schema's limit is checked again."""
    cleaned = clean_text(text)
    if len(cleaned) > limit:
        raise EveningFileError(Text("at most {limit} characters (once written out in full).", limit=limit), where)
    return cleaned


def dumps(evening: EveningFile) -> str:
    """The evening as pretty-printed JSON text (UTF-8, names unescaped)."""
    return json.dumps(dump(evening), ensure_ascii=False, indent=2) + "\n"
