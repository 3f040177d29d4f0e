"""A club night's pure model (issue 22 item 1) and its chained record (item 6): values
worked out by hand."""

from __future__ import annotations

import hashlib

import pytest

from scorer.evening import chain
from scorer.evening.event import (
    EventError,
    EventSetup,
    check_event,
    check_table,
    event_record,
    moves_change,
    seating_change,
    table_change,
    table_setup,
)
from scorer.evening.seating import Move, arrive, draw
from scorer.rules import EveningSetup, HandFacts, IllegalSetup, Stake

P = tuple(f"P{i}" for i in range(1, 15))


def night(**changes: object) -> EventSetup:
    fields: dict[str, object] = {"variant": "pagat", "players": P, "rounds": 3, "length": "hands", "amount": 12,
                                 "options": {}, "stake": Stake(10, "£")}
    fields.update(changes)
    return EventSetup(**fields)  # type: ignore[arg-type]


def test_an_event_is_checked_and_its_options_resolved() -> None:
    event = check_event(night())
    assert event.options == {"hands_per_dealer": 2, "all_pass_counts": False}
    assert check_event(night(length="end_point", amount=None)).amount is None
    cases = [
        (night(variant="whist"), "'whist' is not a rule set this app knows."),
        (night(players=P[:2]), "A table of British Nap, basic (Pagat) needs at least 3 players; there are 2."),
        (night(rounds=0), "An event has 1 to 20 rounds, not 0."),
        (night(length="forever"), "A round lasts a number of hands, the agreed end point or a time, not 'forever'."),
        (night(variant="hoyle", length="end_point", amount=None),
         "Nap (Hoyle rules) has no agreed end point; give a number of hands or a time."),
        (night(amount=0), "A round lasts 1 to 500 hands or minutes."),
        (night(variant="napoleao"), "Napoleão (Brazilian points game) is scored in points; it has no money stake."),
        (night(players=(*P, "p3")), "p3 is named twice."),
    ]
    for setup, message in cases:
        with pytest.raises(EventError) as caught:
            check_event(setup)
        assert caught.value.message == message
    with pytest.raises(IllegalSetup):
        check_event(night(options={"hands_per_dealer": 0}))


def test_a_table_plays_the_events_rules_options_and_stake() -> None:
    event = check_event(night())
    table = table_setup(event, ("P1", "P2", "P3", "P4", "P5"), first_dealer=2)
    assert (table.variant, table.players, table.first_dealer, table.stake) == (
        "pagat", ("P1", "P2", "P3", "P4", "P5"), 2, Stake(10, "£"))
    check_table(event, table)
    check_table(event, EveningSetup("pagat", ("A", "B", "C"), 0, {"hands_per_dealer": 2}, Stake(10, "£")))
    for other, message in [
        (EveningSetup("hoyle", ("A", "B", "C"), 0, {}, Stake(10, "£")), "Every table of this event plays "
                                                                           "British Nap, basic (Pagat)."),
        (EveningSetup("pagat", ("A", "B", "C"), 0, {"hands_per_dealer": 3}, Stake(10, "£")),
         "Every table of this event plays the event's options; a table may not change them."),
        (EveningSetup("pagat", ("A", "B", "C"), 0, {}, None),
         "Every table of this event plays for the event's stake; a table may not change it."),
    ]:
        with pytest.raises(EventError) as caught:
            check_table(event, other)
        assert caught.value.message == message


def test_the_events_record_chains_its_seatings_moves_and_tables() -> None:
    event = check_event(night(players=P[:7], rounds=1))  # 7 players: tables of 4 and 3
    seating = draw(event.players, "pagat", 22)
    after, moves = arrive(seating, "Zoe", "pagat")
    table = table_setup(event, seating[1])
    evening = chain.links(chain.record(table, [HandFacts(0, ("three", "pass", "pass"), 3)]))[-1]
    changes = [seating_change(1, seating, "draw", 22), moves_change(1, moves), table_change(1, 1, evening)]
    record = event_record(event, changes, finished=True)
    texts = [chain.canonical(c).decode() for c in record]
    assert texts[0] == ('{"amount":12,"length":"hands","options":{"all_pass_counts":false,"hands_per_dealer":2},'
                        '"players":["P1","P2","P3","P4","P5","P6","P7"],"rounds":1,"scheme":"nap-event/1",'
                        '"stake":{"currency":"£","minor":10},"variant":"pagat"}')
    assert texts[1] == ('{"how":"draw","round":1,"seed":22,"tables":[' + ",".join(
        "[" + ",".join(f'"{p}"' for p in t) + "]" for t in seating) + "]}")
    assert moves == (Move("Zoe", None, 1),)  # the table of 3 has room
    assert texts[2] == '{"moves":[{"from":null,"player":"Zoe","to":1}],"round":1}'
    assert texts[3] == '{"evening":"' + evening.hex() + '","round":1,"table":1}'
    assert texts[4] == '{"finished":true}'
    last = bytes(32)
    for text in texts:
        last = hashlib.sha256(last + text.encode("utf-8")).digest()
    assert chain.links(record)[-1] == last
    # a hand changed at one table changes the event's fingerprint
    other = chain.links(chain.record(table, [HandFacts(0, ("three", "pass", "pass"), 2)]))[-1]
    changed = event_record(event, [*changes[:2], table_change(1, 1, other)], finished=True)
    assert chain.summary(changed)[0] != chain.summary(record)[0]
    assert after[1][-1] == "Zoe"
