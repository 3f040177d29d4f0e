"""A big club night's room screen: what ``GET /ev/<key>/room`` and its poll
``GET /api/ev/<key>/version`` cost with ``--tables`` tables of 6 (each with ``--hands``
hands), against one table's scoresheet ``GET /e/<key>`` and ``/healthz``, measured in the
same run with Flask's test client (no network: the app's own cost) on a throwaway SQLite
database, or ``--database URL``.

Prints the median and p90 of each, and each median against the scoresheet's; nothing is
asserted.

    .venv/bin/python benchmarks/room_screen.py [--tables 40] [--hands 10] [--repeat 30] [--database URL]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from flask_migrate import upgrade  # noqa: E402

from scorer import create_app  # noqa: E402
from scorer.web.views.events import room_cache  # noqa: E402


def post(client, url, body):  # type: ignore[no-untyped-def]
    answer = client.post(url, data=json.dumps(body), content_type="application/json")
    assert answer.status_code in (200, 201), answer.get_data(as_text=True)
    return answer.get_json()


def timed(client, url: str, repeat: int, before=None) -> list[float]:  # type: ignore[no-untyped-def]
    out = []
    for _ in range(repeat):
        if before is not None:
            before()
        start = time.perf_counter()
        answer = client.get(url)
        out.append(time.perf_counter() - start)
        assert answer.status_code == 200, (url, answer.status_code)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=40)
    parser.add_argument("--hands", type=int, default=10)
    parser.add_argument("--repeat", type=int, default=30)
    parser.add_argument("--database", default="")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        url = args.database or f"sqlite:///{tmp}/room.sqlite3"
        app = create_app({"SQLALCHEMY_DATABASE_URI": url, "SECRET_KEY": "bench", "WTF_CSRF_ENABLED": False})
        with app.app_context():
            upgrade()
        owner = app.test_client()
        players = [f"Player {i:03d}" for i in range(args.tables * 6)]  # the fewest tables: of 6
        group = post(owner, "/api/groups", {"name": "Bench club", "token": "bench-g"})["group"]["key"]
        made = post(owner, f"/api/g/{group}/events", {"name": "Big night", "variant": "pagat", "players": players,
                                                      "rounds": 3, "length": "hands", "amount": args.hands,
                                                      "token": "bench-ev"})
        key = made["event"]["key"]
        post(owner, f"/api/ev/{key}/seat", {"how": "draw", "seed": "bench"})
        tables = post(owner, f"/api/ev/{key}/start", {})["event"]["tables"]
        for t in tables:
            owner.get(urlsplit(t["scorers_link"]).path)
            for n in range(1, args.hands + 1):
                size = len(t["players"])
                post(owner, f"/api/e/{t['evening']}/hands", {"number": n, "token": f"{t['evening']}-{n}", "facts": {
                    "dealer": t["players"][(n - 1) % size], "auction": ["three"] + ["pass"] * (size - 1),
                    "tricks": 3 + n % 2}})
        viewer = app.test_client()
        runs = {
            "healthz": timed(viewer, "/healthz", args.repeat),
            "scoresheet (1 table)": timed(viewer, f"/e/{tables[0]['evening']}", args.repeat),
            f"room screen ({len(tables)} tables)": timed(viewer, f"/ev/{key}/room", args.repeat),
            # after any change at any table: rendered again (standings from 40 kept ledgers)
            "room screen, not kept": timed(viewer, f"/ev/{key}/room", args.repeat, room_cache.clear),
            "room poll (version)": timed(viewer, f"/api/ev/{key}/version", args.repeat),
            f"event state JSON ({len(tables)} tables)": timed(viewer, f"/api/ev/{key}", args.repeat),
        }
        base = statistics.median(runs["scoresheet (1 table)"])
        print(f"{len(tables)} tables of 6, {args.hands} hands each, {args.repeat} requests each ({url.split(':')[0]})")
        for name, times in runs.items():
            times.sort()
            median, p90 = statistics.median(times), times[int(len(times) * 0.9) - 1]
            print(f"{name:32s} median {median * 1000:7.1f} ms  p90 {p90 * 1000:7.1f} ms  "
                  f"× scoresheet {median / base:5.2f}")


if __name__ == "__main__":
    main()
