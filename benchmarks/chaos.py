"""The table-chaos run, long (issue 21, "Safe to host"; tests/test_chaos.py is the short one).

Five phones (or ``--phones``) on one table in Debian's Chromium through Playwright,
each at random recording, correcting and undoing hands, going offline and online and
reloading, while ``nap serve`` (on a throwaway SQLite file, or a PostgreSQL database of
its own on ``TEST_POSTGRES_URL``'s server with ``--db postgresql``) is killed with
SIGKILL and restarted ``--kills`` times; then everyone is reconnected and every outbox
drained (tests/chaos.py), and the record judged (tests/chaos_checks.py).

Prints the run's counts — phones, steps, commands, acknowledgements by kind, kills,
offline periods, reloads, refused (and why), hands in play — and the findings: lost,
doubled, backwards, hidden, totals (each 0 on a good run; any finding is printed and
the exit status is 1).

    .venv/bin/python benchmarks/chaos.py [--seconds 600] [--phones 5] [--seed 1] [--kills 10] [--db sqlite]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.chaos import run  # noqa: E402
from tests.chaos_checks import judge  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=600.0, help="how long the phones play (default 600)")
    parser.add_argument("--phones", type=int, default=5)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--kills", type=int, default=10, help="server kills, spread evenly (default 10)")
    parser.add_argument("--db", choices=("sqlite", "postgresql"), default="sqlite")
    args = parser.parse_args()
    began = time.monotonic()
    print(f"chaos: {args.phones} phones, {args.seconds:.0f} s, {args.kills} kills, seed {args.seed}, {args.db}")
    record = run(seconds=args.seconds, phones=args.phones, seed=args.seed, kills=args.kills, db=args.db,
                 say=print)
    verdict = judge(record)
    counts = record["counts"]
    print(f"took {time.monotonic() - began:.0f} s in all")
    for name in ("phones", "steps", "commands", "acknowledged", "acknowledged_by_kind", "kills", "offline_periods",
                 "reloads", "stumbles", "refused_dismissed", "hands_in_play", "shown"):
        print(f"  {name:22} {verdict[name]}")
    print(f"  {'steps by action':22} {dict(counts.by_action)}")
    for why, n in counts.refused.most_common():
        print(f"  refused {n:3} × {why}")
    for why, n in counts.stumbled.most_common():
        print(f"  stumbled {n:3} × {why}")
    for name in ("lost", "doubled", "backwards", "hidden", "totals"):
        print(f"  {name:22} {verdict[name]}")
    for problem in verdict["problems"]:
        print(f"  PROBLEM: {problem}")
    return 1 if verdict["problems"] else 0


if __name__ == "__main__":
    sys.exit(main())
