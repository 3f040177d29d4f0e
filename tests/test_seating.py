"""Seating a club night and its standings across tables (issue 22 items 2 and 3), with
values worked out by hand."""

from __future__ import annotations

import random

import pytest

from scorer.evening.ledger import settle_evening
from scorer.evening.seating import (
    Move,
    SeatingError,
    arrive,
    bounds,
    by_standings,
    check_seating,
    draw,
    fisher_yates,
    leave,
    table_sizes,
)
from scorer.evening.standings import StandingsError, standings
from scorer.rules import EveningSetup, HandFacts, Stake, get_variant

P = tuple(f"P{i}" for i in range(1, 15))  # 14 players, P1 the best in the standings


def test_table_sizes_from_each_rule_sets_player_counts() -> None:
    assert bounds("pagat") == (3, 6)  # P-1
    assert bounds("hoyle") == (3, 6)  # H-1 allows 2: a club table has at least 3
    assert table_sizes(14, "pagat") == (5, 5, 4)  # 3 tables (14 / 6 rounded up), 14 = 5 + 5 + 4
    assert table_sizes(7, "hoyle") == (4, 3)
    assert table_sizes(6, "napoleao") == (6,)
    assert table_sizes(13, "russian36") == (5, 4, 4)
    assert table_sizes(3, "pagat") == (3,)
    with pytest.raises(SeatingError) as caught:
        table_sizes(2, "hoyle")
    assert (caught.value.message, caught.value.rule) == ("A table of Nap (Hoyle rules) needs at least 3 players; "
                                                       "there are 2.", "H-1")


def test_the_draw_is_a_seeded_fisher_yates() -> None:
    r = random.Random(2026)
    assert [round(r.random(), 4) for _ in range(4)] == [0.1191, 0.5025, 0.5118, 0.86]
    # i=4: j=int(0.1191·5)=0, swap → E B C D A; i=3: j=int(0.5025·4)=2 → E B D C A;
    # i=2: j=int(0.5118·3)=1 → E D B C A; i=1: j=int(0.86·2)=1, no swap
    assert fisher_yates("ABCDE", 2026) == ["E", "D", "B", "C", "A"]
    seating = draw(P, "pagat", 2026)
    assert [len(t) for t in seating] == [5, 5, 4]
    assert sorted(p for t in seating for p in t) == sorted(P)
    assert draw(P, "pagat", 2026) == seating  # recorded seed, same seating
    assert draw(P, "pagat", 2027) != seating
    with pytest.raises(SeatingError, match="p1 is named twice"):
        draw((*P, "p1"), "pagat", 1)


def test_a_typed_seating_is_checked() -> None:
    tables = [["P1", "P2", "P3", "P4", "P5"], ["P6", "P7", "P8", "P9", "P10"], ["P11", "P12", "P13", "p14"]]
    assert check_seating(tables, P, "pagat")[2] == ("P11", "P12", "P13", "P14")  # spelt as the players are
    with pytest.raises(SeatingError) as caught:
        check_seating([tables[0] + tables[1], tables[2]], P, "pagat")
    assert caught.value.message == "Table 1 has 10 players; a table seats 3 to 6." and caught.value.rule == "P-1"
    with pytest.raises(SeatingError, match="P1 is seated at table 1 and at table 3"):
        check_seating([tables[0], tables[1], ["P11", "P12", "P13", "P1"]], P, "pagat")
    with pytest.raises(SeatingError, match="Zed at table 3 is not one of the players"):
        check_seating([tables[0], tables[1], ["P11", "P12", "P13", "Zed"]], P, "pagat")
    with pytest.raises(SeatingError, match="P14 have no table"):
        check_seating([tables[0], tables[1], ["P11", "P12", "P13"]], P, "pagat")


def test_later_rounds_by_standings_together_or_spread() -> None:
    assert by_standings(P, "pagat", "together") == (
        ("P1", "P2", "P3", "P4", "P5"), ("P6", "P7", "P8", "P9", "P10"), ("P11", "P12", "P13", "P14"))
    # snake: 1→T1 2→T2 3→T3 4→T3 5→T2 6→T1 7→T1 8→T2 9→T3 10→T3 11→T2 12→T1 13→T1 14→T2 (T3 full at 4)
    assert by_standings(P, "pagat", "spread") == (
        ("P1", "P6", "P7", "P12", "P13"), ("P2", "P5", "P8", "P11", "P14"), ("P3", "P4", "P9", "P10"))
    with pytest.raises(SeatingError, match="not 'mixed'"):
        by_standings(P, "pagat", "mixed")


def test_a_late_arrival_and_an_early_leaver() -> None:
    seating = by_standings(P, "pagat", "together")  # 5, 5, 4
    after, moves = arrive(seating, "Zoe", "pagat")
    assert after[2] == ("P11", "P12", "P13", "P14", "Zoe") and moves == (Move("Zoe", None, 2),)
    # every table full (6, 6): a new table of the arrival and one from each of the two largest
    full = (tuple(P[:6]), tuple(P[6:12]))
    after, moves = arrive(full, "Zoe", "hoyle")
    assert after == (tuple(P[:5]), tuple(P[6:11]), ("P6", "P12", "Zoe"))
    assert moves == (Move("P6", 0, 2), Move("P12", 1, 2), Move("Zoe", None, 2))
    with pytest.raises(SeatingError, match="P3 is already seated"):
        arrive(seating, "p3", "pagat")
    # a leaver from a table of 5: nobody moves
    after, moves = leave(seating, "P2", "pagat")
    assert after[0] == ("P1", "P3", "P4", "P5") and moves == (Move("P2", 0, None),)
    # a leaver from a table of 3: one player comes from the largest table that can spare one
    small = (("P1", "P2", "P3", "P4", "P5"), ("P6", "P7", "P8"))
    after, moves = leave(small, "P7", "pagat")
    assert after == (("P1", "P2", "P3", "P4"), ("P6", "P8", "P5"))
    assert moves == (Move("P7", 1, None), Move("P5", 0, 1))
    # nobody can spare one: the table closes and its two go to the smallest tables with room
    tight = (("P1", "P2", "P3"), ("P4", "P5", "P6"), ("P7", "P8", "P9"))
    after, moves = leave(tight, "P1", "pagat")
    assert after == (("P4", "P5", "P6", "P2"), ("P7", "P8", "P9", "P3"))
    assert moves == (Move("P1", 0, None), Move("P2", 0, 0), Move("P3", 0, 1))
    with pytest.raises(SeatingError, match="Without P1 the players left cannot be seated"):
        leave((("P1", "P2", "P3"),), "P1", "pagat")
    with pytest.raises(SeatingError, match="Zed is not seated"):
        leave(tight, "Zed", "pagat")


def pagat(players: tuple[str, ...], *hands: HandFacts, stake: Stake | None = None):  # type: ignore[no-untyped-def]
    variant = get_variant("pagat")
    return settle_evening(variant.check_setup(EveningSetup("pagat", players, 0, {}, stake)), hands)


def three(dealer: int, declarer: int, n: int, tricks: int) -> HandFacts:
    """``declarer`` bids Three, everyone else passes (the auction from the dealer's left)."""
    calls = tuple("three" if (dealer + 1 + i) % n == declarer else "pass" for i in range(n))
    return HandFacts(dealer, calls, tricks)


def the_night(stake: Stake | None = None) -> list:  # type: ignore[type-arg]
    # Table 1: Bob, Cat and Dan each make a Three (+9, others −3, P-12), Ann's Three is defeated
    # (−9, others +3): Ann −18, Bob/Cat/Dan +6, the three sharing the win
    one = pagat(("Ann", "Bob", "Cat", "Dan"), three(0, 1, 4, 3), three(1, 2, 4, 3), three(2, 3, 4, 3),
                three(3, 0, 4, 2), stake=stake)
    # Table 2: Fay makes a Three (+9), Gus's and Hal's are defeated (−9), then Fay's: Eve +6 and
    # Fay +6 share the win, Gus −6, Hal −6
    two = pagat(("Eve", "Fay", "Gus", "Hal"), three(0, 1, 4, 3), three(1, 2, 4, 2), three(2, 3, 4, 2),
                three(3, 1, 4, 2), stake=stake)
    # Round 2: Bob, Cat, Eve and Gus play one hand, all pass: 0 each, all four share the win
    late = pagat(("Bob", "Cat", "Eve", "gus"), HandFacts(0, ("pass",) * 4), stake=stake)
    return [one, two, late]


def test_standings_across_tables_with_the_tie_break() -> None:
    assert [ledger.totals for ledger in the_night()] == [(-18, 6, 6, 6), (6, 6, -6, -6), (0, 0, 0, 0)]
    result = standings(the_night())
    assert not result.money and result.variant == "pagat"
    lines = [(s.place, s.name, s.total, s.made, s.won, s.tables, s.hands) for s in result.rows]
    assert lines == [
        (1, "Bob", 6, 1, 2, 2, 5), (1, "Cat", 6, 1, 2, 2, 5),  # equal on all three: a shared place
        (3, "Dan", 6, 1, 1, 1, 4), (3, "Fay", 6, 1, 1, 1, 4),  # fewer tables won
        (5, "Eve", 6, 0, 2, 2, 5),  # equal total, no contract made: below, though more tables won
        (6, "Gus", -6, 0, 1, 2, 5), (7, "Hal", -6, 0, 0, 1, 4),  # tables won break the tie
        (8, "Ann", -18, 0, 0, 1, 4),
    ]


def test_standings_by_money_and_what_is_never_mixed() -> None:
    pence = Stake(10, "£")
    result = standings(the_night(pence))
    assert result.money and result.currency == "£"
    assert [(s.name, s.total) for s in result.rows][:1] == [("Bob", 60)] and result.rows[-1].total == -180
    with pytest.raises(StandingsError, match="money and some for points"):
        standings([*the_night(pence)[:2], the_night()[2]])
    with pytest.raises(StandingsError, match="different stakes"):
        standings([*the_night(pence)[:2], the_night(Stake(20, "£"))[2]])
    hoyle = get_variant("hoyle")
    other = settle_evening(hoyle.check_setup(EveningSetup("hoyle", ("Ann", "Bob", "Cat"), 0, {})), [])
    with pytest.raises(StandingsError, match=r"different rule sets \(hoyle, pagat\)"):
        standings([*the_night(), other])
    assert standings([]).rows == ()
