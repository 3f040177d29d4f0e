"""How long a process answers a stale revision after its LISTEN connection went half-open
(issue 21, item 7): before (no heartbeat, ``NAP_LISTEN_HEARTBEAT=0``: the memory is trusted
while the connection seems up) against after (a heartbeat every 1.5 s, trusted for 6 s),
measured in the same run with the shipped settings.

A proxy (tests/pgproxy.py) sits between the listener and PostgreSQL. For each setting: the
process keeps the table's revision (one poll), the proxy goes silent without closing, a
save is made on another connection, and the "process" polls every 0.1 s as phones do,
until it answers the new revision. Prints the seconds from the save to the first fresh
answer for each setting and their ratio; nothing is asserted. The "before" case takes up
to ``LISTEN_TTL`` (60 s): an entry is kept that long.

    .venv/bin/python benchmarks/listen_stale.py [--database postgresql://postgres@127.0.0.1:5432/test]
"""

from __future__ import annotations

import argparse
import secrets
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import psycopg  # noqa: E402

from scorer.storage import live  # noqa: E402
from tests.pgproxy import PgProxy  # noqa: E402


def stale_for(url: str, heartbeat: float | None, poll: float = 0.1) -> float:
    """Seconds from a save to the first poll that answers it, the listener's connection
    being silent (half-open) from just before the save."""
    proxy = PgProxy()
    key = secrets.token_urlsafe(16)
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("INSERT INTO rev VALUES (%s, 0)", (key,))

        def read() -> int:
            row = conn.execute("SELECT n FROM rev WHERE key = %s", (key,)).fetchone()
            return int(row[0]) if row else -1

        revisions = live.Revisions(proxy.dsn(url), heartbeat=heartbeat)
        try:
            revisions.fill(key, read)
            while not revisions.trusted:
                time.sleep(0.05)
            assert revisions.fill(key, read) == 0 and revisions.cached(key) == 0
            proxy.blackhole()
            with conn.transaction():
                conn.execute("UPDATE rev SET n = 1 WHERE key = %s", (key,))
                conn.execute("SELECT pg_notify(%s, %s)", (live.CHANNEL, key))
            saved = time.monotonic()
            while revisions.fill(key, read) != 1:
                time.sleep(poll)
            return time.monotonic() - saved
        finally:
            revisions.stop()
            proxy.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database", default="postgresql://postgres@127.0.0.1:5432/test")
    args = parser.parse_args()
    schema = f"nap_bench_{secrets.token_hex(6)}"
    with psycopg.connect(args.database, autocommit=True) as admin:
        admin.execute(f'CREATE SCHEMA "{schema}"')
        try:
            sep = "&" if "?" in args.database else "?"
            url = f"{args.database}{sep}options=-csearch_path%3D{schema}"
            with psycopg.connect(url, autocommit=True) as conn:
                conn.execute("CREATE TABLE rev (key TEXT PRIMARY KEY, n INTEGER NOT NULL)")
            print(f"listen_stale: a save seen by a process whose LISTEN connection is half-open "
                  f"(LISTEN_TTL {live.LISTEN_TTL:.0f} s, heartbeat {live.HEARTBEAT} s, trust {live.TRUST} s)")
            before = stale_for(url, None)
            print(f"  before (no heartbeat):  stale for {before:6.1f} s", flush=True)
            after = stale_for(url, live.HEARTBEAT)
            print(f"  after (heartbeat):      stale for {after:6.1f} s", flush=True)
            print(f"  after / before: {after / before:.2f}")
        finally:
            admin.execute(f'DROP SCHEMA "{schema}" CASCADE')


if __name__ == "__main__":
    main()
