"""What explaining the settle-up costs (issue 22 item 7): :func:`scorer.evening.transfers.explain`
against the settle-up it explains (:func:`scorer.evening.settle.settle_up`) and against folding
the evening (:func:`scorer.evening.ledger.settle_evening`), on long money evenings made by
tests/long_evenings.py, measured in the same run. Prints ratios, not a verdict:

    .venv/bin/python benchmarks/paid_explain.py
"""

from __future__ import annotations

import dataclasses
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from scorer.evening.ledger import settle_evening  # noqa: E402
from scorer.evening.settle import settle_up  # noqa: E402
from scorer.evening.transfers import explain  # noqa: E402
from scorer.rules import Stake  # noqa: E402
from tests.long_evenings import long_evening  # noqa: E402


def best(fn, repeat: int = 5) -> float:  # type: ignore[no-untyped-def]
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    for hands in (50, 300, 2000):
        evening = long_evening(hands)
        setup = dataclasses.replace(evening.setup, stake=Stake(10, "£"))
        ledger = settle_evening(setup, evening.hands)
        settle = settle_up(ledger)
        fold = best(lambda: settle_evening(setup, evening.hands), 3)  # noqa: B023
        up = best(lambda: settle_up(ledger))  # noqa: B023
        why = best(lambda: explain(ledger, settle))  # noqa: B023
        print(f"{hands:5d} hands: explain {why * 1e3:8.3f} ms = {why / up:6.1f}x settle_up "
              f"({up * 1e3:.3f} ms), {why / fold:.4f}x the fold ({fold * 1e3:.1f} ms); "
              f"{len(settle.payments)} payments")


if __name__ == "__main__":
    main()
