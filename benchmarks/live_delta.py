"""What a watching phone downloads per hand (issue 23, item 1): the whole scoresheet page
(as live.js fetched it before) against the answer of ``GET /e/<key>/changes?since=N``
(the parts and rows that changed), at 10, 100 and 500 hands of a ``hoyle`` evening of
five players with a pool (benchmarks/cold.py's evening), raw and gzip-compressed (level
6, as a compressing proxy or server sends it). Also the running-totals chart
(``chart.svg``), which the page's ``<img>`` fetched after every hand and live.js now
fetches only when the chart is on screen. Three changes are measured: a new hand, a
correction of the first contract (every later row's running totals move) and an undo.

Bytes are the response bodies (each response also carries some 300 bytes of headers).
Nothing is asserted.

Run: ``.venv/bin/python benchmarks/live_delta.py [--hands 10 100 500]``
"""

from __future__ import annotations

import argparse
import gzip
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from cold import Table, hoyle_hands  # noqa: E402 - benchmarks/cold.py

from scorer import create_app  # noqa: E402


def sizes(body: bytes) -> tuple[int, int]:
    """(raw, gzip-compressed) bytes of a response body."""
    return len(body), len(gzip.compress(body, compresslevel=6, mtime=0))


def kb(n: int) -> str:
    return f"{n / 1024:7.1f}"


def measure(app: Any, hands: int) -> list[tuple[str, tuple[int, int], tuple[int, int], tuple[int, int]]]:
    """For each change: (what, page bytes, changes bytes, chart bytes), each (raw, gzip)."""
    setup, facts = hoyle_hands(hands + 1, seed=hands)
    table = Table(app, setup, facts, hands - 1)
    phone = app.test_client()
    out = []

    def viewer_sees(change: str, act: Any) -> None:
        page = phone.get(f"/e/{table.key}").get_data(as_text=True)
        changes = page.split('data-changes="', 1)[1].split('"', 1)[0].replace("&amp;", "&")
        since = page.split('data-revision="', 1)[1].split('"', 1)[0]
        act()
        answer = phone.get(f"{changes}&since={since}")
        assert not answer.get_json().get("reload"), change
        fresh = phone.get(f"/e/{table.key}").get_data()
        revision = answer.get_json()["revision"]
        chart = phone.get(f"/e/{table.key}/chart.svg?r={revision}").get_data()
        out.append((change, sizes(fresh), sizes(answer.get_data()), sizes(chart)))

    viewer_sees("new hand", table.save_one)
    viewer_sees("correction of hand 1", table.correct_first_contract)
    viewer_sees("undo", table.undo_last)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, nargs="+", default=[10, 100, 500])
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        app = create_app({"SECRET_KEY": "bench", "SQLALCHEMY_DATABASE_URI": f"sqlite:///{tmp}/live.sqlite3"})
        with app.app_context():
            from flask_migrate import upgrade

            upgrade()
        print("KiB per viewer per change: raw / gzip")
        print(f"{'hands':>5} {'change':<22} {'page (before)':>17} {'changes (after)':>17} {'ratio gz':>8} "
              f"{'chart.svg':>17}")
        tables = []
        for hands in args.hands:
            for change, page, delta, chart in measure(app, hands):
                print(f"{hands:5d} {change:<22} {kb(page[0])} /{kb(page[1])} {kb(delta[0])} /{kb(delta[1])} "
                      f"{page[1] / delta[1]:7.0f}× {kb(chart[0])} /{kb(chart[1])}")
                if change == "new hand":
                    tables.append((hands, 5 * (page[1] + chart[1]), 5 * delta[1]))
        print("before: page + chart after every hand; after: changes, + chart only when on screen")
        print("\na new hand at a table of five phones, gzip KiB (requests besides the revision polls):")
        for hands, before, after in tables:
            print(f"{hands:5d} hands: before {kb(before)} (10 requests), after {kb(after)} (5 requests), "
                  f"{before / after:.0f}× less")


if __name__ == "__main__":
    main()
