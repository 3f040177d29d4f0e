"""The table-chaos test (issue 21, "Safe to host"; after PowerSync's public Jepsen test).

A short run of tests/chaos.py on SQLite and on PostgreSQL: five phones on one table
(Playwright, Debian's Chromium, service worker on) record, correct and undo hands, go
offline and online and reload, while ``nap serve`` is killed (SIGKILL) and restarted
twice; then everyone is reconnected and every outbox drained. Nothing a phone was told
is saved may be missing or doubled, no phone may show a revision going backwards or a
server state over its own unsent entries, and every phone shows the totals ``nap
settle`` gives for the exported evening file (tests/chaos_checks.py). Longer runs:
``benchmarks/chaos.py``.

The checks themselves are first run on small made-up records, each with one fault, so
that none of them can pass by seeing nothing.

Skipped when Chromium (or PostgreSQL) is missing, unless ``NAP_REQUIRE_BROWSER=1``
(``NAP_REQUIRE_POSTGRES=1``).
"""

from __future__ import annotations

import copy
import os
import shutil
from typing import Any

import pytest

from tests import chaos_checks
from tests.chaos_checks import judge

# -- the checks, on a made-up record --------------------------------------------------


def _ack(kind: str, token: str | None, number: int, hand_id: int, version: int | None, revision: int) -> dict:
    return {"t": "ack", "kind": kind, "token": token, "number": number, "hand_id": hand_id,
            "version": version, "revision": revision, "status": 201}


def _shown(revision: int, waiting: int | None = 0, listed: int | None = 0) -> dict:
    return {"t": "shown", "cause": "live", "revision": revision, "waiting": waiting, "listed": listed}


TOTALS = {"Ann": -3, "Bob": 9, "Cat": -3, "Dan": -3}


def _good() -> dict[str, Any]:
    """Two phones: A records hands 1 and 2 (rows 10, 11) and corrects hand 1; B undoes
    hand 2. The server has exactly that; both phones show the settled totals."""
    a = {"log": [_shown(1), _ack("hand", "t1", 1, 10, 1, 2), _shown(2), _ack("hand", "t2", 2, 11, 1, 3),
                 _shown(3, 1, 1), _ack("correct", "c1", 1, 10, 2, 4), _shown(4), _shown(5)],
         "totals": dict(TOTALS)}
    b = {"log": [_shown(3), _ack("undo", None, 2, 11, None, 5), _shown(5, 0, 0)], "totals": dict(TOTALS)}
    server = {"revision": 5,
              "hands": [{"id": 10, "number": 1, "undone_number": None}, {"id": 11, "number": -11, "undone_number": 2}],
              "versions": [{"hand_id": 10, "version": 1}, {"hand_id": 10, "version": 2},
                           {"hand_id": 11, "version": 1}],
              "submissions": [{"token": "t1", "command": "record", "hand_id": 10, "hand_number": 1},
                              {"token": "t2", "command": "record", "hand_id": 11, "hand_number": 2},
                              {"token": "c1", "command": "correct", "hand_id": 10, "hand_number": 1}]}
    return {"counts": {"phones": 2}, "phones": [a, b], "server": server,
            "export": {"hands": [{"dealer": "Ann"}]}, "settled": {"totals": dict(TOTALS)}}


FAULTS = ("lost", "doubled", "backwards", "hidden", "totals")


def _faults(record: dict[str, Any]) -> dict[str, int]:
    verdict = judge(record)
    return {name: verdict[name] for name in FAULTS}


def test_a_good_record_has_no_findings() -> None:
    verdict = judge(_good())
    assert verdict["problems"] == []
    assert _faults(_good()) == dict.fromkeys(FAULTS, 0)
    assert verdict["acknowledged"] == 4 and verdict["acknowledged_by_kind"] == {"hand": 2, "correct": 1, "undo": 1}


def _with(change: Any) -> dict[str, int]:
    record = copy.deepcopy(_good())
    change(record)
    return _faults(record)


def test_a_saved_hand_the_server_lacks_is_lost() -> None:
    def told(r: dict) -> None:  # A was told hand 3 is saved (row 12), the server has nothing of it
        r["phones"][0]["log"].append(_ack("hand", "t3", 3, 12, 1, 6))
    assert _with(told) == {**dict.fromkeys(FAULTS, 0), "lost": 1}


def test_an_acknowledged_version_missing_from_the_history_is_lost() -> None:
    def drop(r: dict) -> None:
        r["server"]["versions"].remove({"hand_id": 10, "version": 2})
    assert _with(drop)["lost"] == 1


def test_an_acknowledged_undo_whose_hand_is_still_in_play_is_lost() -> None:
    def back(r: dict) -> None:
        r["server"]["hands"][1]["number"] = 2
    assert _with(back)["lost"] == 1


def test_a_correction_with_the_facts_already_saved_keeps_no_token_and_is_not_lost() -> None:
    def same(r: dict) -> None:  # answered 200 with the version it names: nothing new to save
        r["phones"][1]["log"].append({**_ack("correct", "c2", 1, 10, 2, 5), "status": 200})
    assert _with(same) == dict.fromkeys(FAULTS, 0)

    def missing(r: dict) -> None:  # answered 200 with a version the server does not have
        r["phones"][1]["log"].append({**_ack("correct", "c2", 1, 10, 3, 5), "status": 200})
    assert _with(missing)["lost"] == 1


def test_a_token_answered_as_two_saves_is_doubled() -> None:
    def twice(r: dict) -> None:
        r["phones"][1]["log"].append(_ack("hand", "t1", 1, 12, 1, 6))
    found = _with(twice)
    assert found["doubled"] == 1


def test_a_hand_no_token_made_is_doubled() -> None:
    def second(r: dict) -> None:
        r["server"]["hands"].append({"id": 12, "number": 2, "undone_number": None})
        r["server"]["versions"].append({"hand_id": 12, "version": 1})
        r["export"]["hands"].append({"dealer": "Bob"})
    assert _with(second) == {**dict.fromkeys(FAULTS, 0), "doubled": 1}


def test_a_correction_saved_twice_is_doubled() -> None:
    def again(r: dict) -> None:
        r["server"]["versions"].append({"hand_id": 10, "version": 3})
    assert _with(again) == {**dict.fromkeys(FAULTS, 0), "doubled": 1}


def test_a_revision_lower_than_one_shown_before_goes_backwards_once_per_drop() -> None:
    def older(r: dict) -> None:
        r["phones"][0]["log"].insert(5, _shown(2))  # after revision 3 was shown
    assert _with(older) == {**dict.fromkeys(FAULTS, 0), "backwards": 1}

    def stays(r: dict) -> None:  # down to 2, looked at three times, then 1: two drops
        r["phones"][0]["log"][5:5] = [_shown(2), _shown(2), _shown(2), _shown(1)]
    assert _with(stays)["backwards"] == 2


def test_a_server_state_over_unsent_entries_is_hidden() -> None:
    def over(r: dict) -> None:
        r["phones"][1]["log"].append(_shown(5, waiting=2, listed=1))
    assert _with(over) == {**dict.fromkeys(FAULTS, 0), "hidden": 1}


def test_a_phone_showing_other_totals_and_an_export_short_of_a_hand_are_caught() -> None:
    def off(r: dict) -> None:
        r["phones"][1]["totals"]["Bob"] = 8
    assert _with(off) == {**dict.fromkeys(FAULTS, 0), "totals": 1}

    def short(r: dict) -> None:
        r["export"]["hands"] = []
    assert _with(short) == {**dict.fromkeys(FAULTS, 0), "totals": 1}
    assert chaos_checks.export_hands(_good()) == []


# -- the run --------------------------------------------------------------------------

REQUIRE_BROWSER = os.environ.get("NAP_REQUIRE_BROWSER") == "1"
#: steps (one phone doing one thing), not seconds: the schedule is the seed's on any machine
STEPS = 60


def _need_chromium() -> None:
    from tests.chaos import CHROMIUM

    try:
        import playwright  # noqa: F401
    except ImportError:
        if REQUIRE_BROWSER:
            pytest.fail("playwright is not installed and NAP_REQUIRE_BROWSER=1")
        pytest.skip("playwright is not installed")
    if not (os.path.exists(CHROMIUM) or shutil.which(CHROMIUM)):
        if REQUIRE_BROWSER:
            pytest.fail(f"no Chromium at {CHROMIUM} and NAP_REQUIRE_BROWSER=1")
        pytest.skip(f"no Chromium at {CHROMIUM} (apt-get install chromium)")


@pytest.mark.parametrize("db", ["sqlite", "postgresql"])
def test_five_phones_a_killed_server_offline_and_reloads_lose_nothing(db: str, request: pytest.FixtureRequest,
                                                                       tmp_path: Any) -> None:
    _need_chromium()
    if db == "postgresql":
        request.getfixturevalue("postgres_url")  # skips (or fails, as required) without a server
    from tests.chaos import run

    record = run(steps=STEPS, phones=5, seed=21, kills=2, db=db, workdir=tmp_path)
    verdict = judge(record)
    print(f"chaos on {db}:", {k: v for k, v in verdict.items() if k != "problems"})
    assert verdict["problems"] == []
    assert {name: verdict[name] for name in FAULTS} == dict.fromkeys(FAULTS, 0)
    # not vacuous: the phones did things, the server went down, and they were told of saves
    assert verdict["phones"] == 5 and verdict["kills"] == 2 and verdict["steps"] == STEPS
    assert verdict["offline_periods"] >= 1 and verdict["reloads"] >= 1
    assert verdict["acknowledged_by_kind"].get("hand", 0) >= 3
    assert verdict["shown"] >= 5 * 2
    assert all(p["shown_final"] == record["server"]["revision"] for p in record["phones"])
