"""Benchmarks for a 100-hand evening; prints figures, asserts nothing.

- ledger recompute: settling all 100 hands from their facts (target < 5 ms);
- scoresheet page vs the trivial ``/healthz`` route, both over HTTP from a real
  threaded server (waitress) on loopback, measured in the same run (target ≤ 3×);
- the unchanged evening's PDF over HTTP (from the revision cache) vs ``/healthz``;
- the PDF renders, each against a baseline in the same run: ``benchmarks/pdf_bench.py``;
- a group's season page (50 evenings of 20 hands) vs ``/healthz`` over HTTP in the same run,
  unchanged (served from the season cache) and after a change (every evening settled again).

Run: ``.venv/bin/python benchmarks/bench.py [--hands 100] [--repeat 30]``.
"""

from __future__ import annotations

import argparse
import http.client
import random
import socket
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from scorer.evening.file import EveningFile  # noqa: E402
from scorer.evening.ledger import settle_evening  # noqa: E402
from scorer.rules import BIDS, PASS, EveningSetup, HandFacts, get_variant  # noqa: E402


def make_evening(hands: int, seed: int = 7) -> EveningFile:
    """A legal pagat evening of ``hands`` hands, 4 players, built from a fixed seed."""
    rng = random.Random(seed)
    variant = get_variant("pagat")
    setup = variant.check_setup(
        EveningSetup("pagat", ("Ann", "Bob", "Cat", "Dan"), 0, {"hands_per_dealer": 50}, None)
    )
    ladder = variant.ladder(setup.options)
    facts: list[HandFacts] = []
    dealer = 0
    for _ in range(hands):
        if rng.random() < 0.05:
            hand = HandFacts(dealer, misdeal=True)
        else:
            calls: list[str] = []
            top = 0
            for _seat in range(4):
                options = [b.id for b in ladder if b.rank > top and (b.id != "wellington" or "nap" in calls)]
                if options and rng.random() < 0.4:
                    calls.append(rng.choice(options))
                    top = BIDS[calls[-1]].rank
                else:
                    calls.append(PASS)
            bid_made = any(c != PASS for c in calls)
            hand = HandFacts(dealer, tuple(calls), rng.randint(0, 5) if bid_made else None)
        facts.append(hand)
        dealer = variant.settle(hand, setup).next_dealer
    return EveningFile(setup=setup, hands=facts, name=f"Benchmark, {hands} hands")


def timed(fn: Callable[[], object], repeat: int) -> float:
    """Median seconds of ``repeat`` calls (after one warm-up call)."""
    fn()
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--hands", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=30)
    parser.add_argument("--long-hands", type=int, default=300, help="hands of the long evening's PDF")
    parser.add_argument("--pdf-repeat", type=int, default=5, help="rounds of each PDF figure (benchmarks/pdf_bench.py)")
    parser.add_argument("--pdf-limit", type=float, default=120.0, help="PDF_TIME_LIMIT for the PDF figures")
    parser.add_argument("--group-evenings", type=int, default=50, help="evenings of the season benchmark's group")
    parser.add_argument("--group-hands", type=int, default=20, help="hands of each evening of that group")
    args = parser.parse_args()
    evening = make_evening(args.hands)

    recompute = timed(lambda: settle_evening(evening.setup, evening.hands), args.repeat * 5)
    print(f"ledger recompute, {args.hands} hands: {recompute * 1000:.2f} ms (target < 5 ms)")

    from flask_migrate import upgrade
    from waitress.server import create_server

    from scorer import create_app
    from scorer.storage import evening_writes, evenings, units
    from scorer.storage.models import db

    with tempfile.TemporaryDirectory() as tmp:
        app = create_app({"SQLALCHEMY_DATABASE_URI": f"sqlite:///{tmp}/bench.sqlite3", "SECRET_KEY": "bench"})
        with app.app_context():
            upgrade()
            key = evening_writes.import_evening(evening).key
            from scorer.storage.groups import create_group
            from scorer.storage.models import Evening

            season_group = create_group("Benchmark club")
            group_key = season_group.key
            # each import is its own unit of work (it rolls back what is pending first), so the
            # evenings join the group after every import: one evening a week, each from its own seed
            members = [evening_writes.import_evening(make_evening(args.group_hands, seed=100 + i))
                       for i in range(args.group_evenings)]
            for i, member in enumerate(members):
                member.group_id = season_group.id
                member.played_on = member.played_on.fromordinal(member.played_on.toordinal() - 7 * i)
            db.session.commit()
            assert db.session.query(Evening).filter_by(group_id=season_group.id).count() == args.group_evenings

        port = free_port()
        server = create_server(app, host="127.0.0.1", port=port, threads=4)
        thread = threading.Thread(target=server.run, daemon=True)
        thread.start()
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)

        def get(path: str) -> Callable[[], object]:
            def fetch() -> bytes:
                conn.request("GET", path)
                response = conn.getresponse()
                body = response.read()
                assert response.status == 200, (path, response.status)
                return body

            return fetch

        trivial = timed(get("/healthz"), args.repeat)
        sheet = timed(get(f"/e/{key}"), args.repeat)

        from scorer.web.views import common

        def cold_sheet() -> object:
            for name in ("sheet_cache", "page_cache", "frame_cache"):  # frame_cache: not in older checkouts
                cache = getattr(common, name, None)
                if cache is not None:
                    cache.clear()
            return get(f"/e/{key}")()

        sheet_cold = timed(cold_sheet, args.repeat)
        print(f"trivial route /healthz over HTTP: {trivial * 1000:.2f} ms")
        print(f"scoresheet, {args.hands} hands, over HTTP, unchanged evening: {sheet * 1000:.2f} ms "
              f"= {sheet / trivial:.1f}× the trivial route (target ≤ 3×)")
        print(f"scoresheet, {args.hands} hands, over HTTP, first view after a change: {sheet_cold * 1000:.2f} ms "
              f"= {sheet_cold / trivial:.1f}× the trivial route")

        from scorer.web.views.groups import fragment_cache, season_cache

        season_warm = timed(get(f"/g/{group_key}"), args.repeat)

        def cold_season() -> object:
            season_cache.clear()
            fragment_cache.clear()
            return get(f"/g/{group_key}")()

        season_cold = timed(cold_season, max(5, args.repeat // 3))
        trivial_again = timed(get("/healthz"), args.repeat)
        season_what = f"group season page, {args.group_evenings} evenings × {args.group_hands} hands, over HTTP"
        print(f"trivial route /healthz again, after the season page: {trivial_again * 1000:.2f} ms")
        print(f"{season_what}, unchanged group: {season_warm * 1000:.2f} ms = {season_warm / trivial:.1f}× the "
              f"trivial route")
        print(f"{season_what}, first view after a change (every evening settled): {season_cold * 1000:.2f} ms "
              f"= {season_cold / trivial:.1f}× the trivial route")
        conn.request("GET", f"/e/{key}/evening.pdf")  # rendered once (through the render worker), then cached
        first = conn.getresponse()
        first.read()
        if first.status == 200:
            pdf_warm = timed(get(f"/e/{key}/evening.pdf"), args.repeat)
            print(f"evening PDF, {args.hands} hands, unchanged evening (served from the revision cache) over HTTP: "
                  f"{pdf_warm * 1000:.2f} ms = {pdf_warm / trivial:.1f}× the trivial route")
        else:
            print(f"evening PDF, {args.hands} hands, over HTTP: {first.status} (past the time limit or busy)")
        conn.close()
        time.sleep(0.1)  # let the last channel finish before the server closes
        server.close()

        from scorer.reports.pdf import evening_pdf_html

        with app.app_context(), app.test_request_context():
            long_key = evening_writes.import_evening(make_evening(args.long_hands, seed=11)).key
            stored = units.get_evening(long_key)
            assert stored is not None
            ledger = evenings.ledger_of(stored)
            long_html = timed(lambda: evening_pdf_html(stored, ledger), 3)
            db.session.remove()
        print(f"evening PDF, {args.long_hands} hands: its HTML and chart built in {long_html * 1000:.0f} ms")

    # the renders themselves, each against a baseline in the same run (benchmarks/pdf_bench.py)
    import pdf_bench

    with tempfile.TemporaryDirectory() as tmp:
        pdf_app = create_app({"SQLALCHEMY_DATABASE_URI": f"sqlite:///{tmp}/pdf.sqlite3", "SECRET_KEY": "bench",
                              "PDF_TIME_LIMIT": args.pdf_limit})
        with pdf_app.app_context():
            upgrade()
        pdf_bench.run(pdf_app, repeat=args.pdf_repeat, limit=args.pdf_limit)


if __name__ == "__main__":
    main()
