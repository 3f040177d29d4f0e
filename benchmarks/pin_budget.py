"""What the PIN budget bounds (issue 21 item 5), before and after, from the constants of
:mod:`scorer.storage.pin_budget` and the length of a new PIN; prints, asserts nothing.

- an attacker's odds of finding a table's PIN in a day;
- how many wrong PINs one watcher (one network, fresh cookies) needs to pause PIN entry
  for the whole table, and how many networks it takes now.

Run: ``.venv/bin/python benchmarks/pin_budget.py``.
"""

from __future__ import annotations

import sys
from datetime import timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from scorer.storage import pin_budget  # noqa: E402

#: The budget before issue 21 item 5: 30 wrong PINs per table per 15 minutes, any network.
BEFORE_TABLE_TRIES, BEFORE_WINDOW = 30, timedelta(minutes=15)


def main() -> None:
    digits = len(str(pin_budget.PIN_SPACE)) - 1
    before_day = BEFORE_TABLE_TRIES * (timedelta(days=1) // BEFORE_WINDOW)
    print(f"PIN: {digits} digits, {pin_budget.PIN_SPACE:,} PINs")
    print(f"guesses a day   before: {before_day:5d}  odds {pin_budget.daily_odds(before_day):.3%}/day")
    cap = pin_budget.TABLE_CAP
    print(f"                after:  {cap:5d}  odds {pin_budget.daily_odds(cap):.3%}/day  "
          f"({before_day / cap:.1f}× fewer)")
    print(f"one watcher pauses the table  before: after {BEFORE_TABLE_TRIES} wrong PINs (every 15 min)")
    print(f"                              after:  never from one network (refused after {pin_budget.GUARDED_AFTER});"
          f" closing it takes {pin_budget.networks_to_close()} networks and {pin_budget.TABLE_CAP} wrong PINs")


if __name__ == "__main__":
    main()
