"""What keeping printed parts of a page (``scorer/web/kept_parts.py``) saves the service worker's
warm-up (issue 23 item 2), measured in one process with the baseline in the same run.

On a throwaway PostgreSQL schema, one table of ``--hands`` hands (``load.make_tables``) is played
on by its scorer: each round a hand is saved, the scoresheet read, then the warm-up
(``GET /e/<key>/kept?last=N``) asked twice, once with the parts kept ("kept") and once with each
part printed every time ("printed": the template's ``kept_part`` replaced by one that calls its
block), in turns (which comes first alternates), so that the box's changes of speed fall on
both alike. Prints the median CPU time (thread time) of each and their ratio. Nothing is
asserted.

    .venv/bin/python benchmarks/kept_parts.py [--hands 30] [--rounds 40] [--database URL]
"""

from __future__ import annotations

import argparse
import os
import secrets
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from load import drop_schema, make_schema, make_tables  # noqa: E402 - benchmarks/load.py


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=30, help="hands already played at the table")
    parser.add_argument("--rounds", type=int, default=40, help="hands saved (the first five warm up)")
    parser.add_argument("--database", default=os.environ.get("TEST_POSTGRES_URL", "postgresql://127.0.0.1:5432/test"))
    args = parser.parse_args()
    base = args.database.replace("postgresql+psycopg://", "postgresql://")
    schema, url = make_schema(base)
    try:
        run(url, args.hands, args.rounds)
    finally:
        drop_schema(base, schema)


def run(url: str, hands: int, rounds: int) -> None:
    from markupsafe import Markup

    from scorer import create_app
    from scorer.web import kept_parts

    def printed(_name: str, *_state: Any, caller: Any) -> Markup:
        return Markup(caller())

    ((key, edit_key),) = make_tables(url, 1, hands)
    app = create_app({"SECRET_KEY": "kept-parts", "SQLALCHEMY_DATABASE_URI": url, "NAP_LIVE_LISTEN": False})
    scorer = app.test_client()
    assert scorer.get(f"/e/{key}/scorer/{edit_key}").status_code in (200, 302)
    ways = {"kept": kept_parts.kept_part, "printed": printed}
    cpu: dict[str, list[float]] = {way: [] for way in ways}
    sizes: dict[str, set[int]] = {way: set() for way in ways}
    for round_ in range(rounds):
        number = len(scorer.get(f"/api/e/{key}").get_json()["hands"]) + 1
        saved = scorer.post(f"/api/e/{key}/hands", json={
            "number": number, "token": secrets.token_urlsafe(12),
            "facts": {"auction": ["three", "pass", "pass", "pass"], "tricks": 2}})
        assert saved.status_code == 201, saved.data
        scorer.get(f"/e/{key}")
        for way in (("kept", "printed") if round_ % 2 else ("printed", "kept")):
            app.jinja_env.globals["kept_part"] = ways[way]
            started = time.thread_time()
            answer = scorer.get(f"/e/{key}/kept?last={number}", headers={"X-Nap-Warm": "1"})
            spent = time.thread_time() - started
            assert answer.status_code == 200
            if round_ >= 5:
                cpu[way].append(spent)
                sizes[way].add(len(answer.data))
    kept, fresh = statistics.median(cpu["kept"]), statistics.median(cpu["printed"])
    print(f"the warm-up of a {hands}-hand table, {len(cpu['kept'])} hands, median CPU (thread time): "
          f"parts printed each time {fresh * 1000:.2f} ms, parts kept {kept * 1000:.2f} ms: "
          f"×{kept / fresh:.2f}; answers' sizes {sorted(sizes['printed'])} and {sorted(sizes['kept'])}")
    print(f"machine load average: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")


if __name__ == "__main__":
    main()
