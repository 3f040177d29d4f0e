"""Cold pages: what the first view after a change costs, against the warm view, in one run.

- **Scoresheet** of a long evening (``--hands``, default 500; ``hoyle``, 5 players, with
  a pool, so every hand carries state to the next): the *cold* view is the first view
  right after one more hand is saved (through :func:`scorer.storage.hand_writes.record_hand`, as a
  phone's save does; the save itself is not timed); the *warm* view is the same page
  viewed again at once, unchanged (served from the page cache). Target: cold ≤ 3× warm.
  Also shown, without a target: after a correction of the evening's first contract
  (every later hand is ruled on again), and after an undo of the last hand.
- **Season** of a group of ``--evenings`` evenings (default 200) of ``--evening-hands``
  hands each: cold is the first view of the group's page after one of its evenings
  changed (a hand saved in the latest evening, tonight's); warm the same page again.
  Target: cold ≤ 3× warm. Also shown: after a hand saved in the oldest evening (every
  later evening's running season total moves).

Cold and warm views alternate (change, cold view, warm view; repeated ``--repeat``
times, medians), so a busy machine slows both alike; every view is a GET over HTTP on
loopback, one kept-alive connection as a phone's browser, to the app under waitress in
this process. ``/healthz`` is measured in the same run. When the app keeps settled
ledgers (:data:`scorer.storage.kept_ledgers.ledgers`), the new-hand figures are measured once more
with them switched off, as a same-run "before" for that cache (the rows of a page are
still kept then). Nothing is asserted.

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
from dataclasses import dataclass, replace
from datetime import date, timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench import timed  # noqa: E402 - benchmarks/bench.py
from serving import serve  # noqa: E402 - benchmarks/serving.py

from scorer.evening.file import EveningFile  # noqa: E402
from scorer.evening.ledger import Fold  # noqa: E402
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


@dataclass(frozen=True)
class ColdWarm:
    """Medians in seconds: wall time and this process's CPU time (the app and the client
    both run in it: on SQLite all the work of a view; the CPU time is what a busy
    machine's other processes do not inflate) of the cold and the warm view."""

    cold: float
    warm: float
    cold_cpu: float
    warm_cpu: float


def cold_warm(view: Callable[[], object], change: Callable[[], object], repeat: int) -> ColdWarm:
    """The first view after ``change`` (cold) and the view right after it (warm), over
    ``repeat`` rounds after one untimed round."""
    samples: list[tuple[float, float, float, float]] = []
    for round_ in range(repeat + 1):
        change()
        wall, cpu = time.perf_counter(), time.process_time()
        view()
        wall_1, cpu_1 = time.perf_counter(), time.process_time()
        view()
        wall_2, cpu_2 = time.perf_counter(), time.process_time()
        if round_:
            samples.append((wall_1 - wall, wall_2 - wall_1, cpu_1 - cpu, cpu_2 - cpu_1))
    return ColdWarm(*(statistics.median(column) for column in zip(*samples, strict=True)))


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
        from scorer.storage import evening_writes, models

        self.app = app
        self.pending = hands[stored:]
        with app.app_context():
            evening = evening_writes.import_evening(EveningFile(setup=setup, hands=hands[:stored], name="Benchmark"))
            for name, value in extra.items():
                setattr(evening, name, value)
            models.db.session.commit()
            self.key = evening.key

    def _evening(self) -> Any:
        from scorer.storage import units

        evening = units.get_evening(self.key)
        assert evening is not None
        return evening

    def save_one(self) -> None:
        """Save the next hand, as a phone's quick entry does (one unit of work)."""
        from scorer.storage import hand_writes, models

        with self.app.app_context():
            evening = self._evening()
            hand_writes.record_hand(evening, len(evening.hands) + 1, self.pending.pop(0))
            models.db.session.remove()

    def undo_last(self) -> None:
        """Undo the last hand (its facts go back to the front of the hands to save)."""
        from scorer.storage import evenings, hand_writes, models

        with self.app.app_context():
            evening = self._evening()
            last = evening.hands[-1]
            self.pending.insert(0, evenings.facts_of(last.current, len(evening.players)))
            hand_writes.undo_last_hand(evening, last.number, last.current.version)
            models.db.session.remove()

    def correct_first_contract(self) -> None:
        """Correct the tricks of the evening's first hand with a contract (one more, or
        none after five): that hand and every hand after it are ruled on again."""
        from scorer.storage import evenings, hand_writes, models

        with self.app.app_context():
            evening = self._evening()
            n = len(evening.players)
            hand = next(h for h in evening.hands if evenings.facts_of(h.current, n).tricks is not None)
            facts = evenings.facts_of(hand.current, n)
            tricks = (facts.tricks or 0) + 1 if (facts.tricks or 0) < 5 else 0
            hand_writes.correct_hand(evening, hand.number, hand.current.version, replace(facts, tricks=tricks))
            models.db.session.remove()


def get(conn: http.client.HTTPConnection, path: str) -> Callable[[], bytes]:
    def fetch() -> bytes:
        conn.request("GET", path)
        response = conn.getresponse()
        body = response.read()
        assert response.status == 200, (path, response.status)
        return body

    return fetch


def _settled() -> Any:
    """The app's :mod:`scorer.storage.kept_ledgers`, or None when the code measured has none (a checkout
    of the code before it, run with this script: look beside that checkout's package, not
    through the editable install's finder)."""
    import scorer

    if not Path(scorer.__file__).with_name("settled.py").exists():
        return None
    from scorer.storage import kept_ledgers as settled

    return settled


@contextlib.contextmanager
def ledgers_off() -> Iterator[bool]:
    """The app's kept ledgers (:data:`scorer.storage.kept_ledgers.ledgers`) switched off inside the
    block (every view then settles everything again); yields False when the app has none."""
    settled = _settled()
    cache = None if settled is None else settled.ledgers
    if cache is None:
        yield False
        return
    cache.enabled = False
    try:
        yield True
    finally:
        cache.enabled = True


@contextlib.contextmanager
def elsewhere() -> Iterator[bool]:
    """Inside the block a write leaves this process's kept ledgers alone, as a write made
    by another process would (the next view here reads what changed from the database);
    yields False when the app keeps no ledgers."""
    settled = _settled()
    if settled is None:
        yield False
        return
    remember = settled.remember
    settled.remember = lambda *args, **kwargs: None
    try:
        yield True
    finally:
        settled.remember = remember


def line(what: str, figures: ColdWarm, trivial: float, target: bool = True) -> str:
    aim = " (target ≤ 3×)" if target else ""
    f = figures
    return (f"{what}: cold {f.cold * 1000:.1f} ms, warm {f.warm * 1000:.2f} ms = {f.cold / f.warm:.1f}× warm{aim}; "
            f"CPU time cold {f.cold_cpu * 1000:.1f} ms, warm {f.warm_cpu * 1000:.2f} ms = "
            f"{f.cold_cpu / f.warm_cpu:.1f}× warm; cold = {f.cold / trivial:.0f}× /healthz")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hands", type=int, default=500, help="hands of the long evening")
    parser.add_argument("--evenings", type=int, default=200, help="evenings of the group")
    parser.add_argument("--evening-hands", type=int, default=20, help="hands of each evening of the group")
    parser.add_argument("--repeat", type=int, default=15, help="rounds timed per figure (median)")
    parser.add_argument("--postgres", action="store_true", help="on PostgreSQL instead of SQLite")
    args = parser.parse_args()

    from flask_migrate import upgrade

    from scorer import create_app
    from scorer.storage.groups import create_group

    saves = 4 * (args.repeat + 1) + 2  # hands saved into one evening at most, over the whole run
    out: dict[str, ColdWarm] = {}
    with database(args.postgres) as url:
        app = create_app({"SQLALCHEMY_DATABASE_URI": url, "SECRET_KEY": "bench"})
        with app.app_context():
            upgrade()
            group = create_group("Benchmark club")
            group_id, group_key = group.id, group.key
        setup, hands = hoyle_hands(args.hands + saves, seed=7)
        long = Table(app, setup, hands, args.hands)
        members = []
        first = date(2026, 1, 1)
        for i in range(args.evenings):
            setup, hands = hoyle_hands(args.evening_hands + saves, seed=100 + i)
            members.append(Table(app, setup, hands, args.evening_hands, group_id=group_id,
                                 played_on=first + timedelta(days=i)))
        oldest, latest = members[0], members[-1]

        server, port = serve(app, threads=4)
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
        try:
            healthz = timed(get(conn, "/healthz"), args.repeat * 3)
            sheet = get(conn, f"/e/{long.key}")
            season = get(conn, f"/g/{group_key}")
            out["sheet"] = cold_warm(sheet, long.save_one, args.repeat)
            with elsewhere() as other:
                if other:
                    out["sheet, elsewhere"] = cold_warm(sheet, long.save_one, args.repeat)
                    out["season, elsewhere"] = cold_warm(season, latest.save_one, args.repeat)
            out["sheet, correction"] = cold_warm(sheet, long.correct_first_contract, args.repeat)

            def undo() -> None:
                long.save_one()
                sheet()
                long.undo_last()

            out["sheet, undo"] = cold_warm(sheet, undo, args.repeat)
            out["chart"] = cold_warm(get(conn, f"/e/{long.key}/chart.svg"), long.save_one, args.repeat)
            out["season"] = cold_warm(season, latest.save_one, args.repeat)
            out["season, oldest"] = cold_warm(season, oldest.save_one, args.repeat)
            with ledgers_off() as switched:
                if switched:
                    out["sheet, off"] = cold_warm(sheet, long.save_one, args.repeat)
                    out["season, off"] = cold_warm(season, latest.save_one, args.repeat)
        finally:
            conn.close()
            time.sleep(0.1)
            server.close()
            with app.app_context():
                from scorer.storage.models import db

                db.session.remove()
                db.engine.dispose()

    where = "PostgreSQL" if args.postgres else "SQLite"
    print(f"cold pages on {where}; medians of {args.repeat} rounds; /healthz {healthz * 1000:.2f} ms")
    sheet_what = f"scoresheet, {args.hands} hands, first view after one more hand is saved"
    season_what = f"season, {args.evenings} evenings × {args.evening_hands} hands, first view after a hand is saved " \
                  "in the latest evening"
    print(line(sheet_what, out["sheet"], healthz))
    if "sheet, elsewhere" in out:
        print("  " + line("the same when another process saved the hand", out["sheet, elsewhere"], healthz))
    print("  " + line("the same after a correction of the first contract", out["sheet, correction"], healthz, False))
    print("  " + line("the same after an undo of the last hand", out["sheet, undo"], healthz, False))
    print("  " + line("its chart (chart.svg) after one more hand", out["chart"], healthz, False))
    print(line(season_what, out["season"], healthz))
    if "season, elsewhere" in out:
        print("  " + line("the same when another process saved the hand", out["season, elsewhere"], healthz))
    print("  " + line("the same after a hand saved in the oldest evening", out["season, oldest"], healthz, False))
    if switched:
        print("with the kept ledgers switched off (every view after a change settles the whole evening again):")
        for name, what in (("sheet", sheet_what), ("season", season_what)):
            off = out[f"{name}, off"]
            print(f"  {line(what, off, healthz, False)}; cold with the kept ledgers = "
                  f"{out[name].cold / off.cold:.2f}× cold without (CPU time {out[name].cold_cpu / off.cold_cpu:.2f}×)")


if __name__ == "__main__":
    main()
