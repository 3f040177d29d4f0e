"""What the record's chain costs (issue 22 item 6); prints figures, asserts nothing.

A 2,000-hand evening of random legal hands (``tests/long_evenings.py``). Measured in one
run, each the median of ``--repeat`` rounds:

- **settle**: :func:`scorer.evening.ledger.settle_evening` of the whole evening, from
  scratch (the baseline: what a scoresheet works out when nothing is kept);
- **chain from scratch**: the record of the whole evening and its 2,000 links
  (:func:`scorer.evening.chain.record`, :func:`~scorer.evening.chain.links`), as the PDF,
  ``GET /api/e/<key>`` and an export do, and its ratio to settle;
- **chain, a later revision**: one more hand chained on the kept last link, as the
  scoresheet does (:func:`scorer.storage.records.record_of` through
  :meth:`~scorer.storage.kept_ledgers.Settled.running`), against chaining every hand again;
- **verify a file**: :func:`scorer.evening.verify.verify` of the exported file against
  :func:`~scorer.evening.file.loads` without the chain check (the import's own reading).

Run: ``.venv/bin/python benchmarks/chain_cost.py [--hands 2000] [--repeat 5]``.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from long_evenings import long_evening  # noqa: E402

from scorer.evening import chain  # noqa: E402
from scorer.evening.file import dumps, loads  # noqa: E402
from scorer.evening.ledger import settle_evening  # noqa: E402
from scorer.evening.verify import verify  # noqa: E402


def median(run: Callable[[], object], repeat: int) -> float:
    """The median wall time of ``run`` over ``repeat`` rounds, in milliseconds."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    evening = long_evening(args.hands)
    setup, hands = evening.setup, evening.hands

    settle = median(lambda: settle_evening(setup, hands), args.repeat)
    scratch = median(lambda: chain.links(chain.record(setup, hands)), args.repeat)
    print(f"{args.hands} hands")
    print(f"  settle from scratch (baseline)   {settle:9.2f} ms")
    print(f"  chain from scratch               {scratch:9.2f} ms   {scratch / settle:6.1%} of settling")

    seats = chain.Seats(setup)
    last = chain.links(chain.record(setup, hands[:-1]))[-1]
    one = median(lambda: chain.link(last, chain.hand_change(len(hands), hands[-1], seats)), args.repeat * 20)
    print(f"  chain, a later revision (1 hand) {one * 1000:9.1f} µs   vs from scratch {scratch / one:8.0f}× less")

    text = dumps(evening)
    read = median(lambda: loads(text, check_chain=False), args.repeat)
    checked = median(lambda: verify(text), args.repeat)
    print(f"  file: {len(text.encode()):,} bytes, of which the chain {65 * (len(hands) + 1) + 24:,}")
    print(f"  read the file (import's reading) {read:9.2f} ms")
    print(f"  verify the file                  {checked:9.2f} ms   {checked / read:6.2f}× the reading")


if __name__ == "__main__":
    main()
