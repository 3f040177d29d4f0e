"""The JSON evening file: schema, defaults, errors."""

from __future__ import annotations

import json
from copy import deepcopy
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from scorer.evening.file import EveningFileError, dump, load, loads, parse_stake, schema
from scorer.evening.ledger import settle_evening

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"

BASE: dict[str, Any] = {
    "format": "nap-evening",
    "version": 1,
    "variant": "pagat",
    "players": ["Ann", "Bob", "Cat"],
    "hands": [],
}


def with_hands(*hands: dict[str, Any], **extra: Any) -> dict[str, Any]:
    data = deepcopy(BASE)
    data["hands"] = list(hands)
    data.update(extra)
    return data


def test_schema_is_valid_and_examples_match_it() -> None:
    jsonschema.Draft202012Validator.check_schema(schema())
    for path in EXAMPLES.glob("*.json"):
        if not path.name.endswith(".expected.json"):
            jsonschema.validate(json.loads(path.read_text("utf-8")), schema())


def test_dealer_may_be_left_out_and_follows_the_rules() -> None:
    evening = load(
        with_hands(
            {"auction": ["three", "pass", "pass"], "tricks": 3},  # dealer Ann: Bob bids
            {"misdeal": True},  # Bob deals, misdeal
            {"auction": ["pass", "pass", "four"], "tricks": 4},  # Bob again: Cat, Ann, Bob → Bob
        )
    )
    assert [h.dealer for h in evening.hands] == [0, 1, 1]
    ledger = settle_evening(evening.setup, evening.hands)
    assert ledger.totals == (-3 - 4, 6 + 8, -3 - 4)
    assert dump(evening)["hands"][1] == {"dealer": "Bob", "misdeal": True}


def test_defaults_for_options_and_first_dealer() -> None:
    evening = load(with_hands(first_dealer="cat"))
    assert evening.setup.first_dealer == 2
    assert evening.setup.options == {"hands_per_dealer": 2, "all_pass_counts": False}


@pytest.mark.parametrize(
    ("data", "fragment"),
    [
        (with_hands({"auction": ["three", "pass", "pass"], "tricks": 7}), "hands"),
        (with_hands({"auction": ["two", "pass", "pass"], "tricks": 2}), "P-15"),
        (with_hands({"auction": ["∞", "pass", "pass"], "tricks": 2}), "hands"),
        (with_hands({"dealer": "Zed", "auction": ["pass", "pass", "pass"]}), "not one of the players"),
        (with_hands(players=["Ann", "ann", "Bob"]), "same name"),
        (with_hands(players=["Ann", "Bob"]), "3 to 6"),
        (with_hands(variant="whist"), "variant"),
        (with_hands(date="2026-13-45"), "not a date"),
        (with_hands(stake={"amount": "0.001"}), "stake"),
        (with_hands(stake={"amount": "0"}), "more than zero"),
        (with_hands(options={"lowest_bid": 2}), "Unknown option"),
        (with_hands({"misdeal": True, "tricks": 3}), "hands[0]"),
        (with_hands(players=["x" * 41, "b", "c"]), "players[0]"),
        ({"format": "nap-evening"}, "required"),
        ([], "file"),
    ],
)
def test_bad_files_are_refused_with_a_clear_message(data: Any, fragment: str) -> None:
    with pytest.raises(EveningFileError) as err:
        load(data)
    assert fragment in f"{err.value} {err.value.rule}"


def test_not_json() -> None:
    with pytest.raises(EveningFileError, match="not a JSON file"):
        loads(b"\xff\xfe nonsense")


def test_parse_stake() -> None:
    assert parse_stake("0.10") == 10
    assert parse_stake("2") == 200
    assert parse_stake(" 1.5 ") == 150
    for bad in ("", "abc", "-1", "NaN", "Infinity", "1e400", "1e5", "0x10", "0.005", "1000001", " 1 000"):
        with pytest.raises(ValueError):
            parse_stake(bad)


def test_the_example_in_the_format_doc_settles_as_described() -> None:
    doc = (EXAMPLES.parent / "docs" / "evening-format.md").read_text("utf-8")
    block = doc.split("```json", 1)[1].split("```", 1)[0]
    evening = loads(block)
    ledger = settle_evening(evening.setup, evening.hands)
    assert ledger.rows[0].ruling.units == (-4, -4, 12, -4)
    assert [h.dealer for h in evening.hands] == [0, 1, 2, 2]  # the misdeal's dealer deals again
    assert ledger.rows[3].ruling.declarer == 0 and ledger.rows[3].ruling.units == (30, -10, -10, -10)


@pytest.mark.parametrize(
    "text",
    ["[" * 100_000 + "]" * 100_000, '{"a":' * 50_000 + "1" + "}" * 50_000,
     '{"format":"nap-evening","version":1,"variant":"pagat","players":["A","B","C"],'
     '"hands":[{"auction":["three","pass","pass"],"tricks":' + "9" * 5000 + "}]}"],
)
def test_absurd_json_is_refused_cleanly(text: str) -> None:
    with pytest.raises(EveningFileError) as err:
        loads(text)
    assert len(str(err.value)) < 300  # the bad value is not echoed back whole


def test_nesting_past_64_is_refused_before_parsing() -> None:
    """The phone's Pyodide overflowed JavaScript's stack on 100,000-deep brackets where CPython raised
    RecursionError: the reader refuses past MAX_NESTING (64) with the same words on both."""
    for text in ("[" * 65 + "]" * 65, ('{"a":' * 65 + "1" + "}" * 65).encode(), "[" * 100_000 + "]" * 100_000):
        with pytest.raises(EveningFileError) as err:
            loads(text)
        assert str(err.value) == "This is not a JSON file (arrays and objects nested more than 64 deep)."
    # 64 deep parses (and the schema then refuses it); brackets inside strings do not count
    with pytest.raises(EveningFileError) as err:
        loads("[" * 64 + "]" * 64)
    assert "nested" not in str(err.value)
    with pytest.raises(EveningFileError) as err:
        loads(json.dumps({"format": "nap-evening", "place": "[{" * 100 + '\\"' + "[" * 100}))
    assert "nested" not in str(err.value)


def test_no_hand_after_the_agreed_end() -> None:
    hand = {"auction": ["three", "pass", "pass"], "tricks": 3}
    data = with_hands(*([hand] * 4), options={"hands_per_dealer": 1})  # 3 players × 1 = 3 hands
    with pytest.raises(EveningFileError) as err:
        load(data)
    assert err.value.rule == "P-14" and "hands[3]" in str(err.value)
    assert "Every player had dealt the agreed 1 counted hands before hand 4" in str(err.value)
    assert len(load(with_hands(*([hand] * 3), options={"hands_per_dealer": 1})).hands) == 3
    # P-14 counts per player: Bob's deal (hand 2) was passed out, so after Ann, Bob, Cat, Ann
    # he still owes one and a fifth hand (Bob deals) is accepted; a sixth is refused.
    passed = {"auction": ["pass", "pass", "pass"]}
    five = with_hands(hand, passed, hand, hand, hand, options={"hands_per_dealer": 1})
    assert [h.dealer for h in load(five).hands] == [0, 1, 2, 0, 1]
    with pytest.raises(EveningFileError) as err:
        load(with_hands(hand, passed, hand, hand, hand, hand, options={"hands_per_dealer": 1}))
    assert "hands[5]" in str(err.value) and err.value.rule == "P-14"


@pytest.mark.parametrize(("change", "where", "message", "rule"), [
    ({"players": [f"P{i}" for i in range(7)]}, "players",
     "British Nap, basic (Pagat) is for 3 to 6 players, not 7.", "P-1"),
    ({"players": ["Ada", "Bea"]}, "players", "British Nap, basic (Pagat) is for 3 to 6 players, not 2.", "P-1"),
    ({"variant": "napoleao", "players": ["Ada"]}, "players",
     "Napoleão (Brazilian points game) is for 2 to 6 players, not 1.", "B-1"),
    ({"hands": [{"auction": ["pass"] * 3}] * 2001}, "hands",
     "An evening file holds at most 2000 hands; this one has 2001.", None),
    ({"players": ["x" * 41, "Bea", "Cy"]}, "players[0]", "At most 40 characters here; this has 41.", None),
    ({"name": "x" * 81}, "name", "At most 80 characters here; this has 81.", None),
    ({"hands": [{"auction": ["pass"] * 61}]}, "hands[0].auction", "At most 60 calls here; this has 61.", None),
    ({"options": {"hands_per_dealer": 51}}, "options.hands_per_dealer", "51 is too large: at most 50 here.", None),
])
def test_limits_are_said_in_words(change: dict[str, Any], where: str, message: str, rule: str | None) -> None:
    """Each limit of docs/evening-format.md ("Limits") is refused naming the limit and its value."""
    with pytest.raises(EveningFileError) as err:
        load({**deepcopy(BASE), **change})
    assert (err.value.where, err.value.message, err.value.rule) == (where, message, rule)


def test_file_size_limit() -> None:
    with pytest.raises(EveningFileError) as err:
        loads(b" " * (32 * 1024 * 1024 + 1))
    assert err.value.message == "An evening file is at most 32 MB (33554432 bytes); this one has 33554433 bytes."


def test_schema_errors_are_readable() -> None:
    # a stake that is no decimal is refused in the engine's words, which are translated
    # (issue 25 item 14), naming the field
    for amount in ("-1", 0.5, "1,5"):
        with pytest.raises(EveningFileError) as err:
            load(with_hands(stake={"amount": amount, "currency": "£"}))
        assert str(err.value) == "stake.amount: The stake must be a number such as 0.10."


@pytest.mark.parametrize(("change", "where", "said"), [
    ({"finished": "yes"}, "finished", '"yes" is not allowed here (expected: true or false; '),
    ({"variant": "pagatx"}, "variant",
     '"pagatx" is not allowed here (expected: one of "pagat", "hoyle", "russian36", "napoleao")'),
    ({"hands": [{"auction": ["three", "pass", "pass"], "tricks": "x"}]}, "hands[0].tricks",
     '"x" is not allowed here (expected: a whole number; Tricks the declarer won'),
])
def test_schema_errors_say_what_the_field_takes_in_json_words(change: dict[str, Any], where: str,
                                                              said: str) -> None:
    # not Python's spelling of the schema ("expected: False", "['pagat', …]")
    data = {"format": "nap-evening", "version": 1, "variant": "pagat", "players": ["A", "B", "C"], "hands": []}
    with pytest.raises(EveningFileError) as err:
        load({**data, **change})
    assert err.value.where == where and str(err.value.message).startswith(said)
    assert "False" not in str(err.value) and "['" not in str(err.value)


def test_the_time_zone_is_read_written_and_refused_when_unknown() -> None:
    data = {"format": "nap-evening", "version": 1, "variant": "pagat", "players": ["A", "B", "C"], "hands": []}
    assert load(data).time_zone is None
    evening = load({**data, "time_zone": "America/Sao_Paulo"})
    assert evening.time_zone == "America/Sao_Paulo" and dump(evening)["time_zone"] == "America/Sao_Paulo"
    with pytest.raises(EveningFileError) as err:
        load({**data, "time_zone": "Mars/Olympus"})
    assert err.value.where == "time_zone" and "Mars/Olympus" in str(err.value.message)


def test_schema_covers_every_option_of_every_variant() -> None:
    from scorer.rules import VARIANTS

    props = schema()["properties"]["options"]["properties"]
    assert set(props) == {spec.key for v in VARIANTS.values() for spec in v.option_specs}
    assert set(schema()["properties"]["variant"]["enum"]) == set(VARIANTS)
    for variant in VARIANTS.values():
        for spec in variant.option_specs:
            entry = props[spec.key]
            if spec.kind == "int":
                assert (entry["minimum"], entry["maximum"]) == (spec.minimum, spec.maximum), spec.key
            elif spec.kind == "choice":
                assert set(entry["enum"]) == {c for c, _ in spec.choices}, spec.key
            else:
                assert entry["type"] == "boolean", spec.key


def test_draw_decides_the_first_dealer() -> None:
    data = with_hands(variant="hoyle", draw={"Ann": "9D", "Bob": "AC", "Cat": "3H"})
    evening = load(data)
    assert evening.setup.first_dealer == 1 and evening.draw == ["9D", "AC", "3H"]
    assert dump(evening)["draw"] == {"Ann": "9D", "Bob": "AC", "Cat": "3H"}
    with pytest.raises(EveningFileError, match="makes Bob the first dealer"):
        load(with_hands(variant="hoyle", draw={"Ann": "9D", "Bob": "AC", "Cat": "3H"}, first_dealer="Cat"))
    with pytest.raises(EveningFileError):
        load(with_hands(variant="pagat", draw={"Ann": "9D", "Bob": "AC", "Cat": "3H"}))  # pagat has no draw rule


def test_quoted_source_sentences_are_the_sources_own_words() -> None:
    import re

    from scorer.rules.sources import QUOTES, RULES

    seeds = EXAMPLES.parent.parent / "shared" / "seeds"
    if not seeds.exists():
        pytest.skip("the shared seeds are not beside this checkout")
    for rule_id, (original, english) in QUOTES.items():
        text = re.sub(r"\s+", " ", (seeds / RULES[rule_id].source).read_text("utf-8"))
        for fragment in original.split("[…]"):
            fragment = re.sub(r"\s+", " ", fragment.strip(" ."))
            assert fragment in text, (rule_id, fragment[:60])
        assert english


def test_no_hand_after_the_target_score() -> None:
    nap = {"auction": ["nap", "pass", "pass"], "tricks": 5}  # +10 each time it is made
    data = with_hands(nap, nap, variant="napoleao", options={"end": "target", "target_score": 10})
    with pytest.raises(EveningFileError) as err:
        load(data)
    assert err.value.rule == "B-14" and "hands[1]" in str(err.value)


def test_text_that_normalising_lengthens_past_its_limit_is_refused() -> None:
    """U+FDFA is one character that NFKC writes out as 18: a 40-character name of it
    would be 720 characters (PostgreSQL refused it with a 500)."""
    import json

    from scorer.evening.file import EveningFileError, loads

    base = {"format": "nap-evening", "version": 1, "variant": "pagat", "options": {}, "stake": None,
            "players": ["Ann", "Bob", "Cat"], "hands": []}
    for field, value, where in ((["players", 0], "\ufdfa" * 40, "players[0]"), (["name"], "\ufdfa" * 80, "name"),
                                (["place"], "\ufdfa" * 5, "place")):
        data = json.loads(json.dumps(base))
        if field[0] == "players":
            data["players"][0] = value
        else:
            data[field[0]] = value
        try:
            loads(json.dumps(data))
        except EveningFileError as error:
            assert error.where == where and "at most" in str(error)
        else:
            raise AssertionError(f"{where} was accepted")


def test_the_pool_left_when_players_came_and_went_is_shared_in_full_as_the_doc_says() -> None:
    """docs/evening-format.md says one thing about the pool's remainder (issue 25 item 12):
    shared in full among those seated at the end, the odd chips one each in dealing order
    from the next dealer (H-16 adopted). Worked by hand: A B C D, D deals first; pool
    opening 1, top-up 1. Hand 1: stakes 4 + D's 1 = 5; A (eldest) makes One: +3 → A +2,
    B −2, C −2, D −3. Before hand 2 Eve sits on A's left (A Eve B C D) and C leaves:
    A deals, tops up 1 (pool 6), all pass → A −1. Next dealer Eve. 6 among A, Eve, B, D:
    1 each and 2 odd chips to Eve, then B (clockwise: not A, who is before Eve in the
    list of names) → balances A +2, B 0, C −2, D −2, Eve +2; nothing left in the pool."""
    from scorer.evening.settle import settle_up

    doc = (EXAMPLES.parent / "docs" / "evening-format.md").read_text("utf-8")
    assert "stays in the pool" not in doc and "nothing is left in the pool" in doc
    evening = load({
        "format": "nap-evening", "version": 2, "variant": "hoyle", "players": ["A", "B", "C", "D"],
        "first_dealer": "D", "options": {"pool": True, "pool_opening": 1, "pool_top_up": 1},
        "seats": [{"before_hand": 2, "join": "Eve", "left_of": "A"}, {"before_hand": 2, "leave": "C"}],
        "hands": [{"auction": ["one", "pass", "pass", "pass"], "tricks": 1}, {"auction": ["pass"] * 4}],
    })
    ledger = settle_evening(evening.setup, evening.hands, evening.changes)
    assert ledger.totals == (1, -2, -2, -3, 0) and ledger.pool == 6
    result = settle_up(ledger)
    assert result.pool_share == 1 and result.pool_left == 0 and result.odd == (4, 1)
    assert result.balances == (2, 0, -2, -2, 2)


def _renamed(seats: list[dict[str, Any]], players: list[str], hands: int) -> dict[str, Any]:
    return {"format": "nap-evening", "version": 2, "variant": "pagat", "players": players, "seats": seats,
            "hands": [{"auction": ["pass", "four", "pass"], "tricks": 4}] * hands}


def test_a_rename_that_makes_two_seated_players_share_a_name_is_refused_in_words() -> None:
    """shared/rules/README.md, "People who come and go": names stay unique at the table
    ignoring case, as at the start (issue 25 item 11). Eve "was called ann" until hand 2
    while Ann sat at the table: refused, naming both and the rename."""
    with pytest.raises(EveningFileError) as error:
        load(_renamed([{"before_hand": 2, "rename": "Eve", "from": "ann"}], ["Ann", "Bob", "Eve"], 2))
    assert str(error.value) == ("seats[0]: Eve was called “ann” before hand 2 while Ann was at the table: two "
                                "players at the table cannot share a name, ignoring case.")
    # Ann left before hand 2, but Eve was still called ANN in hand 1, with Ann at the table
    with pytest.raises(EveningFileError, match=r"^seats\[1\]: Eve was called “ANN” before hand 2"):
        load(_renamed([{"before_hand": 2, "leave": "Ann"}, {"before_hand": 2, "rename": "Eve", "from": "ANN"}],
                      ["Ann", "Bob", "Eve", "Dan"], 2))


def test_a_name_may_come_back_to_the_table_after_its_first_owner_renamed_or_left() -> None:
    """Only players seated together count: Eve was called "ann" in hand 1 and Ann sits down
    before hand 3 — never at the table together. And a rename in case only is the same name."""
    evening = load(_renamed([{"before_hand": 2, "rename": "Eve", "from": "ann"},
                             {"before_hand": 3, "join": "Ann", "left_of": "Bob"}], ["Bob", "Eve", "Dan"], 2))
    assert [c.kind for c in evening.changes] == ["rename", "join"] and evening.setup.players[-1] == "Ann"
    assert load(_renamed([{"before_hand": 2, "rename": "Eve", "from": "eve"}], ["Ann", "Bob", "Eve"], 2)).changes
