"""What one hand costs the server, request by request, with the real browser's mix (issue 23
item 2): the figure that bounds how many tables one box holds.

``benchmarks/load.py`` says where a box's knee is; this says why. In one process (Flask's test
client, no waitress, no network), on a throwaway PostgreSQL schema, a table of ``--hands``
hands is played on: each round the scorer reads the table and saves a hand as quick entry
does, then every path of the mix (``--mix``, default ``benchmarks/phone_mix.json``, written
by ``benchmarks/wire.py --mix-out``; read by :func:`load.load_mix`, one model for both) is
asked once, the scorer's own (its service worker's warm-up, ``sw``) by the scorer's phone,
the rest by a viewer's. For each request: the CPU time of the thread that served it, and
its SQL statements; then the CPU of one hand, each request weighted by how often the phones
of a table send it per hand, against ``/healthz`` (the same-run floor).

A box holds about ``cores × 60 s / (CPU per hand)`` tables playing a hand a minute, less what
nginx, PostgreSQL (and, in a benchmark, the load generator) take. Nothing is asserted.

``--live stream`` (the default) prices a viewer's ``/changes`` as ``nap serve``'s stream server
asks it: once a hand for all the table's viewers, the answer carried in their streams;
``--live poll`` as each viewer's phone asks it when nothing carries it (four a hand).

``--viewers N`` asks each table's live changes (``/changes``, the same question from every
watching phone after a hand) once from each of ``N`` viewers' phones: its row is then the
mean of the N (the first phone's answer is made, the others' kept, in one process); by default
one viewer asks, as before.

    .venv/bin/python benchmarks/mix_cost.py [--hands 30] [--rounds 20] [--viewers 1] [--database URL]
"""

from __future__ import annotations

import argparse
import os
import secrets
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from load import LIVE_ASK, MIX, PHONES, drop_schema, load_mix, make_schema, make_tables  # noqa: E402 - benchmarks/load.py

#: the scorer's own requests (load.share deals them to the scorer's phone too)
SCORERS = ("warm-up", "sw")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=30, help="hands already played at the table")
    parser.add_argument("--rounds", type=int, default=20, help="hands saved and measured (two more warm up)")
    parser.add_argument("--viewers", type=int, default=1, help="viewers' phones asking each /changes")
    parser.add_argument("--mix", default=str(MIX))
    parser.add_argument("--live", choices=("stream", "poll"), default="stream",
                        help="who asks a viewer's /changes: the stream server once a hand for the viewers "
                             "(carried in the stream), or each viewer's phone")
    parser.add_argument("--profile", default="",
                        help="profile the requests whose row contains this text (cProfile; printed at the end)")
    parser.add_argument("--profile-sort", default="cumulative", help="the profile's order (pstats: tottime, …)")
    parser.add_argument("--database", default=os.environ.get("TEST_POSTGRES_URL", "postgresql://127.0.0.1:5432/test"))
    args = parser.parse_args()
    base = args.database.replace("postgresql+psycopg://", "postgresql://")
    schema, url = make_schema(base)
    try:
        # the live part's ask (load.py models it apart from the recorded mix): once a hand by the
        # stream server for the table's viewers, or once by each viewer's phone
        live = {"kind": "other", "method": "GET", "path": LIVE_ASK, "who": "viewers",
                "per_hand": 1.0 if args.live == "stream" else float(PHONES - 1)}
        run(url, args.hands, args.rounds, [*load_mix(args.mix), live], max(1, args.viewers), args.profile,
            args.profile_sort)
    finally:
        drop_schema(base, schema)


def run(url: str, hands: int, rounds: int, mix: list[dict[str, Any]], viewers: int = 1, profile: str = "",
        profile_sort: str = "cumulative") -> None:
    import cProfile
    import pstats

    import sqlalchemy as sa

    from scorer import create_app
    from scorer.storage.models import db

    ((key, edit_key),) = make_tables(url, 1, hands)
    app = create_app({"SECRET_KEY": "mix-cost", "SQLALCHEMY_DATABASE_URI": url, "NAP_LIVE_LISTEN": False})
    statements: Counter[str] = Counter()
    current = [""]
    with app.app_context():

        @sa.event.listens_for(db.engine, "before_cursor_execute")
        def count(*_: Any) -> None:
            statements[current[0]] += 1

    scorer, viewer = app.test_client(), app.test_client()
    assert scorer.get(f"/e/{key}/scorer/{edit_key}").status_code in (200, 302)
    assert viewer.get(f"/e/{key}").status_code == 200
    watchers = [viewer] + [app.test_client() for _ in range(viewers - 1)]
    for other in watchers[1:]:
        assert other.get(f"/e/{key}").status_code == 200
    asked: Counter[str] = Counter()  # requests made per round, by path
    weights: Counter[str] = Counter()
    whose: dict[str, Any] = {}
    for entry in mix:
        # whose phone asks it (wire.py says, by the scorer's device cookie; an older mix: by kind)
        mine = entry.get("who") == "scorer" if "who" in entry else entry["kind"] in SCORERS
        label = f"{entry['path']}{' (scorer)' if mine else ''}"
        weights[label] += entry["per_hand"]
        whose[label] = scorer if mine else viewer
    paths = ["state", "save", *sorted(weights), "/healthz"]
    # the table read (GET /api/e/<key>) is priced but weighs nothing: the browser sends none per
    # hand (quick entry's page knows the next number; load.py reads it once per table)
    weights.update({"state": 0, "save": 1})
    cpu: Counter[str] = Counter()
    revision, state = 0, {}
    accept = {"Accept-Encoding": "br, gzip"}
    profiler = cProfile.Profile()
    for round_ in range(rounds + 2):
        measured = round_ >= 2
        for path in paths:
            current[0] = path if measured else ""
            profiled = measured and bool(profile) and profile in path
            if profiled:
                profiler.enable()
            started = time.thread_time()
            if path == "state":
                state = scorer.get(f"/api/e/{key}").get_json()
            elif path == "save":
                hand = {"number": len(state["hands"]) + 1, "token": secrets.token_urlsafe(12),
                        "facts": {"auction": ["three", "pass", "pass", "pass"],
                                  "tricks": 2}}
                answer = scorer.post(f"/api/e/{key}/hands", json=hand)
                assert answer.status_code == 201, answer.data
                revision = answer.get_json()["revision"]
            else:
                target = (path.removesuffix(" (scorer)").replace("{key}", key)
                          .replace("since={n}", f"since={revision - 1}").replace("{n}", str(revision)))
                phone = whose.get(path, viewer)
                phones = watchers if "/changes" in path and phone is viewer else [phone]
                for phone in phones:
                    answer = phone.get(target, headers=accept)
                    assert answer.status_code < 500, (target, answer.status_code)
                asked[path] = len(phones)
            if measured:
                cpu[path] += time.thread_time() - started
            if profiled:
                profiler.disable()
    floor = cpu["/healthz"] / rounds
    print(f"one table of {hands} hands, {rounds} hands saved; CPU per request (thread time), SQL statements, "
          f"requests per hand (the mix), CPU per hand; /healthz {floor * 1000:.2f} ms")
    print(f"{'request':56} {'CPU ms':>7} {'×healthz':>9} {'SQL':>5} {'per hand':>9} {'ms/hand':>8}")
    total = 0.0
    if viewers > 1:
        print(f"/changes asked by {viewers} viewers' phones each hand: its row is the mean of their requests")
    for path in paths:
        times = rounds * (asked[path] or 1)
        each = cpu[path] / times
        share = each * weights.get(path, 0)
        total += share
        print(f"{path[:56]:56} {each * 1000:7.2f} {each / floor:9.1f} {statements[path] / times:5.1f} "
              f"{weights.get(path, 0):9.2f} {share * 1000:8.1f}")
    requests = sum(weights.values())
    print(f"one hand: {requests:.1f} requests, {total * 1000:.0f} ms of CPU (×{total / floor:.0f} /healthz); "
          f"a hand a minute per table: {total / 60 * 1000:.2f} ms per table-second, "
          f"one core holds about {60 / total:.0f} tables")
    print(f"machine load average: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    if profile:  # its CPU above includes the profiler's own: read the shares, not the times
        print(f"profile of the requests matching {profile!r} (cProfile, by {profile_sort}):")
        pstats.Stats(profiler).sort_stats(profile_sort).print_stats(45)


if __name__ == "__main__":
    main()
