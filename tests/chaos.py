"""The table-chaos run (issue 21, "Safe to host"; after PowerSync's public Jepsen test).

Five phones (Playwright pages on Debian's Chromium, 390×844, each its own browser
context with the service worker on, each a scorer through the table's scorers' link)
share one pagat table on a real ``nap serve`` subprocess (SQLite, or a throwaway
PostgreSQL database of its own). For a bounded time (or number of steps: the test's
choice, so that the schedule is the seed's on any machine) a seeded random schedule has each
phone, one step at a time, record hands (through quick entry, or as a JSON command put
in the page's own outbox), correct them (the correction form), undo the last hand, go
offline and online (``context.set_offline``) and reload; meanwhile the server is killed
(SIGKILL) and restarted on the same port a few times. Then everyone is reconnected, the
server is up, refused entries are dismissed (the phone was told "not saved"), every
outbox is waited on until empty and every phone until it shows the server's revision.

What each phone was told and shown is kept by tests/chaos_hook.js; the server's side is
read from its database and its evening file (``/e/<key>/evening.json``) settled by
``nap settle --json``; tests/chaos_checks.py judges them. Used by tests/test_chaos.py
(short) and benchmarks/chaos.py (long runs). Waits are generous hang guards, never
speed checks; the outcome depends on the seed, the checks on nothing timed.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import re
import secrets
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
HOOK = (Path(__file__).resolve().parent / "chaos_hook.js").read_text()
CHROMIUM = os.environ.get("NAP_CHROMIUM", "/usr/bin/chromium")
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update"]
PHONE = {"width": 390, "height": 844}
NAMES = ("Ann", "Bob", "Cat", "Dan")
#: a hang guard for the end (everything drained, every phone fresh): never a speed check
SETTLE_GUARD = 240.0
STEP_TIMEOUT = 15000  # ms: one step of one phone (a page, a click); a stumble, not a failure
#: where a save leaves the phone: the scoresheet, or the hand's page (refused: the hand as saved)
SAVED_TO = re.compile(r"/e/[A-Za-z0-9_-]+(/hand/\d+)?(#[\w-]*)?$")


@dataclass
class Counts:
    """What the run did (filled as it goes; the checks add lost, doubled, …)."""

    phones: int = 0
    steps: int = 0
    commands: int = 0  # record, correct, undo taps / commands put in an outbox
    kills: int = 0
    offline_periods: int = 0
    reloads: int = 0
    stumbles: int = 0  # a step that could not be done (a page not kept offline, a timeout)
    refused_dismissed: int = 0
    refused: Counter[str] = field(default_factory=Counter)  # why, as the phones said it (digits out)
    stumbled: Counter[str] = field(default_factory=Counter)  # the action and what stopped it
    by_action: Counter[str] = field(default_factory=Counter)


# -- the server -----------------------------------------------------------------------


class Server:
    """``nap serve`` on loopback ``port`` with ``database_url``; :meth:`kill` is SIGKILL."""

    def __init__(self, database_url: str, port: int, log: Path) -> None:
        self.url, self.port, self.log = database_url, port, log
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        env = {**os.environ, "DATABASE_URL": self.url, "SECRET_KEY": "chaos-secret", "NAP_WORKERS": "1"}
        out = self.log.open("ab")
        self.process = subprocess.Popen(  # noqa: S603 - our own CLI
            [str(ROOT / ".venv" / "bin" / "nap"), "serve", "--host", "127.0.0.1", "--port", str(self.port)],
            env=env, stdout=out, stderr=subprocess.STDOUT, cwd=ROOT, start_new_session=True)
        out.close()
        give_up = time.monotonic() + 120
        while not _listening(self.port):
            if self.process.poll() is not None:
                raise RuntimeError(f"nap serve ended ({self.process.returncode}): {self.log.read_text()[-2000:]}")
            if time.monotonic() > give_up:
                raise RuntimeError("nap serve did not listen within 120 s")
            time.sleep(0.1)

    @property
    def up(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def kill(self) -> None:
        if self.process is not None and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)  # the server and its render worker
            self.process.wait()
        self.process = None


def _listening(port: int) -> bool:
    import socket

    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
    except OSError:
        return False
    return True


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def database(kind: str, workdir: Path) -> Iterator[str]:
    """A fresh database: a SQLite file in ``workdir``, or a PostgreSQL database of its own
    (``TEST_POSTGRES_URL``'s server), dropped afterwards."""
    if kind == "sqlite":
        yield f"sqlite:///{workdir / 'chaos.sqlite3'}"
        return
    import psycopg

    admin = os.environ.get("TEST_POSTGRES_URL", "postgresql://postgres@127.0.0.1:5432/test")
    name = f"nap_chaos_{secrets.token_hex(5)}"
    with psycopg.connect(admin, autocommit=True, connect_timeout=5) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    base = admin.rsplit("/", 1)[0]
    try:
        yield f"{base.replace('postgresql://', 'postgresql+psycopg://', 1)}/{name}"
    finally:
        with psycopg.connect(admin, autocommit=True, connect_timeout=5) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def new_table(database_url: str) -> tuple[str, str]:
    """Migrate the database and start the pagat table (Ann, Bob, Cat, Dan; 50 hands each
    to the agreed end): its key and scorers' key."""
    from flask_migrate import upgrade

    from scorer import create_app
    from scorer.storage import evening_writes
    from scorer.storage.db import db

    app = create_app({"SECRET_KEY": "chaos-secret", "SQLALCHEMY_DATABASE_URI": database_url,
                      "NAP_LIVE_LISTEN": False})
    try:
        with app.app_context():
            upgrade()
            evening = evening_writes.create_evening(variant="pagat", players=list(NAMES), first_dealer=0,
                                                    options={"hands_per_dealer": 50}, stake=None, name="Chaos")
            return evening.key, evening.edit_key
    finally:
        app.extensions["nap_revisions"].stop()
        with app.app_context():
            db.session.remove()
            db.engine.dispose()


def server_side(database_url: str, key: str) -> dict[str, Any]:
    """The table as its database keeps it: hands (in play or undone), versions, tokens."""
    import sqlalchemy as sa

    engine = sa.create_engine(database_url)
    try:
        with engine.connect() as conn:
            evening_id = conn.execute(sa.text("SELECT id FROM evening WHERE key = :k"), {"k": key}).scalar_one()
            revision = conn.execute(sa.text("SELECT revision FROM evening WHERE id = :e"), {"e": evening_id}).scalar()
            hands = [dict(r._mapping) for r in conn.execute(sa.text(
                "SELECT id, number, undone_number FROM hand WHERE evening_id = :e ORDER BY id"), {"e": evening_id})]
            versions = [dict(r._mapping) for r in conn.execute(sa.text(
                "SELECT v.hand_id, v.version FROM hand_version v JOIN hand h ON h.id = v.hand_id "
                "WHERE h.evening_id = :e ORDER BY v.hand_id, v.version"), {"e": evening_id})]
            submissions = [dict(r._mapping) for r in conn.execute(sa.text(
                "SELECT token, command, hand_id, hand_number FROM submission WHERE evening_id = :e ORDER BY id"),
                {"e": evening_id})]
    finally:
        engine.dispose()
    return {"revision": revision, "hands": hands, "versions": versions, "submissions": submissions}


# -- the phones -----------------------------------------------------------------------

#: put one hand in the page's own outbox, as quick entry does (a promise of its state)
QUEUE_HAND = """async ([key, facts]) => {
  // the page's own modules (their content-hashed names, as its scripts import them): a plain
  // "/static/outbox-send.js" is another URL, so another instance of the module, with a second
  // send loop and state of its own beside the page's, which no real tap ever makes
  const own = (stem) => performance.getEntriesByType("resource").map((e) => new URL(e.name).pathname)
    .find((p) => p.startsWith("/static/" + stem + ".") && /^[0-9a-f]{12}\\.js$/.test(p.slice(stem.length + 9)))
    || "/static/" + stem + ".js";
  const send = await import(own("outbox-send"));
  const store = await import(own("outbox-store"));
  const live = document.querySelector("[data-live][data-revision]");
  const next = document.querySelector("[data-next-hand]");
  if (!live || !next || !document.querySelector("[data-outbox-list]")) return "no-sheet";
  const attrs = {"data-outbox": key, "data-revision": live.getAttribute("data-revision"),
                 "data-number": next.getAttribute("data-next-hand")};
  const number = send.numberFor({ getAttribute: (n) => attrs[n] || null }, await store.all());
  const entry = { table: key, api: "/api/e/" + key + "/hands", number, token: store.token(), facts,
                  label: "chaos " + number };
  const done = send.queue(entry).then((now) => (now ? now.state : "saved"));
  return Promise.race([done, new Promise((r) => setTimeout(() => r("queued"), 10000))]);
}"""

#: the entries of the phone's outbox (IndexedDB "nap-outbox"), by state
OUTBOX = """() => new Promise((resolve) => {
  const open = indexedDB.open("nap-outbox", 1);
  open.onupgradeneeded = () => open.result.createObjectStore("outbox", {keyPath: "id", autoIncrement: true});
  open.onsuccess = () => {
    const req = open.result.transaction("outbox").objectStore("outbox").getAll();
    req.onsuccess = () => { open.result.close(); resolve(req.result.map((e) => e.state)); };
  };
  open.onerror = () => resolve(null);
})"""


class Phone:
    def __init__(self, browser: Any, base: str, key: str, index: int) -> None:
        self.base, self.key, self.index = base, key, index
        self.context = browser.new_context(viewport=PHONE, locale="en-GB", service_workers="allow")
        self.context.add_init_script(HOOK)
        self.context.set_default_timeout(STEP_TIMEOUT)
        self.page = self.context.new_page()
        self.offline = False

    @property
    def sheet(self) -> str:
        return f"{self.base}/e/{self.key}"

    def join(self, edit_key: str) -> None:
        self.page.goto(f"{self.base}/e/{self.key}/scorer/{edit_key}")
        self.page.wait_for_url(re.compile(r"/e/[A-Za-z0-9_-]+$"), timeout=60000)
        self.page.evaluate("navigator.serviceWorker.ready.then(() => true)")
        self.page.goto(self.sheet)
        self.page.wait_for_function("() => navigator.serviceWorker.controller !== null", timeout=60000)

    def to_sheet(self) -> None:
        if not re.search(r"/e/[A-Za-z0-9_-]+(#.*)?$", self.page.url):
            self.page.goto(self.sheet)

    def record_quick(self, rng: random.Random) -> None:
        self.to_sheet()
        self.page.click("#record-hand")
        self.page.wait_for_url(re.compile(r"/quick$"))
        self.page.locator("fieldset").nth(0).locator(f"label.pill:has-text('{rng.choice(NAMES)}')").click()
        self.page.locator("fieldset").nth(1).locator(f"label.pill:has-text('{rng.choice(('Three', 'Four'))}')").click()
        self.page.locator(f"button[name=tricks][value='{rng.randint(0, 5)}']").click()
        self.page.wait_for_url(SAVED_TO)

    def record_json(self, rng: random.Random) -> str:
        self.to_sheet()
        facts = {"lone_bid": {"declarer": rng.choice(NAMES), "contract": rng.choice(("three", "four"))},
                 "tricks": rng.randint(0, 5)}
        return str(self.page.evaluate(QUEUE_HAND, [self.key, facts]))

    def correct(self, rng: random.Random) -> bool:
        self.to_sheet()
        numbers = [int(n) for n in re.findall(r'id="hand-(\d+)"', self.page.content())]
        if not numbers:
            return False
        # offline, only the last hand's correction form is surely kept (sw.js warms it)
        number = numbers[-1] if self.offline else rng.choice(numbers[-4:] if rng.random() < 0.7 else numbers)
        self.page.goto(f"{self.sheet}/hand/{number}/edit")
        self.page.locator(f"label.pill:has(input[name=tricks][value='{rng.randint(0, 5)}'])").click()
        self.page.locator("button[name=save]").first.click()
        self.page.wait_for_url(SAVED_TO)
        return True

    def undo(self) -> bool:
        self.to_sheet()
        self.page.goto(f"{self.sheet}/undo")
        button = self.page.locator("form[data-undo-form] button[type=submit]")
        if not button.count():
            return False
        button.first.click()
        self.page.wait_for_url(SAVED_TO)
        return True

    def set_offline(self, offline: bool) -> None:
        self.context.set_offline(offline)
        self.offline = offline

    def outbox(self) -> list[str]:
        return list(self.page.evaluate(OUTBOX) or [])

    def log(self) -> list[dict[str, Any]]:
        return list(self.page.evaluate("() => JSON.parse(localStorage.getItem('chaos.log') || '[]')"))

    def totals(self) -> dict[str, int]:
        """The big totals the scoresheet shows, by player."""
        pairs = self.page.evaluate("""() => Array.from(document.querySelectorAll('.totals .total:not(.pool)'))
            .map((t) => [t.querySelector('.who').textContent.trim(), t.querySelector('.pts').textContent.trim()])""")
        return {who: int(re.sub(r"[^0-9-]", "", pts.replace("\u2212", "-")) or 0) for who, pts in pairs}

    def shown_revision(self) -> int | None:
        value = self.page.evaluate(
            "() => { const l = document.querySelector('[data-live][data-revision]');"
            " return l ? Number(l.getAttribute('data-revision')) : null; }")
        return None if value is None else int(value)


# -- the run --------------------------------------------------------------------------

ACTIONS = (("record_quick", 16), ("record_json", 20), ("correct", 14), ("undo", 6),
           ("offline", 9), ("reload", 7), ("look", 4))


def step(phone: Phone, action: str, rng: random.Random, counts: Counts) -> None:
    """One phone does ``action``; a step that cannot be done (a page not kept, offline) is
    a stumble: the phone goes back to its scoresheet."""
    counts.steps += 1
    counts.by_action[action] += 1
    try:
        if action == "record_quick":
            counts.commands += 1
            phone.record_quick(rng)
        elif action == "record_json":
            counts.commands += phone.record_json(rng) != "no-sheet"
        elif action == "correct":
            counts.commands += phone.correct(rng)
        elif action == "undo":
            counts.commands += phone.undo()
        elif action == "offline":
            if not phone.offline:
                counts.offline_periods += 1
            phone.set_offline(not phone.offline)
        elif action == "reload":
            counts.reloads += 1
            phone.page.reload()
        else:
            phone.page.goto(phone.sheet)
    except Exception as error:  # noqa: BLE001 - a stumble: the phone finds its way back
        counts.stumbles += 1
        first = re.sub(r"[0-9]+", "N", (str(error).strip().splitlines() or [""])[0])[:80]
        counts.stumbled[f"{action} (offline {phone.offline}): {type(error).__name__}: {first}"] += 1
        with contextlib.suppress(Exception):
            phone.page.goto(phone.sheet)


def run(*, seconds: float | None = 75.0, steps: int | None = None, phones: int = 5, seed: int = 1, kills: int = 2,
        db: str = "sqlite", workdir: Path | None = None, say: Any = None) -> dict[str, Any]:
    """The chaos run, for ``seconds`` or ``steps`` (one phone doing one thing; a number
    of steps makes the schedule the seed's alone, however fast the machine), with
    ``kills`` of the server spread evenly over it; returns the record for
    :func:`tests.chaos_checks.judge`: ``{"counts", "phones": [{"log", "totals",
    "shown_final"}], "server", "export", "settled", "key"}``. ``say`` (a print
    function) reports progress."""
    from playwright.sync_api import sync_playwright

    rng = random.Random(seed)  # the schedule: which phone does what, how long the server stays down
    details = random.Random(f"{seed}/details")  # what a phone taps (its draws depend on what the page offers)
    counts = Counts(phones=phones)
    with contextlib.ExitStack() as stack:
        work = workdir or Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="nap-chaos-")))
        url = stack.enter_context(database(db, work))
        key, edit_key = new_table(url)
        server = Server(url, _free_port(), work / "server.log")
        server.start()
        stack.callback(server.kill)
        base = f"http://127.0.0.1:{server.port}"
        pw = stack.enter_context(sync_playwright())
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        stack.callback(browser.close)
        crowd = [Phone(browser, base, key, i) for i in range(phones)]
        for phone in crowd:
            phone.join(edit_key)
        # the kills: evenly over the run, each down for 1-5 s (steps go on meanwhile)
        kill_at = [(i + 1) / (kills + 1) for i in range(kills)]
        back_at: float | None = None
        start = time.monotonic()
        names = [a for a, _ in ACTIONS]
        weights = [w for _, w in ACTIONS]

        def progress() -> float:
            if steps is not None:
                return counts.steps / steps
            return (time.monotonic() - start) / float(seconds or 60.0)

        while (done := progress()) < 1.0:
            if kill_at and done >= kill_at[0]:
                kill_at.pop(0)
                server.kill()
                counts.kills += 1
                back_at = time.monotonic() + rng.uniform(1.0, 5.0)
            if back_at is not None and time.monotonic() >= back_at:
                server.start()
                back_at = None
            step(rng.choice(crowd), rng.choices(names, weights)[0], details, counts)
            if say and counts.steps % 25 == 0:
                say(f"  {time.monotonic() - start:5.0f} s: {counts.steps} steps, {counts.commands} commands, "
                    f"{counts.kills} kills")
        if not server.up:
            server.start()
        record = settle_down(crowd, counts, url, key, work, say)
    return record


def settle_down(crowd: list[Phone], counts: Counts, url: str, key: str, work: Path, say: Any) -> dict[str, Any]:
    """Everyone back online on the scoresheet; refused entries dismissed; wait (a hang
    guard) until every outbox is empty and every phone shows the server's revision; then
    read what each phone shows and was told, the database and the settled evening file."""
    for phone in crowd:
        phone.set_offline(False)
        phone.page.goto(phone.sheet, timeout=60000)
    give_up = time.monotonic() + SETTLE_GUARD
    while True:
        left = 0
        for phone in crowd:
            dismiss = phone.page.locator(".outbox-entry.refused button")
            while dismiss.count():
                said = phone.page.locator(".outbox-entry.refused .outbox-state").first.inner_text()
                counts.refused[re.sub(r"\d+", "N", said)[:90]] += 1
                dismiss.first.click()
                counts.refused_dismissed += 1
                phone.page.wait_for_timeout(100)
            states = phone.outbox()
            left += len(states)
            if states:
                phone.page.evaluate("import('/static/outbox-send.js').then((m) => { m.drain(); })")
        if not left:
            break
        if time.monotonic() > give_up:
            raise AssertionError(f"the outboxes did not empty within {SETTLE_GUARD:.0f} s ({left} entries)")
        time.sleep(1.0)
    revision = server_side(url, key)["revision"]
    for phone in crowd:
        reloaded = False
        while phone.shown_revision() != revision:
            if time.monotonic() > give_up:
                raise AssertionError(f"phone {phone.index} still shows {phone.shown_revision()}, not {revision}")
            if not reloaded and time.monotonic() > give_up - SETTLE_GUARD / 2:
                phone.page.reload()
                reloaded = True
            time.sleep(0.5)
    answer = crowd[0].context.request.get(f"{crowd[0].sheet}/evening.json")
    assert answer.status == 200, answer.status
    export = answer.json()
    file = work / "evening.json"
    file.write_text(json.dumps(export))
    settled = json.loads(subprocess.run(  # noqa: S603 - our own CLI
        [str(ROOT / ".venv" / "bin" / "nap"), "settle", "--json", str(file)],
        check=True, capture_output=True, text=True, cwd=ROOT).stdout)
    phones = [{"log": p.log(), "totals": p.totals(), "shown_final": p.shown_revision()} for p in crowd]
    if say:
        say(f"  settled: revision {revision}, {len(export.get('hands', []))} hands in play")
    return {"key": key, "counts": counts, "phones": phones, "server": server_side(url, key),
            "export": export, "settled": settled}


if __name__ == "__main__":  # a quick look by hand: python -m tests.chaos [seconds]
    from tests.chaos_checks import judge

    result = run(seconds=float(sys.argv[1]) if len(sys.argv) > 1 else 30.0, say=print)
    print(judge(result))
