"""The phone's engine, in figures (issue 24 item 6): what it downloads, how long it takes to start,
how long a tap takes to show a provisional ruling, how much memory it holds, each against a
baseline measured in the same run.

Starts ``nap serve`` from this checkout on a throwaway SQLite database and drives Debian's
Chromium (Playwright, 390×844, headless, CPU slowed ``--slowdown`` times through the DevTools
protocol: ``Emulation.setCPUThrottlingRate``) on a pagat table (Ann, Bob, Cat, Dan):

    download    the bytes a scorer's phone downloads once for the engine (Pyodide's files, the
                bundle and the worker, compressed as the server sends them to a browser that
                accepts gzip and br), against the scoresheet's own first load (the page and the
                service worker's shell); and what a viewer's phone downloads for it (the
                shell's phone.js: nothing else)
    start       the worker's cold start (nothing cached: fetched, compiled, the bundle unpacked)
                and its warm start (a new page, the files kept by the service worker), against
                loading the scoresheet in the same browser
    tap         from the tap on quick entry's tricks to the provisional totals on the
                scoresheet (offline, the engine warm: quick entry is shown in the scoresheet's
                own page, so the worker started there serves every tap), against the same tap
                online to the server's totals on screen (the round trip: the JSON command, then
                the scoresheet loaded again)
    memory      what the browser's processes hold more once the worker is started (the sum of
                Chromium's resident sets, before → after)

Nothing is modelled. Figures vary with the machine's load: run it on a quiet one.

    .venv/bin/python benchmarks/phone_engine.py [--slowdown 4] [--runs 3]
"""

from __future__ import annotations

import argparse
import os
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
PYODIDE_FILES = ("pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip", "pyodide-lock.json")
CHROMIUM = os.environ.get("NAP_CHROMIUM", "/usr/bin/chromium")
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update"]
START = """() => new Promise((resolve, reject) => {
  const t0 = performance.now();
  const w = new Worker('/static/engine/worker.js', { type: 'module' });
  w.onmessage = (e) => e.data.ready ? resolve(performance.now() - t0) : reject(e.data.error);
  w.onerror = () => reject('worker failed');
  w.postMessage({ id: 0 });
  window.__engine = w;
})"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def sent_bytes(url: str) -> int:
    """The body's bytes as the server sends it to a browser (gzip or br accepted)."""
    request = urllib.request.Request(url, headers={"Accept-Encoding": "br, gzip"})
    with urllib.request.urlopen(request, timeout=60) as answer:  # noqa: S310 - our own server on loopback
        return len(answer.read())


def chromium_rss() -> int:
    """The resident set of every Chromium process, in KiB."""
    out = subprocess.run(["ps", "-C", "chromium", "-o", "rss="], capture_output=True, text=True, check=False)
    return sum(int(x) for x in out.stdout.split())


def serve(tmp: Path) -> tuple[subprocess.Popen, str]:
    port = free_port()
    env = {**os.environ, "DATABASE_URL": f"sqlite:///{tmp / 'bench.sqlite3'}", "SECRET_KEY": "bench"}
    process = subprocess.Popen([str(ROOT / ".venv" / "bin" / "nap"), "serve", "--host", "127.0.0.1",  # noqa: S603
                                "--port", str(port), "--workers", "1"], env=env, cwd=tmp,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    for _ in range(300):
        try:
            urllib.request.urlopen(base + "/", timeout=2)  # noqa: S310
            return process, base
        except OSError:
            time.sleep(0.2)
    process.kill()
    raise SystemExit("nap serve did not start")


def downloads(base: str, page: Any, key: str) -> None:
    engine = sum(sent_bytes(f"{base}/static/vendor/pyodide/{name}") for name in PYODIDE_FILES)
    engine += sum(sent_bytes(f"{base}{path}") for path in ("/engine/nap-engine.zip", "/static/engine/worker.js",
                                                          "/static/engine/engine.mjs"))
    nap = page.evaluate("fetch('/sw.js').then(r => r.text())")
    shell = re.findall(r'"(/static/[^"]+)"', nap.split("};", 1)[0])
    sheet = sent_bytes(f"{base}/e/{key}") + sum(sent_bytes(base + path) for path in shell)
    scorer_only = [path for path in re.findall(r'"(/static/[^"]+)"', page.content())
                   if re.search(r"/static/(phone|ruling-diff|ios-install)\.", path)]
    phone = sum(sent_bytes(base + path) for path in shell if re.search(r"/static/(phone|ruling-diff|ios-install)\.",
                                                                          path))
    raw = sum((ROOT / "static" / "vendor" / "pyodide" / name).stat().st_size for name in PYODIDE_FILES)
    print(f"download  Pyodide's files as npm ships them {raw / 1024:,.0f} KiB; as sent (br) "
          f"{sum(sent_bytes(f'{base}/static/vendor/pyodide/{name}') for name in PYODIDE_FILES) / 1024:,.0f} KiB")
    print(f"download  scorer, once: {engine / 1024:,.0f} KiB for the engine; the scoresheet's first load "
          f"{sheet / 1024:,.0f} KiB (ratio {engine / sheet:.1f}×)")
    print(f"download  viewer: {phone / 1024:,.1f} KiB extra (the scorer's scripts in the service worker's shell; "
          f"the scorer's page loads {len(scorer_only)} of its own, kept as loaded); nothing of the engine")


def timed_goto(page: Any, url: str) -> float:
    page.goto(url)
    return page.evaluate("performance.getEntriesByType('navigation')[0].loadEventEnd")


def quick_tap(page: Any, who: str, bid: str, tricks: int) -> None:
    page.click("#record-hand")
    page.wait_for_url(re.compile(r"/quick$"))
    page.locator("fieldset").nth(0).locator(f"label.pill:has-text('{who}')").click()
    page.locator("fieldset").nth(1).locator(f"label.pill:has-text('{bid}')").click()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--slowdown", type=float, default=4.0, help="CPU slowdown (DevTools), default 4")
    parser.add_argument("--runs", type=int, default=3, help="timed runs of each start and tap (median)")
    args = parser.parse_args()
    if not (ROOT / "static" / "vendor" / "pyodide" / "pyodide.asm.wasm").is_file():
        raise SystemExit("Pyodide is not installed: run ./scripts/setup")
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as folder, sync_playwright() as p:
        process, base = serve(Path(folder))
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            run(browser, base, args)
        finally:
            browser.close()
            process.terminate()
            process.wait(timeout=30)


def run(browser: Any, base: str, args: argparse.Namespace) -> None:
    context = browser.new_context(viewport={"width": 390, "height": 844}, locale="en-GB")
    page = context.new_page()
    cdp = context.new_cdp_session(page)
    page.goto(f"{base}/new/pagat")
    for i, name in enumerate(("Ann", "Bob", "Cat", "Dan")):
        page.fill(f"input[name='players-{i}']", name)
    page.locator("form button[type=submit]").last.click()
    page.wait_for_url(re.compile(r"/e/[A-Za-z0-9_-]+$"))
    key = page.url.rsplit("/", 1)[-1]
    sheet = f"{base}/e/{key}"
    page.evaluate("navigator.serviceWorker.ready.then(() => true)")
    downloads(base, page, key)
    cdp.send("Emulation.setCPUThrottlingRate", {"rate": args.slowdown})

    loads = [timed_goto(page, sheet) for _ in range(args.runs)]
    before = chromium_rss()
    cold = page.evaluate(START)
    memory = chromium_rss() - before
    warm = []
    for _ in range(args.runs):
        page.goto(sheet)
        warm.append(page.evaluate(START))
    load = statistics.median(loads)
    print(f"start     at {args.slowdown:g}× CPU: the scoresheet loads in {load:,.0f} ms; the worker starts cold in "
          f"{cold:,.0f} ms ({cold / load:.1f}×), warm in {statistics.median(warm):,.0f} ms "
          f"({statistics.median(warm) / load:.1f}×)")
    print(f"memory    the worker started: +{memory / 1024:,.0f} MiB in Chromium's processes")

    # the round trip online, then the same tap offline to the provisional totals
    online, offline = [], []
    for i in range(args.runs):
        page.goto(sheet)
        quick_tap(page, "Bob", "Three", 3)
        t0 = time.perf_counter()
        page.click("button[name=tricks][value='3']")
        page.wait_for_function(f"() => document.querySelector('[data-next-hand]')?.getAttribute('data-next-hand') "
                               f"=== '{i + 2}'", timeout=120000)
        online.append((time.perf_counter() - t0) * 1000)
    page.evaluate("localStorage.setItem('nap.engine.lost', String(Date.now()))")
    page.goto(sheet)  # a phone that lost the network lately: the evening kept, the engine started
    page.wait_for_function("() => document.documentElement.getAttribute('data-engine') === 'ready'", timeout=300000)
    page.wait_for_function(f"() => localStorage.getItem('nap.evening.{key}')", timeout=60000)
    context.set_offline(True)
    page.evaluate("window.__samePage = true")
    for i in range(args.runs):
        quick_tap(page, "Cat", "Three", 3)  # quick entry in the scoresheet's page: the worker serves on
        t0 = time.perf_counter()
        page.click("button[name=tricks][value='3']")
        page.wait_for_function(f"() => document.querySelector('.totals.provisional') && document.querySelectorAll("
                               f"'.outbox-entry .provisional-ruling').length === {i + 1}", timeout=300000)
        offline.append((time.perf_counter() - t0) * 1000)
    same = page.evaluate("window.__samePage === true")  # no page was loaded between the taps
    # before (the same run): quick entry as its own page, whose save loads the scoresheet again, a
    # new page whose worker starts again (what a phone without the in-place path still does)
    before = []
    for i in range(args.runs):
        page.goto(f"{sheet}/quick")  # from the service worker's copy: a page of its own
        page.locator("fieldset").nth(0).locator("label.pill:has-text('Dan')").click()
        page.locator("fieldset").nth(1).locator("label.pill:has-text('Three')").click()
        t0 = time.perf_counter()
        page.click("button[name=tricks][value='3']")
        page.wait_for_function(f"() => document.querySelector('.totals.provisional') && document.querySelectorAll("
                               f"'.outbox-entry .provisional-ruling').length === {args.runs + i + 1}", timeout=300000)
        before.append((time.perf_counter() - t0) * 1000)
    context.set_offline(False)
    rt, pv = statistics.median(online), statistics.median(offline)
    how = "quick entry in the scoresheet's page, the worker started once" if same else "a new page each tap"
    print(f"tap       at {args.slowdown:g}× CPU: online round trip to the server's totals {rt:,.0f} ms; offline to the "
          f"provisional totals {pv:,.0f} ms (ratio {pv / rt:.2f}: {how}); before, quick entry a page of its own: "
          f"{statistics.median(before):,.0f} ms (ratio {statistics.median(before) / rt:.2f})")
    context.close()


if __name__ == "__main__":
    sys.exit(main())
