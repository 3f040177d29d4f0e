"""The evening's record, chained (issue 22 item 6): links, fingerprints, the evening
file's chain and ``nap verify``. Values worked out by hand: the canonical JSON of each
change is written out below, and the links are hashed here with hashlib directly."""

from __future__ import annotations

import dataclasses
import hashlib
import json
from pathlib import Path

import pytest

from scorer.cli.main import main
from scorer.evening import chain
from scorer.evening.file import EveningFileError, dump, dumps, load, loads, record_of
from scorer.evening.verify import verify
from scorer.rules import EveningSetup, HandFacts, SeatChange, Stake

#: docs/evening-format.md's small example.
EXAMPLE = {
    "format": "nap-evening", "version": 1, "name": "Thursday at the Crown", "date": "2026-11-26",
    "variant": "pagat", "options": {"hands_per_dealer": 4, "all_pass_counts": False}, "stake": None,
    "players": ["Ann", "Bob", "Cat", "Dan"], "first_dealer": "Ann",
    "hands": [
        {"dealer": "Ann", "auction": ["pass", "four", "pass", "pass"], "tricks": 4},
        {"auction": ["pass", "pass", "pass", "pass"]},
        {"misdeal": True},
        {"auction": ["nap", "wellington", "pass", "pass"], "tricks": 5},
    ],
}

#: Its changes as canonical JSON, written out by hand: seats as numbers, every dealer
#: written (hand 2 passes left to Bob, 1; hand 3 to Cat, 2; Cat deals again after the misdeal).
CANONICAL = [
    '{"draw":[],"first_dealer":0,"options":{"all_pass_counts":false,"hands_per_dealer":4},'
    '"players":["Ann","Bob","Cat","Dan"],"scheme":"nap-chain/1","stake":null,"variant":"pagat"}',
    '{"facts":{"auction":["pass","four","pass","pass"],"dealer":0,"tricks":4},"hand":1}',
    '{"facts":{"auction":["pass","pass","pass","pass"],"dealer":1},"hand":2}',
    '{"facts":{"dealer":2,"misdeal":true},"hand":3}',
    '{"facts":{"auction":["nap","wellington","pass","pass"],"dealer":2,"tricks":5},"hand":4}',
]


def by_hand(texts: list[str]) -> list[bytes]:
    """The links of ``texts``, hashed here step by step."""
    out, last = [], bytes(32)
    for text in texts:
        last = hashlib.sha256(last + text.encode("utf-8")).digest()
        out.append(last)
    return out


def test_fingerprint_is_forty_bits_in_crockford_base_32() -> None:
    assert chain.fingerprint(bytes(32)) == "0000-0000"
    assert chain.fingerprint(b"\xff" * 5 + bytes(27)) == "ZZZZ-ZZZZ"
    # 0x0842108421 is 00001 repeated eight times
    assert chain.fingerprint(bytes.fromhex("0842108421") + b"\xff" * 27) == "1111-1111"
    # 0x4ef37f4933: 01001 11011 11001 10111 11110 10010 01001 10011 = 9 27 25 23 30 18 9 19
    assert chain.fingerprint(bytes.fromhex("4ef37f4933") + bytes(27)) == "9VSQ-YJ9K"


def test_the_record_of_the_docs_example() -> None:
    evening = load(EXAMPLE)
    changes = record_of(evening)
    assert [c.kind for c in changes] == ["setup", "hand", "hand", "hand", "hand"]
    assert [chain.canonical(c).decode() for c in changes] == CANONICAL
    links = chain.links(changes)
    assert links == by_hand(CANONICAL)
    assert links[-1].hex()[:10] == "4ef37f4933"
    assert chain.fingerprint(links[-1]) == "9VSQ-YJ9K"


def test_labels_are_not_covered_but_every_fact_is() -> None:
    base = chain.fingerprint(chain.links(record_of(load(EXAMPLE)))[-1])
    labels = {**EXAMPLE, "name": "Friday", "date": "2026-11-27", "place": "The Crown", "time_zone": "Europe/London"}
    assert chain.fingerprint(chain.links(record_of(load(labels)))[-1]) == base
    # the options written out in full are the same set-up as the defaults left out
    full = load(EXAMPLE)
    assert chain.links(record_of(full)) == chain.links(record_of(dataclasses.replace(
        full, setup=dataclasses.replace(full.setup, options={"hands_per_dealer": 4}))))
    swapped = {**EXAMPLE, "players": ["Bob", "Ann", "Cat", "Dan"], "first_dealer": "Bob"}
    hands = [dict(h) for h in EXAMPLE["hands"]]
    hands[0]["dealer"] = "Bob"
    swapped["hands"] = hands
    # the same hands by seat, between other people: every link differs from the set-up on
    assert chain.links(record_of(load(swapped)))[0] != chain.links(record_of(load(EXAMPLE)))[0]
    staked = load({**EXAMPLE, "stake": {"amount": "0.10", "currency": "£"}})
    assert json.loads(chain.canonical(record_of(staked)[0]))["stake"] == {"minor": 10, "currency": "£"}


def test_a_change_of_hand_3_moves_the_links_from_change_3() -> None:
    evening = load(EXAMPLE)
    changed = dataclasses.replace(evening, hands=[*evening.hands[:2], HandFacts(dealer=2, auction=(
        "pass", "pass", "pass", "pass")), evening.hands[3]])
    a, b = chain.links(record_of(evening)), chain.links(record_of(changed))
    assert a[:3] == b[:3] and a[3] != b[3] and a[4] != b[4]
    verdict = chain.check(record_of(changed), [x.hex() for x in a])
    assert (verdict.whole, verdict.altered_from, verdict.where) == (False, 3, "change 3 (hand 3)")
    assert verdict.fingerprint == chain.fingerprint(b[-1])
    # the finish is a change of its own; a hand taken away is found where the records part
    finished = chain.links(record_of(dataclasses.replace(evening, finished=True)))
    assert finished[:5] == a and len(finished) == 6
    assert finished[5] == hashlib.sha256(a[4] + b'{"finished":true}').digest()
    undone = dataclasses.replace(evening, hands=evening.hands[:3])
    assert chain.check(record_of(undone), [x.hex() for x in a]).where == "change 4 (after the last change)"
    assert chain.check(record_of(evening), [x.hex() for x in a]).whole


def test_seats_and_renames_are_in_the_files_numbering() -> None:
    # stored as the app stores them: Eve (seat 1) joins later on the left of Ann; Bob was "Bobby" until hand 2
    setup = EveningSetup("pagat", ("Ann", "Eve", "Bob", "Cat"), 0, {}, None, (0, 2, 3))
    changes = [SeatChange(2, "rename", 2, name="Bobby"), SeatChange(2, "join", 1, 0)]
    hands = [HandFacts(dealer=0, auction=("pass", "three", "pass"), tricks=3),
             HandFacts(dealer=2, auction=("pass", "pass", "three", "pass"), tricks=2)]
    texts = [chain.canonical(c).decode() for c in chain.record(setup, hands, changes)]
    assert texts == [
        '{"draw":[],"first_dealer":0,"options":{"all_pass_counts":false,"hands_per_dealer":2},'
        '"players":["Ann","Bobby","Cat"],"scheme":"nap-chain/1","stake":null,"variant":"pagat"}',
        '{"facts":{"auction":["pass","three","pass"],"dealer":0,"tricks":3},"hand":1}',
        '{"rename":1,"to":"Bob"}',
        '{"join":3,"left_of":0,"name":"Eve"}',
        '{"facts":{"auction":["pass","pass","three","pass"],"dealer":1,"tricks":2},"hand":2}',
    ]
    # the same evening written as a file (Eve numbered after those at the first deal) and read back
    evening = load({**EXAMPLE, "version": 2, "options": {}, "players": ["Ann", "Bob", "Cat"], "hands": [
        {"dealer": "Ann", "auction": ["pass", "three", "pass"], "tricks": 3},
        {"dealer": "Bob", "auction": ["pass", "pass", "three", "pass"], "tricks": 2}],
        "seats": [{"before_hand": 2, "rename": "Bob", "from": "Bobby"},
                  {"before_hand": 2, "join": "Eve", "left_of": "Ann"}]})
    assert [chain.canonical(c).decode() for c in record_of(evening)] == texts
    assert chain.describe(record_of(evening)[2], 2) == "change 2 (a change of seats before hand 2)"


def test_the_file_carries_the_chain_and_import_checks_it() -> None:
    data = dump(load(EXAMPLE))
    assert data["chain"] == [x.hex() for x in by_hand(CANONICAL)]
    assert data["fingerprint"] == "9VSQ-YJ9K"
    assert load(data).hands == load(EXAMPLE).hands
    altered = json.loads(json.dumps(data))
    altered["hands"][2] = {"dealer": "Cat", "auction": ["pass", "pass", "pass", "pass"]}
    with pytest.raises(EveningFileError) as caught:
        load(altered)
    assert caught.value.where == "chain"
    assert caught.value.message == ("This file's record does not match its facts: it was altered from change 3 "
                                    "(hand 3). A file changed on purpose imports without its chain and fingerprint "
                                    "(remove both), under a new fingerprint.")
    stake = json.loads(json.dumps(data))
    stake["stake"] = {"amount": "0.10", "currency": "£"}
    with pytest.raises(EveningFileError, match=r"altered from change 0 \(the set-up\)"):
        load(stake)
    # a file written before the chain imports as before; a file rechained verifies, with another fingerprint
    assert load({k: v for k, v in altered.items() if k not in ("chain", "fingerprint")}).hands[2].misdeal is False
    rechained = dumps(load({k: v for k, v in altered.items() if k not in ("chain", "fingerprint")}))
    verdict = verify(rechained)
    assert verdict is not None and verdict.whole and verdict.fingerprint != "9VSQ-YJ9K"
    # the chain whole but a fingerprint written that is not its own: altered at the last change
    wrong = {**data, "fingerprint": "0000-0000"}
    verdict = verify(json.dumps(wrong))
    assert verdict is not None and (verdict.whole, verdict.where) == (False, "change 4 (hand 4)")
    bare = verify(json.dumps(EXAMPLE))
    assert (bare.chained, bare.whole, bare.fingerprint) == (False, False, "9VSQ-YJ9K")
    assert loads(dumps(load(EXAMPLE))).name == "Thursday at the Crown"


def test_nap_verify(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    whole = tmp_path / "whole.json"
    whole.write_text(dumps(load({**EXAMPLE, "stake": {"amount": "0.10", "currency": "£"}, "variant": "hoyle",
                                 "options": {}, "hands": [
                                     {"dealer": "Ann", "auction": ["pass", "three", "pass", "pass"], "tricks": 3},
                                     {"auction": ["two", "pass", "pass", "pass"], "tricks": 2},
                                     {"auction": ["pass", "pass", "four", "pass"], "tricks": 4},
                                     {"auction": ["nap", "pass", "pass", "pass"], "tricks": 5}]})))
    assert main(["verify", str(whole)]) == 0
    out = capsys.readouterr().out
    assert "whole — fingerprint " in out
    data = json.loads(whole.read_text())
    data["hands"][2]["tricks"] = 3  # Four defeated in place of made
    altered = tmp_path / "altered.json"
    altered.write_text(json.dumps(data))
    assert main(["verify", str(altered)]) == 2
    assert "altered from change 3 (hand 3)" in capsys.readouterr().out
    bare = tmp_path / "bare.json"
    bare.write_text(json.dumps(EXAMPLE))
    assert main(["verify", str(bare)]) == 1
    assert "carries no record chain" in capsys.readouterr().out
    data["hands"][2]["tricks"] = 9  # more tricks than a hand has: not an evening at all
    altered.write_text(json.dumps(data))
    assert main(["verify", str(altered)]) == 2
    assert "hands[2]" in capsys.readouterr().err


def test_stake_object_is_hashed_with_its_currency() -> None:
    setup = EveningSetup("hoyle", ("A", "B", "C"), 0, {}, Stake(10, "£"))
    other = dataclasses.replace(setup, stake=Stake(10, "$"))
    assert chain.links(chain.record(setup, []))[0] != chain.links(chain.record(other, []))[0]
