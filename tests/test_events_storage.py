"""Club nights stored (issue 22 item 1) on SQLite and PostgreSQL: an event in a group, its
first round drawn from a recorded seed, its tables made as ordinary evenings of the
event's rule set, options and stake, and its standings worked out from their hands."""

from __future__ import annotations

from typing import Any

import pytest
import sqlalchemy as sa

from scorer.evening import seating
from scorer.rules import HandFacts, Stake
from scorer.storage import events, groups, hand_writes, units
from scorer.storage.models import EventTable, db

P14 = [f"P{i:02d}" for i in range(1, 15)]


def _event(stake: Stake | None = None, **extra: Any) -> Any:
    group = groups.create_group("Thursday club")
    fields: dict[str, Any] = {"name": "Club night", "variant": "pagat", "options": {"hands_per_dealer": 1},
                              "stake": stake, "players": P14, "rounds": 3, "length": "hands", "amount": 10}
    fields.update(extra)
    return group, events.create_event(group, **fields)


def test_an_event_is_drawn_started_and_ranked(any_db_app: Any) -> None:
    with any_db_app.app_context():
        group, event = _event(Stake(10, "GBP"))
        key = event.key
        round_ = events.seat_first_round(event, how="draw", seed="pub-42")
        assert [len(t) for t in round_.seating] == [5, 5, 4]  # 14 of pagat: 5, 5, 4
        assert tuple(map(tuple, round_.seating)) == seating.draw(P14, "pagat", "pub-42")  # the seed gives it again
        again = events.seat_first_round(events.get_event(key), how="draw", seed="pub-42")
        assert again.seating == round_.seating and again.seed == "pub-42"
        made = events.start_round(events.get_event(key))
        assert len(made) == 3
        for evening, table in zip(made, round_.seating, strict=True):
            assert [p.name for p in evening.players] == list(table)
            assert (evening.variant, evening.options["hands_per_dealer"], evening.stake_minor, evening.currency,
                    evening.group_id) == ("pagat", 1, 10, "GBP", group.id)
            place = events.event_of_evening(evening)
            assert place is not None and place.event.key == key and place.round.number == 1
        assert events.event_of_evening(made[2]).table.number == 3  # type: ignore[union-attr]

        # table 1 (five players): seat 1 bids Four and makes it: +4 from each of four → +16
        t1 = units.get_evening(made[0].key)
        assert t1 is not None
        hand_writes.record_hand(t1, 1, HandFacts(0, ("four", "pass", "pass", "pass", "pass"), 4))
        # table 3 (four players): seat 2 bids Nap (the auction from seat 1) and is beaten: pays 5 to each of three
        t3 = units.get_evening(made[2].key)
        assert t3 is not None
        hand_writes.record_hand(t3, 1, HandFacts(0, ("pass", "nap", "pass", "pass"), 4))
        db.session.expire_all()
        ranked = events.standings_of(events.get_event(key))  # type: ignore[arg-type]
        lines = {r.name: (r.place, r.total) for r in ranked.rows}
        s1, s3 = round_.seating[0], round_.seating[2]
        # money: 16 units × 10p = 160; the beaten Nap −15 units = −150; the three others of table 3 +50
        assert ranked.money and lines[s1[1]] == (1, 160)
        assert lines[s3[2]] == (14, -150)
        assert {lines[n][1] for n in (s3[0], s3[1], s3[3])} == {50}
        assert {lines[n][1] for n in s1 if n != s1[1]} == {-40}
        assert sorted(r.place for r in ranked.rows) == [1, 2, 2, 2, 5, 5, 5, 5, 5, 10, 10, 10, 10, 14]
        # +160 first; +50 three share 2nd; table 2's five at 0 share 5th; −40 four share 10th; −150 last


def test_an_evening_belongs_to_one_event_and_a_round_begins_once(any_db_app: Any) -> None:
    with any_db_app.app_context():
        _, event = _event()
        events.seat_first_round(event, how="typed", tables=[P14[:5], P14[5:10], P14[10:]])
        made = events.start_round(events.get_event(event.key))
        with pytest.raises(events.EventRefused):
            events.start_round(events.get_event(event.key))
        assert db.session.scalar(sa.select(sa.func.count()).select_from(EventTable)) == 3
        with pytest.raises(sa.exc.IntegrityError):
            db.session.add(EventTable(event_id=event.id, round_id=events.get_event(event.key).round_rows[0].id,
                                      number=9, evening_id=made[0].id))
            db.session.flush()
        db.session.rollback()
