"""The chaos run's judgement (tests/chaos.py makes the record; issue 21, "Safe to host").

:func:`judge` takes the record — what each phone was told and shown (tests/chaos_hook.js:
``"ack"`` and ``"shown"`` entries), each phone's final totals, the server's database
(hands, versions, tokens), the exported evening file and ``nap settle --json`` of it —
and counts what went wrong:

- **lost**: a command a phone was told is saved that the server does not have: a hand
  or correction whose token is not kept, is kept for another hand, or whose version is
  not in the hand's history; an undo whose hand is still in play.
- **doubled**: a command saved more than once: a token answered as two different saves;
  a hand the server holds that no hand token made (a second save of one tap), or a token
  that made more than one hand; a hand with more versions than its corrections' tokens.
- **backwards**: a phone showed a revision lower than one it had shown before (counted
  once each time it drops, not again for each look while it stays low).
- **hidden**: a phone showed a server state while its page listed fewer of its own
  unsent entries than it had waiting.
- **totals**: a phone whose totals differ from ``nap settle`` of the export; and the
  export's hands must be the hands in play on the server (``export_hands``).

Each check is a plain function over the record, tested on small made-up records in
tests/test_chaos.py so that none can pass vacuously.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from typing import Any


def acks(phones: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every acknowledgement any phone got, with the phone's index as ``phone``."""
    return [{**entry, "phone": i} for i, p in enumerate(phones) for entry in p["log"] if entry.get("t") == "ack"]


def lost(record: dict[str, Any]) -> list[str]:
    """The commands phones were told are saved that the server does not have."""
    server = record["server"]
    tokens = {s["token"]: s for s in server["submissions"]}
    versions = {(v["hand_id"], v["version"]) for v in server["versions"]}
    in_play = {h["id"] for h in server["hands"] if h["number"] > 0}
    found = []
    for ack in acks(record["phones"]):
        what = f"phone {ack['phone']}: {ack['kind']} {ack.get('token')} (hand {ack.get('number')})"
        if ack["kind"] == "undo":
            if ack["hand_id"] in in_play:
                found.append(what + ": undone, but still in play")
            continue
        kept = tokens.get(ack["token"])
        if kept is None and ack["kind"] == "correct" and ack.get("status") == 200 \
                and (ack["hand_id"], ack["version"]) in versions:
            continue  # the facts already saved, sent again: nothing to save, the version it names is kept
        if kept is None:
            found.append(what + ": its token is not kept")
        elif kept["hand_id"] != ack["hand_id"]:
            found.append(what + f": its token is kept for hand row {kept['hand_id']}, not {ack['hand_id']}")
        elif (ack["hand_id"], ack["version"]) not in versions:
            found.append(what + f": version {ack['version']} is not in the hand's history")
    return found


def doubled(record: dict[str, Any]) -> list[str]:
    """The commands the server saved more than once."""
    server = record["server"]
    found = []
    answers: dict[str, set[tuple[Any, Any]]] = defaultdict(set)
    for ack in acks(record["phones"]):
        if ack["kind"] != "undo":
            answers[ack["token"]].add((ack["hand_id"], ack["version"]))
    found += [f"token {t}: answered as {sorted(a)}" for t, a in answers.items() if len(a) > 1]
    made = Counter(s["hand_id"] for s in server["submissions"] if s["command"] == "record")
    found += [f"hand row {h['id']} (hand {h['number']}) was made by {made[h['id']]} hand tokens"
              for h in server["hands"] if made[h["id"]] != 1]
    corrections = Counter(s["hand_id"] for s in server["submissions"] if s["command"] == "correct")
    history = Counter(v["hand_id"] for v in server["versions"])
    found += [f"hand row {h}: {n} versions from {corrections[h]} corrections"
              for h, n in history.items() if n - 1 > corrections[h]]
    return found


def backwards(phones: list[dict[str, Any]]) -> list[str]:
    """The times a phone dropped to a revision lower than one it had shown."""
    found = []
    for i, phone in enumerate(phones):
        highest = last = None
        for entry in phone["log"]:
            if entry.get("t") != "shown" or entry.get("revision") is None:
                continue
            if highest is not None and last is not None and entry["revision"] < min(highest, last):
                found.append(f"phone {i}: showed revision {entry['revision']} after {highest} "
                             f"({entry.get('cause')}, {entry.get('url')}, online {entry.get('online')})")
            highest = entry["revision"] if highest is None else max(highest, entry["revision"])
            last = entry["revision"]
    return found


def hidden(phones: list[dict[str, Any]]) -> list[str]:
    """The times a phone showed a server state listing fewer of its unsent entries than waited."""
    return [f"phone {i}: revision {e['revision']} shown with {e['waiting']} waiting, {e['listed']} listed "
            f"({e.get('cause')})"
            for i, phone in enumerate(phones) for e in phone["log"]
            if e.get("t") == "shown" and e.get("waiting") is not None and e.get("listed") is not None
            and e["listed"] < e["waiting"]]


def totals(record: dict[str, Any]) -> list[str]:
    """The phones whose totals differ from ``nap settle`` of the export."""
    settled = {name: int(value) for name, value in record["settled"]["totals"].items()}
    return [f"phone {i}: {p['totals']} ≠ settled {settled}"
            for i, p in enumerate(record["phones"]) if p["totals"] != settled]


def export_hands(record: dict[str, Any]) -> list[str]:
    """The export must hold exactly the hands in play on the server."""
    playing = sum(1 for h in record["server"]["hands"] if h["number"] > 0)
    exported = len(record["export"].get("hands", []))
    return [] if playing == exported else [f"the export has {exported} hands, the server {playing} in play"]


def judge(record: dict[str, Any]) -> dict[str, Any]:
    """Every check's findings (``problems``) and the counts: the run's own (phones,
    commands, kills, offline periods, …), acknowledgements, and lost / doubled /
    backwards / hidden / totals mismatches (each 0 on a good run)."""
    found = {"lost": lost(record), "doubled": doubled(record), "backwards": backwards(record["phones"]),
             "hidden": hidden(record["phones"]), "totals": totals(record) + export_hands(record)}
    counts = record.get("counts")
    run = dict(vars(counts)) if counts is not None and not isinstance(counts, dict) else dict(counts or {})
    run.pop("by_action", None)
    run.pop("refused", None)
    run.pop("stumbled", None)
    all_acks = acks(record["phones"])
    shown = sum(1 for p in record["phones"] for e in p["log"] if e.get("t") == "shown")
    return {**run, "acknowledged": len(all_acks),
            "acknowledged_by_kind": dict(Counter(a["kind"] for a in all_acks)), "shown": shown,
            "hands_in_play": len(record["export"].get("hands", [])),
            **{name: len(items) for name, items in found.items()},
            "problems": [p for items in found.values() for p in items]}
