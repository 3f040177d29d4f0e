"""Cold pages: what the first view after a change costs, against the warm view, in one run.

- **Scoresheet** of a long evening (``--hands``, default 500; ``hoyle``, 5 players, with
  a pool, so every hand carries state to the next): the *warm* view is the page of an
  unchanged evening (served from the page cache); the *cold* view is the first view
  right after one more hand is saved (through :func:`scorer.services.record_hand`, as a
  phone's save does; the save itself is not timed). Target: cold ≤ 3× warm.
- **Season** of a group of ``--evenings`` evenings (default 200) of ``--evening-hands``
  hands each: warm is the unchanged group page; cold is the first view after one of its
  evenings changed (a hand saved in it). Target: cold ≤ 3× warm.

Every figure is the median over ``--repeat`` views over HTTP on loopback from the app
under waitress in this process (one kept-alive connection, as a phone's browser), next
to ``/healthz`` measured in the same run. When the app keeps settled ledgers
(:data:`scorer.services.ledgers`), each cold view is measured a second time with that
cache switched off — every view after a change settles everything again, as before it
existed — so the ratio before/after comes from the same run. Nothing is asserted.

Run: ``.venv/bin/python benchmarks/cold.py [--hands 500] [--evenings 200] [--postgres]``
(``--postgres``: a throwaway schema in ``TEST_POSTGRES_URL``, default
``postgresql://postgres@127.0.0.1:5432/test``; otherwise a temporary SQLite file).
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import os
import random
import secrets
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from datetime import date, timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from serving import serve  # noqa: E402 - benchmarks/serving.py

from scorer.evening_file import EveningFile  # noqa: E402
from scorer.ledger import Fold  # noqa: E402
from scorer.rules import BIDS, PASS, EveningSetup, HandFacts, RulesError, get_variant  # noqa: E402

OPTIONS = {"pool": True, "lowest_bid": 1}


def hoyle_hands(count: int, seed: int, players: int = 5) -> tuple[EveningSetup, list[HandFacts]]:
    """A legal ``hoyle`` evening of ``count`` hands (pool on, so the state is carried from
    hand to hand), built from a fixed seed: random one-round auctions and tricks, an
    occasional misdeal, each hand checked by the engine as the next hand."""
    rng = random.Random(seed)
    names = tuple(f"Player {chr(65 + i)}" for i in range(players))
    variant = get_variant("hoyle")
    fold = Fold(variant.check_setup(EveningSetup("hoyle", names, 0, dict(OPTIONS), None)))
    ladder = [b.id for b in variant.ladder(fold.setup.options)]
    while len(fold.rows) < count:
        dealer = fold.next_dealer
        if rng.random() < 0.03:
            facts = HandFacts(dealer, misdeal=True)
        else:
            calls, top = [], -1
            for _ in range(players):
                higher = [b for b in ladder if BIDS[b].rank > top]
                if higher and rng.random() < 0.35:
                    calls.append(rng.choice(higher[:3]))
                    top = BIDS[calls[-1]].rank
                else:
                    calls.append(PASS)
            bid = any(c != PASS for c in calls)
            facts = HandFacts(dealer, tuple(calls), rng.randint(0, 5) if bid else None)
        try:
            fold.add(facts)
        except RulesError:
            continue
    return fold.setup, [row.facts for row in fold.rows]


def timed(fn: Callable[[], object], repeat: int, before: Callable[[], object] | None = None) -> float:
    """Median seconds of ``repeat`` calls of ``fn`` (after one untimed call); ``before``
    runs untimed ahead of each call (the change that makes the next view cold)."""
    if before is not None:
        before()
    fn()
    samples = []
    for _ in range(repeat):
        if before is not None:
            before()
        start = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


@contextlib.contextmanager
def database(postgres: bool) -> Iterator[str]:
    """A throwaway database URL: a PostgreSQL schema, or a SQLite file."""
    if not postgres:
        with tempfile.TemporaryDirectory() as tmp:
            yield f"sqlite:///{tmp}/cold.sqlite3"
        return
    import psycopg

    url = os.environ.get("TEST_POSTGRES_URL", "postgresql://postgres@127.0.0.1:5432/test")
    schema = f"nap_bench_{secrets.token_hex(6)}"
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(f'CREATE SCHEMA "{schema}"')
    try:
        yield url.replace("postgresql://", "postgresql+psycopg://", 1) + f"?options=-csearch_path%3D{schema}"
    finally:
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute(f'DROP SCHEMA "{schema}" CASCADE')


class Table:
    """An evening in the database with the hands still to be saved in it, one per change."""

    def __init__(self, app: Any, setup: EveningSetup, hands: list[HandFacts], stored: int, **extra: Any) -> None:
        from scorer import services

        self.app = app
        self.pending = hands[stored:]
        with app.app_context():
            evening = services.import_evening(EveningFile(setup=setup, hands=hands[:stored], name="Benchmark"))
            for name, value in extra.items():
                setattr(evening, name, value)
            services.db.session.commit()
            self.key = evening.key

    def save_one(self) -> None:
        """Save the next hand, as a phone's quick entry does (one unit of work)."""
        from scorer import services

        with self.app.app_context():
            evening = services.get_evening(self.key)
            assert evening is not None
            services.record_hand(evening, len(evening.hands) + 1, self.pending.pop(0))
            services.db.session.remove()


def get(conn: http.client.HTTPConnection, path: str) -> Callable[[], bytes]:
    def fetch() -> bytes:
        conn.request("GET", path)
        response = conn.getresponse()
        body = response.read()
        assert response.status == 200, (path, response.status)
        return body

    return fetch


@contextlib.contextmanager
def ledgers_off() -> Iterator[bool]:
    """The app's cache of settled ledgers switched off inside the block (every view then
    settles everything again); yields False when this app has no such cache."""
    from scorer import services

    cache = getattr(services, "ledgers", None)
    if cache is None:
        yield False
        return
    cache.enabled = False
    try:
        yield True
    finally:
        cache.enabled = True


def line(what: str, cold: float, warm: float, trivial: float) -> str:
    return (f"{what}: cold {cold * 1000:.1f} ms, warm {warm * 1000:.2f} ms = {cold / warm:.1f}× warm "
            f"(target ≤ 3×); cold = {cold / trivial:.1f}× /healthz")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hands", type=int, default=500, help="hands of the long evening")
    parser.add_argument("--evenings", type=int, default=200, help="evenings of the group")
    parser.add_argument("--evening-hands", type=int, default=20, help="hands of each evening of the group")
    parser.add_argument("--repeat", type=int, default=15, help="views timed per figure (median)")
    parser.add_argument("--postgres", action="store_true", help="on PostgreSQL instead of SQLite")
    args = parser.parse_args()

    from flask_migrate import upgrade

    from scorer import create_app
    from scorer.groups import create_group

    changes = 2 * args.repeat + 4  # hands saved into the long evening, and into each season change
    with database(args.postgres) as url:
        app = create_app({"SQLALCHEMY_DATABASE_URI": url, "SECRET_KEY": "bench"})
        with app.app_context():
            upgrade()
            group = create_group("Benchmark club")
            group_id, group_key = group.id, group.key
        setup, hands = hoyle_hands(args.hands + changes, seed=7)
        long = Table(app, setup, hands, args.hands)
        members = []
        first = date(2026, 1, 1)
        for i in range(args.evenings):
            setup, hands = hoyle_hands(args.evening_hands + changes // args.evenings + 2, seed=100 + i)
            members.append(Table(app, setup, hands, args.evening_hands, group_id=group_id,
                                 played_on=first + timedelta(days=i)))
        turn = iter(range(10**9))

        def change_season() -> None:
            members[next(turn) % len(members)].save_one()

        server, port = serve(app, threads=4)
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
        try:
            healthz = timed(get(conn, "/healthz"), args.repeat * 3)
            sheet = get(conn, f"/e/{long.key}")
            season = get(conn, f"/g/{group_key}")
            sheet_warm = timed(sheet, args.repeat * 3)
            sheet_cold = timed(sheet, args.repeat, before=long.save_one)
            chart_cold = timed(get(conn, f"/e/{long.key}/chart.svg"), args.repeat, before=long.save_one)
            season_warm = timed(season, args.repeat * 3)
            season_cold = timed(season, args.repeat, before=change_season)
            with ledgers_off() as switched:
                if switched:
                    sheet_off = timed(sheet, args.repeat, before=long.save_one)
                    season_off = timed(season, args.repeat, before=change_season)
        finally:
            conn.close()
            time.sleep(0.1)
            server.close()
            with app.app_context():
                from scorer.models import db

                db.session.remove()
                db.engine.dispose()

    where = "PostgreSQL" if args.postgres else "SQLite"
    print(f"cold pages on {where}; medians of {args.repeat} views; /healthz {healthz * 1000:.2f} ms")
    sheet_what = f"scoresheet, {args.hands} hands, first view after one more hand is saved"
    season_what = f"season, {args.evenings} evenings × {args.evening_hands} hands, first view after one evening changed"
    print(line(sheet_what, sheet_cold, sheet_warm, healthz))
    print(f"  its chart (chart.svg), first view after one more hand: {chart_cold * 1000:.1f} ms (not a target)")
    print(line(season_what, season_cold, season_warm, healthz))
    if switched:
        print("with the ledger cache switched off (every view after a change settles everything again, as before):")
        print(f"  {line(sheet_what, sheet_off, sheet_warm, healthz)}; after/before {sheet_cold / sheet_off:.2f}")
        print(f"  {line(season_what, season_off, season_warm, healthz)}; after/before {season_cold / season_off:.2f}")


if __name__ == "__main__":
    main()
