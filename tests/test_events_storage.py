"""Club nights stored (issue 22 item 1) on SQLite and PostgreSQL: an event in a group, its
first round drawn from a recorded seed, its tables made as ordinary evenings of the
event's rule set, options and stake, and its standings worked out from their hands."""

from __future__ import annotations

from typing import Any

import pytest
import sqlalchemy as sa

from scorer.evening import seating
from scorer.rules import HandFacts, Stake
from scorer.storage import event_moves, events, groups, hand_writes, units
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


def _finish_all(event_key: str) -> None:
    from scorer.storage.evening_writes import set_finished

    event = events.get_event(event_key)
    assert event is not None
    for table in events.current_round(event).tables:  # type: ignore[union-attr]
        evening = units.get_evening(table.evening.key)
        assert evening is not None
        set_finished(evening, True)


def test_the_last_table_to_finish_seats_the_next_round_from_the_standings(any_db_app: Any) -> None:
    with any_db_app.app_context():
        _, event = _event(rounds=2)
        key = event.key
        events.seat_first_round(event, how="typed", tables=[P14[:5], P14[5:10], P14[10:]])
        made = events.start_round(events.get_event(key))
        # table 2: P07 (seat 1) makes Nap: +5 from each of four = +20; table 3: P13 (seat 2) makes Four: +12
        hand_writes.record_hand(units.get_evening(made[1].key), 1, HandFacts(0, ("nap", "pass", "pass", "pass",
                                                                                  "pass"), 5))
        hand_writes.record_hand(units.get_evening(made[2].key), 1, HandFacts(0, ("pass", "four", "pass", "pass"), 4))
        from scorer.storage.evening_writes import set_finished

        set_finished(units.get_evening(made[0].key), True)
        set_finished(units.get_evening(made[1].key), True)
        db.session.expire_all()
        assert len(events.get_event(key).round_rows) == 1  # one table still playing: no next round yet
        set_finished(units.get_evening(made[2].key), True)
        db.session.expire_all()
        event = events.get_event(key)
        assert [r.number for r in event.round_rows] == [1, 2]
        second = event.round_rows[1]
        # ranking: P07 +20, P13 +12; 0 for table 1's P01–P05 (no hand), by name; −4 for table 3's P11, P12, P14;
        # −5 for table 2's P06, P08, P09, P10. "Together": the first five, the next five, the last four
        assert second.seating == [["P07", "P13", "P01", "P02", "P03"], ["P04", "P05", "P11", "P12", "P14"],
                                  ["P06", "P08", "P09", "P10"]]
        assert second.how == "together" and len(second.tables) == 3 and second.started_at is not None
        assert [p.name for p in second.tables[0].evening.players] == ["P07", "P13", "P01", "P02", "P03"]
        _finish_all(key)
        db.session.expire_all()
        event = events.get_event(key)
        assert event.finished_at is not None and len(event.round_rows) == 2  # two rounds: over


def test_a_late_arrival_joins_the_smallest_table_and_a_leaver_is_taken_off(any_db_app: Any) -> None:
    with any_db_app.app_context():
        _, event = _event()
        key = event.key
        events.seat_first_round(event, how="typed", tables=[P14[:5], P14[5:10], P14[10:]])
        made = events.start_round(events.get_event(key))
        moves = event_moves.arrive(events.get_event(key), "Zoe")
        assert moves == (seating.Move("Zoe", None, 2),)  # table 3 had four: the smallest with room
        db.session.expire_all()
        t3 = units.get_evening(made[2].key)
        assert [p.name for p in t3.players] == ["P11", "P12", "P13", "P14", "Zoe"]
        assert events.get_event(key).round_rows[0].seating[2] == ["P11", "P12", "P13", "P14", "Zoe"]
        with pytest.raises(events.EventRefused):
            event_moves.arrive(events.get_event(key), "zoe")  # already playing: nothing changed
        moves = event_moves.leave(events.get_event(key), "P01")
        assert moves == (seating.Move("P01", 0, None),)  # table 1 keeps four: nobody moves
        db.session.expire_all()
        from scorer.storage.evenings import ledger_of

        t1 = units.get_evening(made[0].key)
        assert [t1.players[s].name for s in ledger_of(t1).seated] == ["P02", "P03", "P04", "P05"]
        player = next(p for p in events.get_event(key).players if p.name == "P01")
        assert player.left == 1


def test_a_table_of_an_event_keeps_the_events_options(any_db_app: Any) -> None:
    from scorer.evening.event import EventError
    from scorer.storage.evening_writes import change_settings

    with any_db_app.app_context():
        _, event = _event()
        events.seat_first_round(event, how="typed", tables=[P14[:5], P14[5:10], P14[10:]])
        made = events.start_round(events.get_event(event.key))
        evening = units.get_evening(made[0].key)
        with pytest.raises(EventError):
            change_settings(evening, evening.revision, name="x", place="", options={"hands_per_dealer": 2})
        db.session.expire_all()
        assert units.get_evening(made[0].key).options["hands_per_dealer"] == 1 and \
            units.get_evening(made[0].key).name != "x"


def test_the_events_migration_goes_down_and_up(any_db_app: Any) -> None:
    """0021 can be undone on a database holding an event and its tables (the evenings stay),
    and redone."""
    from flask_migrate import downgrade, upgrade

    with any_db_app.app_context():
        _, event = _event()
        events.seat_first_round(event, how="draw", seed="x")
        made = events.start_round(events.get_event(event.key))
        keys = [e.key for e in made]
        db.session.remove()
        downgrade(revision="0020_played_on_phone")
        assert "event" not in sa.inspect(db.engine).get_table_names()
        assert db.session.scalar(sa.text("SELECT count(*) FROM evening")) == 3
        db.session.remove()
        upgrade()
        db.session.remove()
        assert {"event", "event_table", "event_access"} <= set(sa.inspect(db.engine).get_table_names())
        assert all(units.get_evening(k) is not None for k in keys) and events.event_of_evening(
            units.get_evening(keys[0])) is None  # type: ignore[arg-type]
