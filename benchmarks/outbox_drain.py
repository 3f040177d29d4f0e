"""The outbox's drain: how long a phone takes to send 20 hands queued offline, against
the same 20 JSON commands sent by the same page online, measured in the same run.

Serves the app under waitress on loopback (a throwaway SQLite database, or
``--database URL``) and drives Debian's Chromium (``/usr/bin/chromium``, or
``NAP_CHROMIUM``) through Playwright at 390×844, as the browser tests do. Each run
starts a new pagat table (Ann, Bob, Cat, Dan; 5 hands each to the agreed end) on the
phone, which becomes its scorer, and then either

- **drain**: with the network off, 20 quick-entry hands are put in the outbox
  (IndexedDB, as static/outbox.js keeps them), the scoresheet is reloaded, the network
  is turned back on, and the clock runs until the outbox is empty (every hand sent,
  saved and forgotten, one after another, with the banner and list redrawn each time);
- **baseline**: the same 20 commands (``POST /api/e/<key>/hands``, the common hand as
  ``lone_bid``) sent one after another by ``fetch`` from the same scoresheet, online.

Prints each run's time, the medians and their ratio; nothing is asserted (speed
targets are read here, never in a test).

    .venv/bin/python benchmarks/outbox_drain.py [--runs 5] [--hands 20] [--database URL]
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from serving import serve  # noqa: E402 - benchmarks/serving.py

from scorer import create_app  # noqa: E402
from scorer.cli.serve import SERVER_LIMITS  # noqa: E402
from tests.webhelpers import PAGES_CACHE, QUEUE, wait_for_promise  # noqa: E402 - the hands, as quick entry queues them; the pages cache

CHROMIUM = os.environ.get("NAP_CHROMIUM", "/usr/bin/chromium")
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update"]

#: resolves once the outbox is empty (looked at every 5 ms)
EMPTIED = """async () => {
  const count = () => new Promise(resolve => {
    const open = indexedDB.open("nap-outbox", 1);
    open.onsuccess = () => {
      const req = open.result.transaction("outbox").objectStore("outbox").count();
      req.onsuccess = () => { open.result.close(); resolve(req.result); };
    };
  });
  while (await count() > 0) await new Promise(resolve => setTimeout(resolve, 5));
  return true;
}"""

SEND = """async ([api, n, prefix]) => {
  const players = ["Ann", "Bob", "Cat", "Dan"];
  for (let i = 1; i <= n; i++) {
    const r = await fetch(api, {method: "POST", credentials: "same-origin", cache: "no-store",
      headers: {"Content-Type": "application/json", "Accept": "application/json"},
      body: JSON.stringify({number: i, token: prefix + i,
                            facts: {lone_bid: {declarer: players[i % 4], contract: "three"}, tricks: 3}})});
    if (r.status !== 201) throw new Error("hand " + i + ": " + r.status);
  }
  return true;
}"""


def new_table(page: Any, base: str, per_dealer: int) -> str:
    """A new pagat table started on this phone (its scorer); its key."""
    page.goto(f"{base}/new/pagat")
    for i, name in enumerate(("Ann", "Bob", "Cat", "Dan")):
        page.fill(f"input[name='players-{i}']", name)
    page.fill("input[name='opt_hands_per_dealer']", str(per_dealer))
    page.locator("form button[type=submit]").last.click()
    page.wait_for_url(re.compile(r"/e/[A-Za-z0-9_-]+$"))
    return page.url.rsplit("/", 1)[-1]


def ready_offline(page: Any, base: str, key: str) -> None:
    """The service worker controls the page and keeps the table's scoresheet."""
    page.evaluate("navigator.serviceWorker.ready.then(() => true)")
    page.goto(f"{base}/e/{key}")
    page.wait_for_function("() => navigator.serviceWorker.controller !== null")
    wait_for_promise(page, "url => " + PAGES_CACHE + ".then(c => c.match(url, {ignoreVary: true})).then(r => !!r)",
                     f"{base}/e/{key}")


def drain(context: Any, page: Any, base: str, hands: int, run: int) -> float:
    key = new_table(page, base, (hands + 3) // 4)
    ready_offline(page, base, key)
    context.set_offline(True)
    page.evaluate(QUEUE, [f"/api/e/{key}/hands", key, hands, f"drain{run}-"])
    page.reload()
    page.locator(".outbox-entry.waiting").nth(hands - 1).wait_for(timeout=60000)
    started = time.perf_counter()
    context.set_offline(False)
    page.evaluate(EMPTIED)
    took = time.perf_counter() - started
    state = page.evaluate("url => fetch(url, {cache: 'no-store'}).then(r => r.json())", f"/api/e/{key}")
    if len(state["hands"]) != hands:
        raise SystemExit(f"the drain saved {len(state['hands'])} hands, not {hands}")
    return took


def baseline(page: Any, base: str, hands: int, run: int) -> float:
    key = new_table(page, base, (hands + 3) // 4)
    page.goto(f"{base}/e/{key}")
    started = time.perf_counter()
    page.evaluate(SEND, [f"/api/e/{key}/hands", hands, f"base{run}-"])
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--hands", type=int, default=20)
    parser.add_argument("--database", default="")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    url = args.database or f"sqlite:///{Path(tempfile.mkdtemp()) / 'drain.sqlite3'}"
    app = create_app({"SECRET_KEY": "bench", "SQLALCHEMY_DATABASE_URI": url})
    with app.app_context():
        from flask_migrate import upgrade

        upgrade()
    server, port = serve(app, **SERVER_LIMITS)
    base = f"http://127.0.0.1:{port}"
    drains: list[float] = []
    bases: list[float] = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        context = browser.new_context(viewport={"width": 390, "height": 844}, locale="en-GB")
        page = context.new_page()
        baseline(page, base, args.hands, 0)  # warm up: the app, the database, the browser's caches
        print(f"outbox drain benchmark: {args.hands} hands, {args.runs} runs each, {url.split(':')[0]}")
        for run in range(1, args.runs + 1):  # taken in turns, so a busy moment falls on both
            bases.append(baseline(page, base, args.hands, run))
            drains.append(drain(context, page, base, args.hands, run))
            print(f"  run {run}: online fetch {bases[-1] * 1000:7.0f} ms   outbox drain {drains[-1] * 1000:7.0f} ms")
        context.close()
        browser.close()
    server.close()
    b, d = statistics.median(bases), statistics.median(drains)
    print(f"  median: online fetch {b * 1000:.0f} ms ({b * 1000 / args.hands:.1f} ms a hand), "
          f"outbox drain {d * 1000:.0f} ms ({d * 1000 / args.hands:.1f} ms a hand): ×{d / b:.2f} the online fetches")


if __name__ == "__main__":
    main()
