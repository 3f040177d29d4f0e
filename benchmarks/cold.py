"""Cold pages with two real processes: the first view after a hand saved elsewhere, against
the warm view, in one run (issue 23 items 4 and 6).

Two ``nap serve`` processes (A and B, one app process each, from the same checkout) serve
one throwaway PostgreSQL schema, or one SQLite file (``--database sqlite``, WAL, as
``./scripts/serve`` runs). The evenings are made directly in the database (``hoyle``,
5 players, with a pool, so every hand carries state to the next), so no limit of the app
on an evening's hands applies:

- **Season** of a group of 200 and of 1,000 evenings (``--evenings``) of ``--evening-hands``
  hands each: a phone that is a scorer of the group's latest evening saves one more hand
  through **A** (``POST /api/e/<key>/hands``, as quick entry's outbox does; not timed);
  *cold* is then the first view of the group's page through **B** (another process: it
  learns of the hand from the database only), *warm* the same view through B again at
  once. Target: cold ≤ 3× warm.
- **The saving phone's redirect** on an evening of ``--hands`` hands (default 2,000, the
  most an evening takes, :data:`scorer.evening.limits.MAX_HANDS`: it is made with as many
  fewer as the rounds save, so that the last round saves hand 2,000): the scorer's phone
  saves one more hand with the hand form through A (``POST /e/<key>/hand``,
  with its CSRF token; not timed) and follows the redirect: *cold* is that first view of
  the scoresheet through A (with "Hand N saved" and its one-tap Undo), *warm* the
  scoresheet viewed again at once. Target: cold ≤ 2× warm.

Cold and warm views alternate (change, cold view, warm view; ``--repeat`` rounds after
one untimed round, medians), so a busy machine slows both alike; every view is a GET on a
kept-alive loopback connection, as a phone's browser. Each view is measured in wall time
and in the CPU the server that answered it used (every thread of its process, from
``/proc``): on a shared machine busy with other work the CPU figures hold where wall times
swing. Nothing is asserted.

``--app-root DIR`` also measures another checkout (a "before", e.g. a worktree of main),
first, in the same run on the same data: its servers run on the schema at that
checkout's newest migration (``--before-migration``, default ``head``: the same as this
checkout's); then this checkout's servers upgrade it and are measured.

Run: ``.venv/bin/python benchmarks/cold.py [--app-root /tmp/main] [--evenings 200 1000]
[--hands 2000] [--repeat 10] [--database postgresql://postgres@127.0.0.1:5432/test | sqlite]``
"""

from __future__ import annotations

import argparse
import http.client
import os
import random
import re
import secrets
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from load import drop_schema, free_port, listening, make_schema  # noqa: E402 - benchmarks/load.py

from scorer.evening.file import EveningFile  # noqa: E402
from scorer.evening.ledger import Fold  # noqa: E402
from scorer.evening.limits import MAX_HANDS  # noqa: E402
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


@dataclass
class Table:
    """An evening in the database: its keys, players and the hands still to be saved."""

    key: str
    edit_key: str
    players: tuple[str, ...]
    pending: list[HandFacts]
    stored: int

    def next_hand(self) -> tuple[int, HandFacts]:
        self.stored += 1
        return self.stored, self.pending.pop(0)


@dataclass
class Data:
    groups: dict[int, str]  # evenings → group key
    latest: dict[int, Table]  # evenings → the group's latest evening
    long: Table
    tiny: str  # a group of one evening: its page warms a new process's templates up


def make_data(url: str, evenings: list[int], evening_hands: int, hands: int, saves: int, migration: str,
              long_saves: int = 0) -> Data:
    """The groups and the long evening, made with this checkout's code on ``url``, the
    schema upgraded to ``migration`` (an older checkout's newest, for a "before"). The long
    evening is stored with ``long_saves`` hands fewer than ``hands`` (the rounds save them)."""
    from flask_migrate import upgrade

    from scorer import create_app
    from scorer.storage import evening_writes, models
    from scorer.storage.groups import create_group

    app = create_app({"SQLALCHEMY_DATABASE_URI": url, "SECRET_KEY": "bench", "NAP_LIVE_LISTEN": False})
    made: dict[str, Any] = {"groups": {}, "latest": {}}
    with app.app_context():
        upgrade(revision=migration)

        def table(setup: EveningSetup, all_hands: list[HandFacts], stored: int, **extra: Any) -> Table:
            evening = evening_writes.import_evening(EveningFile(setup=setup, hands=all_hands[:stored],
                                                                name="Benchmark"))
            for name, value in extra.items():
                setattr(evening, name, value)
            models.db.session.commit()
            return Table(evening.key, evening.edit_key, setup.players, all_hands[stored:], stored)

        shared = [hoyle_hands(evening_hands, seed=100 + i) for i in range(10)]
        first = date(2020, 1, 1)
        for count in evenings:
            group = create_group(f"Club of {count} evenings")
            group_id = group.id
            made["groups"][count] = group.key
            for i in range(count - 1):
                setup, some = shared[i % len(shared)]
                table(setup, some, evening_hands, group_id=group_id, played_on=first + timedelta(days=i))
            setup, some = hoyle_hands(evening_hands + saves, seed=7 + count)
            made["latest"][count] = table(setup, some, evening_hands, group_id=group_id,
                                          played_on=first + timedelta(days=count))
        tiny = create_group("A group of one evening")
        tiny_id = tiny.id
        made["tiny"] = tiny.key
        setup, some = shared[0]
        table(setup, some, evening_hands, group_id=tiny_id, played_on=first)
        setup, some = hoyle_hands(hands, seed=7)
        made["long"] = table(setup, some, hands - long_saves)
        models.db.session.remove()
        models.db.engine.dispose()
    return Data(**made)


class ServerFault(OSError):
    """A 500 from a server: after a crash elsewhere in it, its memory is not to be trusted
    (see its log); it is started again like one that died."""


class Phone:
    """A phone's browser on one server: one kept-alive connection and its cookies."""

    def __init__(self, port: int) -> None:
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=300)
        self.cookies: dict[str, str] = {}

    def request(self, method: str, path: str, body: bytes | None = None, headers: dict[str, str] | None = None
                ) -> tuple[int, str, dict[str, str]]:
        sent = dict(headers or {})
        if self.cookies:
            sent["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        try:
            self.conn.request(method, path, body=body, headers=sent)
            response = self.conn.getresponse()
        except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError):
            # the server closed a kept-alive connection idle past its channel_timeout: as a
            # browser does, send again on a new one
            self.conn.close()
            self.conn.request(method, path, body=body, headers=sent)
            response = self.conn.getresponse()
        data = response.read().decode("utf-8", "replace")
        if response.status == 500:
            raise ServerFault(f"{method} {path}: 500")
        for header, value in response.getheaders():
            if header.lower() == "set-cookie":
                name, _, rest = value.partition("=")
                self.cookies[name.strip()] = rest.split(";", 1)[0]
        return response.status, data, {k.lower(): v for k, v in response.getheaders()}

    def get(self, path: str, expect: int = 200) -> str:
        status, body, _ = self.request("GET", path)
        assert status == expect, (path, status, body[:300])
        return body

    def close(self) -> None:
        self.conn.close()


def api_facts(players: tuple[str, ...], facts: HandFacts) -> dict[str, Any]:
    out: dict[str, Any] = {"dealer": players[facts.dealer]}
    if facts.misdeal:
        out["misdeal"] = True
        return out
    out["auction"] = list(facts.auction)
    if facts.tricks is not None:
        out["tricks"] = facts.tricks
    return out


def save_by_api(phone: Phone, table: Table) -> None:
    """One more hand through the JSON command quick entry's outbox sends."""
    import json

    number, facts = table.next_hand()
    body = json.dumps({"number": number, "token": secrets.token_urlsafe(12),
                       "facts": api_facts(table.players, facts)}).encode()
    status, text, _ = phone.request("POST", f"/api/e/{table.key}/hands", body, {"Content-Type": "application/json"})
    assert status == 201, (status, text[:300])


def save_by_form(phone: Phone, table: Table) -> str:
    """One more hand with the hand form (its CSRF token and one-time token read from the
    form's page first); returns where the answer redirects."""
    from urllib.parse import urlencode

    page = phone.get(f"/e/{table.key}/hand")
    fields = {}
    for tag in re.findall(r"<input\b[^>]*>", page):
        attributes = dict(re.findall(r'(\w+)="([^"]*)"', tag))
        if attributes.get("type") == "hidden" and "name" in attributes:
            fields[attributes["name"]] = attributes.get("value", "")
    number, facts = table.next_hand()
    data = {k: v for k, v in fields.items() if k in ("csrf_token", "token", "revision", "base_revision")}
    data.update({"number": str(number), "dealer": str(facts.dealer)})
    if facts.misdeal:
        data["misdeal"] = "1"
    else:
        n = len(table.players)  # the auction in speaking order, from the dealer's left; the form by seat
        data.update({f"call_{(facts.dealer + 1 + i) % n}": call for i, call in enumerate(facts.auction)})
        if facts.tricks is not None:
            data["tricks"] = str(facts.tricks)
        data["save"] = "1"
    status, text, headers = phone.request("POST", f"/e/{table.key}/hand", urlencode(data).encode(),
                                          {"Content-Type": "application/x-www-form-urlencoded"})
    assert status in (302, 303), (status, data, re.findall(r"class=\"(?:error[^\"]*|flash[^\"]*)\"[^>]*>([^<]*)", text))
    location = headers["location"]
    return location[location.index("/e/"):] if "://" in location else location


#: A view's cost: (wall seconds, seconds of CPU of the server that answered it).
Cost = tuple[float, float]


def timed_pair(change: Callable[[], str], cold: Callable[[str], object], warm: Callable[[str], object],
               server: Server) -> tuple[Cost, Cost]:
    """The cost of the first view after ``change`` (given what it returns) and of the view
    right after it, both answered by ``server``."""
    path = change()
    c0, t0 = server.cpu(), time.perf_counter()
    cold(path)
    c1, t1 = server.cpu(), time.perf_counter()
    warm(path)
    t2, c2 = time.perf_counter(), server.cpu()
    return (t1 - t0, c1 - c0), (t2 - t1, c2 - c1)


class Server:
    """``nap serve`` (one app process) from ``app_root`` on a free loopback port; started
    again on a new port by :meth:`restart` (a new process: nothing kept in memory)."""

    def __init__(self, url: str, app_root: Path, secret: str, tmp: Path, name: str) -> None:
        self.url, self.app_root, self.secret, self.tmp, self.name = url, app_root, secret, tmp, name
        self.starts = 0
        self.process: subprocess.Popen[bytes] | None = None
        self.port = 0
        self.restart()

    def restart(self) -> None:
        self.stop()
        self.starts += 1
        instance = self.tmp / f"{self.name}{self.starts}"
        instance.mkdir()
        self.port = free_port()
        env = dict(os.environ, DATABASE_URL=self.url, SECRET_KEY=self.secret, NAP_INSTANCE=str(instance),
                   PYTHONPATH=str(self.app_root), PYTHONFAULTHANDLER="1")
        log = instance / "serve.log"
        with log.open("wb") as out:
            process = subprocess.Popen([sys.executable, "-m", "scorer", "serve", "--host", "127.0.0.1", "--port",
                                        str(self.port), "--workers", "1"], cwd=self.app_root, env=env, stdout=out,
                                       stderr=subprocess.STDOUT)
        self.process = listening(process, self.port, 120, f"nap serve {self.name}", log)

    def cpu(self) -> float:
        """Seconds of CPU its process has used, every thread (waitress answers in its
        threads), to the nanosecond (``/proc/<pid>/task/*/schedstat``): unlike wall time, the
        same on a busy shared machine as on a quiet one."""
        assert self.process is not None
        total = 0
        for task in Path(f"/proc/{self.process.pid}/task").iterdir():
            try:
                total += int((task / "schedstat").read_text().split()[0])
            except (OSError, ValueError, IndexError):  # a thread that has just ended
                continue
        return total / 1e9

    def alive(self) -> bool:
        """Whether it still runs and accepts connections (a process dying is not yet gone)."""
        import socket

        for _ in range(10):
            if self.process is None or self.process.poll() is not None:
                return False
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=2).close()
                return True
            except OSError:
                time.sleep(0.5)
        return False

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()  # or kill, below: one that hangs dying
            try:
                self.process.wait(20)
            except subprocess.TimeoutExpired:
                self.process.kill()
        self.process = None


#: A figure: medians of (cold, warm) wall seconds, rounds lost, medians of (cold, warm) CPU seconds.
Figure = tuple[float, float, int, float, float]


def rounds(one: Callable[[], tuple[Cost, Cost]], recover: Callable[[bool], bool], repeat: int, label: str
           ) -> Figure:
    """Medians of ``repeat`` rounds of ``one`` (cold, warm) after one untimed round, and how
    many rounds were lost to a server that died (``recover`` restarts it and says whether
    one had died; the round after it is untimed again)."""
    colds: list[Cost] = []
    warms: list[Cost] = []
    lost, untimed = 0, True
    while len(colds) < repeat:
        try:
            cold, warm = one()
        except (OSError, http.client.HTTPException) as error:
            if not recover(isinstance(error, ServerFault)) or lost >= 3 * (repeat + 1):
                raise
            lost += 1
            untimed = True  # a new process keeps nothing yet: the next round warms it up, untimed
            print(f"  {label}: a server died (see its log); started again", flush=True)
            continue
        if not untimed:
            colds.append(cold)
            warms.append(warm)
        untimed = False
    return (statistics.median(c[0] for c in colds), statistics.median(w[0] for w in warms), lost,
            statistics.median(c[1] for c in colds), statistics.median(w[1] for w in warms))


def measure(url: str, app_root: Path, data: Data, repeat: int) -> dict[str, Figure]:
    """The figures of one checkout, served by two processes on ``url``."""
    out: dict[str, Figure] = {}
    tmp = Path(tempfile.mkdtemp(prefix="nap-cold-"))  # kept: the servers' logs
    print(f"serving {app_root} (logs in {tmp})", flush=True)
    secret = "cold-" + secrets.token_hex(8)
    a = Server(url, app_root, secret, tmp, "a")  # one at a time: each upgrades the schema first
    b = Server(url, app_root, secret, tmp, "b")
    phones: dict[str, Phone] = {}

    def recover(faulty: bool = False) -> bool:
        died = False
        for server in (a, b):
            if faulty or not server.alive():
                died = True
                server.restart()
        for phone in phones.values():
            phone.close()
        phones.clear()
        return died

    def phone(name: str, server: Server, scorer_of: Table | None = None) -> Phone:
        if name not in phones:
            phones[name] = Phone(server.port)
            if scorer_of is not None:
                phones[name].get(f"/e/{scorer_of.key}/scorer/{scorer_of.edit_key}", 302)
        return phones[name]

    try:
        for count, group in data.groups.items():
            table = data.latest[count]
            page = f"/g/{group}"
            for viewer in (phone("viewer", b), phone("saver", a, table), phone("viewer", b)):
                viewer.get(page)

            def seen(table: Table = table, page: str = page) -> tuple[float, float]:
                """B has shown the season before (it keeps what it settled then)."""
                return timed_pair(lambda: (save_by_api(phone("saver", a, table), table), page)[1],
                                  phone("viewer", b).get, phone("viewer", b).get, b)

            out[f"season {count}, seen"] = rounds(seen, recover, repeat, f"season {count}")
            print(f"  season {count}, B has shown it before: {out[f'season {count}, seen']}", flush=True)

            def new_process(table: Table = table, page: str = page) -> tuple[float, float]:
                """B is a new process: it has served other pages, never this season."""
                b.restart()
                phones.pop("viewer", None)
                viewer = phone("viewer", b)
                viewer.get("/healthz")
                viewer.get(f"/e/{table.key}")  # the app and its templates warmed up on other pages
                viewer.get(f"/g/{data.tiny}")
                return timed_pair(lambda: (save_by_api(phone("saver", a, table), table), page)[1],
                                  viewer.get, viewer.get, b)

            out[f"season {count}, new"] = rounds(new_process, recover, 3, f"season {count}")
            print(f"  season {count}, B a new process: {out[f'season {count}, new']}", flush=True)
            recover()
        long = data.long
        phone("scorer", a, long).get(f"/e/{long.key}")

        def redirect() -> tuple[float, float]:
            scorer = phone("scorer", a, long)
            return timed_pair(lambda: save_by_form(scorer, long), scorer.get, scorer.get, a)

        out["redirect"] = rounds(redirect, recover, repeat, "redirect")
        print(f"  redirect: {out['redirect']}", flush=True)
    finally:
        for each in phones.values():
            each.close()
        a.stop()
        b.stop()
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--evenings", type=int, nargs="+", default=[200, 1000], help="evenings of each group")
    parser.add_argument("--evening-hands", type=int, default=20, help="hands of each evening of a group")
    parser.add_argument("--hands", type=int, default=2000, help="hands of the long evening (the redirect)")
    parser.add_argument("--repeat", type=int, default=10, help="rounds timed per figure (median)")
    parser.add_argument("--database", default=os.environ.get("TEST_POSTGRES_URL",
                                                             "postgresql://postgres@127.0.0.1:5432/test"))
    parser.add_argument("--app-root", type=Path, default=None, help="another checkout to measure first (before)")
    parser.add_argument("--before-migration", default="head",
                        help="that checkout's newest migration (head: the same as this one's)")
    args = parser.parse_args()

    saves = 8 * (args.repeat + 1) + 40  # rounds lost to a server that died, and the untimed ones after
    # the long evening ends at --hands (an evening takes at most MAX_HANDS): each checkout
    # measured saves one hand a round, with a few to spare for rounds lost to a server that died
    long_saves = (2 if args.app_root else 1) * (args.repeat + 1) + 10
    if args.hands > MAX_HANDS or args.hands <= long_saves:
        parser.error(f"--hands: more than {long_saves} and at most {MAX_HANDS}")
    sqlite = args.database == "sqlite" or args.database.startswith("sqlite:")
    if sqlite:  # one file both servers open (WAL, as the app sets it)
        schema, folder = "", Path(tempfile.mkdtemp(prefix="nap-cold-db-"))
        url = f"sqlite:///{folder / 'cold.sqlite'}"
    else:
        schema, url = make_schema(args.database)
        url = url.replace("postgresql://", "postgresql+psycopg://", 1)
    results: dict[str, dict[str, Figure]] = {}
    try:
        started = time.perf_counter()
        data = make_data(url, args.evenings, args.evening_hands, args.hands, saves,
                         args.before_migration if args.app_root else "head", long_saves)
        print(f"data made in {time.perf_counter() - started:.0f} s (schema {schema})", flush=True)
        if args.app_root:
            results["before"] = measure(url, args.app_root.resolve(), data, args.repeat)
        results["after"] = measure(url, ROOT, data, args.repeat)
    finally:
        if sqlite:
            shutil.rmtree(folder, ignore_errors=True)
        else:
            drop_schema(args.database, schema)

    print(f"cold pages, two `nap serve` processes on one {'SQLite file' if sqlite else 'PostgreSQL schema'}; "
          "medians (wall time); cold ÷ warm measured in the same run")
    what = {}
    for n in args.evenings:
        what[f"season {n}, new"] = (f"season, {n} evenings × {args.evening_hands} hands: first view through B, a new "
                                    "process (it has served other pages), after a hand saved through A", 3)
        what[f"season {n}, seen"] = (f"season, {n} evenings: the same when B has shown the season before", 3)
    what["redirect"] = (f"scoresheet, {args.hands - long_saves + 1} to {args.hands} hands: the saving phone's "
                        "redirect through A after its hand form", 2)
    for key, (text, target) in what.items():
        print(f"{text} (target ≤ {target}×)")
        for side in ("before", "after"):
            if key in results.get(side, {}):
                cold, warm, lost, cold_cpu, warm_cpu = results[side][key]
                root = args.app_root if side == "before" else ROOT
                died = f"; {lost} rounds lost to a server that died" if lost else ""
                print(f"  {side:6} ({root}): wall: cold {cold * 1000:.1f} ms, warm {warm * 1000:.2f} ms = "
                      f"{cold / warm:.2f}× warm; server CPU: cold {cold_cpu * 1000:.1f} ms, warm "
                      f"{warm_cpu * 1000:.2f} ms = {cold_cpu / warm_cpu:.2f}× warm{died}")


if __name__ == "__main__":
    main()
