"""What a phone costs on the wire (issue 23 item 1): requests and bytes per hand, per
table of five phones, counted by nginx as they arrive — before and after, in one run.

For each checkout (``--app-root``, default this one; ``--baseline-root``, e.g. a worktree
of ``main`` set up with ./scripts/setup) the script

- makes a throwaway PostgreSQL database (``--postgres``, default the test server's),
- starts ``nap serve --workers 2`` from that checkout (its own .venv if it has one, else
  this one with the checkout first on ``PYTHONPATH``) with ``NAP_PROXY_HOPS=1``,
- puts nginx in front of it, configured by *that checkout's* deploy/nginx.conf with TLS on
  loopback (tests/test_proxy.py's renderer and certificate), logging each request's
  ``$request``, ``$status``, ``$bytes_sent`` (headers and body as sent, before TLS) and
  ``$request_length``,
- drives five Debian Chromium phones (Playwright, 390×844, service worker on): one scorer
  who starts a pagat table (Ann, Bob, Cat, Dan) and records ``--hands`` hands by quick
  entry taps, and four viewers on the scoresheet. After each hand it waits until every
  phone shows it and the wire has been quiet for ``--quiet`` seconds (the service
  worker's warm-up and live.js's settle timer included).

Everything the five phones send after the table is open and every worker installed is
counted from nginx's access log, per hand, by kind:

    page     a page (HTML) a phone asked for: a navigation or live.js's refresh
    static   /static/… (a 304 counts as a request, with its bytes)
    save     any write (POST …)
    chart    the running-totals chart
    sw       /sw.js and Workbox's files (update checks, installs)
    warm-up  a page the service worker fetched by itself (its Referer is /sw.js)
    other    the rest
    poll     the live channel (polls of the revision, or the stream that pushes it): printed
             apart, not in the total (a stream is logged once, when it closes)

Nothing is modelled: the figures are what the real browser sent through the proxy.
Prints a table per kind (requests and KiB per hand, before → after, and the ratio), and the
delay from the scorer's tap that saves a hand to the hand's row on each viewer's screen
(the DOM change, seen by a MutationObserver in the page).

``--mix-out FILE`` writes what the phones sent per hand, by path and by whose phone sent it
(``"who"``: ``scorer``, told by its device cookie in the request, its service worker's
included, or ``viewers``, the four together) (the after run), as JSON:
the request mix ``benchmarks/load.py --mix FILE`` replays for many tables (one model of a
phone, measured here, used there).

The app runs its live stream server (``NAP_LIVE_PORT``, a checkout that has one) and nginx
sends ``/e/<key>/events`` to it; an older checkout ignores the setting and its phones poll.

    .venv/bin/python benchmarks/wire.py [--hands 10] [--baseline-root /tmp/nap-main]
"""

from __future__ import annotations

import argparse
import math
import os
import re
import secrets
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from tests.test_proxy import NGINX, certificate, render_deploy_conf  # noqa: E402 - what the proxy test renders
from tests.webhelpers import free_port, listening, stop, wait_until  # noqa: E402

CHROMIUM = os.environ.get("NAP_CHROMIUM", "/usr/bin/chromium")
# a self-signed certificate: the phones accept it, so the service worker registers over HTTPS
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--ignore-certificate-errors"]
PHONE = {"width": 390, "height": 844}
NAMES = ("Ann", "Bob", "Cat", "Dan")
KINDS = ("page", "static", "save", "chart", "sw", "warm-up", "other")
SEP = "\x1f"
LOG_FORMAT = SEP.join(("$request_method", "$request_uri", "$status", "$bytes_sent", "$request_length",
                       "$http_referer", "$sent_http_content_type", "$sent_http_content_encoding",
                       # for reading the kept log (NAP_WIRE_LOG): what the browser asked with
                       "$http_if_none_match", "$http_service_worker", "$http_cache_control",
                       # which phone: the scorer's device cookie is in it (its service worker's too)
                       "$http_cookie"))
# the live channel: the polls of the revision, or the one stream of pushed revisions
POLL = re.compile(r"/e/[A-Za-z0-9_-]+/(revision|events)")
CHART = re.compile(r"/e/[A-Za-z0-9_-]+/chart\.svg")


@dataclass
class Line:
    method: str
    path: str
    status: int
    sent: int
    received: int
    referer: str
    content_type: str
    encoding: str
    cookie: str = ""

    @classmethod
    def parse(cls, raw: str) -> Line:
        method, uri, status, sent, received, referer, ctype, enc, *rest = raw.rstrip("\n").split(SEP)
        return cls(method, uri, int(status), int(sent), int(received), referer, ctype, enc,
                   rest[3] if len(rest) > 3 else "")

    @property
    def kind(self) -> str:
        path = urlsplit(self.path).path
        if POLL.fullmatch(path):
            return "poll"
        if self.method != "GET":
            return "save"
        if path == "/sw.js" or path.startswith("/static/vendor/workbox/"):
            return "sw"
        if CHART.fullmatch(path):
            return "chart"
        if path.startswith("/static/"):
            return "static"
        if urlsplit(self.referer).path == "/sw.js":
            return "warm-up"
        if self.content_type.startswith("text/html"):
            return "page"
        return "other"


@dataclass
class Tally:
    hands: int
    requests: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    sent: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    received: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    not_modified: int = 0
    compressed: int = 0
    seconds: float = 0.0
    paths: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    delays: list[float] = field(default_factory=list)
    #: (kind, method, path with {key} and {n}, who) → requests, for --mix-out
    mix: dict[tuple[str, str, str, str], int] = field(default_factory=lambda: defaultdict(int))
    #: the scorer's device cookie's value: a request carrying it is the scorer's phone's
    scorer_device: str = ""

    def add(self, line: Line) -> None:
        kind = line.kind
        self.requests[kind] += 1
        self.sent[kind] += line.sent
        self.received[kind] += line.received
        if kind != "poll":
            self.not_modified += line.status == 304
            self.compressed += bool(line.encoding and line.encoding != "-")
            path = re.sub(r"/e/[A-Za-z0-9_-]+", "/e/<key>", line.path)
            self.paths[f"{kind:8} {line.method} {path} {line.status}"] += 1
            # a number in the path or query (a hand, a revision): {n}, the table's latest at replay
            template = re.sub(r"(?<=[=/])\d+(?=$|[&/#])", "{n}", path.replace("/e/<key>", "/e/{key}"))
            who = "scorer" if self.scorer_device and self.scorer_device in line.cookie else "viewers"
            self.mix[(kind, line.method, template, who)] += 1

    def mix_out(self, path: Path) -> None:
        """Write the per-hand request mix (benchmarks/load.py --mix)."""
        import json

        requests = [{"kind": kind, "method": method, "path": template, "who": who,
                     "per_hand": round(count / self.hands, 3)}
                    for (kind, method, template, who), count in sorted(self.mix.items())]
        path.write_text(json.dumps({"source": "benchmarks/wire.py", "hands": self.hands, "phones": 5,
                                    "requests": requests}, indent=1) + "\n")

    def per_hand(self, kind: str | None = None) -> tuple[float, float, float]:
        """(requests, KiB down, KiB up) per hand, of ``kind`` or of all but the polls."""
        kinds = KINDS if kind is None else (kind,)
        n = self.hands
        return (sum(self.requests[k] for k in kinds) / n, sum(self.sent[k] for k in kinds) / 1024 / n,
                sum(self.received[k] for k in kinds) / 1024 / n)


class Database:
    """A throwaway PostgreSQL database: created on enter, dropped on exit."""

    def __init__(self, server: str) -> None:
        self.server = server.rstrip("/")
        self.name = f"nap_wire_{secrets.token_hex(4)}"

    def _admin(self, sql: str) -> None:
        import psycopg

        with psycopg.connect(f"{self.server}/postgres", autocommit=True) as conn:
            conn.execute(sql)  # type: ignore[arg-type] - names made here, never typed by anyone

    def __enter__(self) -> str:
        self._admin(f'CREATE DATABASE "{self.name}"')
        return f"{self.server}/{self.name}"

    def __exit__(self, *exc: object) -> None:
        self._admin(f'DROP DATABASE IF EXISTS "{self.name}" WITH (FORCE)')


class Site:
    """``nap serve --workers 2`` from ``root`` behind nginx (``root``'s deploy/nginx.conf) on
    loopback with TLS; ``origin`` is what the phones open, ``log`` nginx's access log."""

    def __init__(self, root: Path, database: str, tmp: Path) -> None:
        self.root, self.database, self.tmp = root, database, tmp
        self.log = tmp / "access.log"
        self.processes: list[subprocess.Popen[Any]] = []

    def __enter__(self) -> Site:
        app_port, port = free_port(), free_port()
        own = self.root / ".venv" / "bin" / "nap"
        live_port = free_port()
        env = {**os.environ, "DATABASE_URL": self.database, "NAP_PROXY_HOPS": "1", "SECRET_KEY": "wire-bench",
               "NAP_INSTANCE": str(self.tmp / "instance"), "NAP_LIVE_PORT": str(live_port)}
        if not own.exists():
            env["PYTHONPATH"] = f"{self.root}{os.pathsep}{env.get('PYTHONPATH', '')}"
        nap = own if own.exists() else ROOT / ".venv" / "bin" / "nap"
        app = subprocess.Popen([str(nap), "serve", "--host", "127.0.0.1", "--port", str(app_port), "--workers", "2"],
                               cwd=self.root, env=env, stdout=open(self.tmp / "app.log", "w"), stderr=subprocess.STDOUT)
        self.processes.append(app)
        cert, key = certificate(self.tmp)
        site = self.tmp / "nap.conf"
        text = render_deploy_conf(f"127.0.0.1:{port} ssl", "nap.test", cert, key, f"127.0.0.1:{app_port}",
                                  conf=self.root / "deploy" / "nginx.conf", live=f"127.0.0.1:{live_port}")
        # the site's own access log (masked, without the bytes sent) gives way to the one counted here
        site.write_text(re.sub(r"(?m)^\s*access_log\s+\S+\s+nap_masked;", f"    access_log {self.log} wire;", text))
        user = "user root;\n" if os.geteuid() == 0 else ""
        temp = "".join(f"    {kind}_temp_path {self.tmp / kind};\n" for kind in ("client_body", "proxy", "fastcgi"))
        main = self.tmp / "nginx.conf"
        main.write_text(f"{user}worker_processes 1;\nerror_log {self.tmp / 'error.log'} info;\n"
                        "events { worker_connections 256; }\n"
                        f"http {{\n    log_format wire '{LOG_FORMAT}';\n    access_log {self.log} wire;\n"
                        f"{temp}    include {site};\n}}\n")
        self.processes.append(subprocess.Popen(
            [NGINX, "-p", str(self.tmp), "-e", str(self.tmp / "error.log"), "-c", str(main),
             "-g", f"daemon off; pid {self.tmp / 'nginx.pid'};"], stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT))
        wait_until(lambda: listening(app_port) or app.poll() is not None, "nap serve never listened", pause=0.2)
        if app.poll() is not None:
            raise SystemExit(f"nap serve stopped: {(self.tmp / 'app.log').read_text()}")
        wait_until(lambda: listening(port), "nginx never listened", pause=0.1)
        self.origin = f"https://127.0.0.1:{port}"
        return self

    def __exit__(self, *exc: object) -> None:
        for process in reversed(self.processes):
            stop(process)

    def lines(self) -> list[Line]:
        if not self.log.exists():
            return []
        return [Line.parse(raw) for raw in self.log.read_text().splitlines() if raw]

    def quiet(self, seconds: float, limit: float = 90.0) -> None:
        """Wait until nothing but polls has arrived for ``seconds`` (at most ``limit``)."""
        deadline = time.monotonic() + limit
        last, since = -1, time.monotonic()
        while time.monotonic() < deadline:
            count = sum(1 for line in self.lines() if line.kind != "poll")
            if count != last:
                last, since = count, time.monotonic()
            elif time.monotonic() - since >= seconds:
                return
            time.sleep(0.25)


#: When each hand's row first appeared on the page (Date.now(), ms): ``window.napSeen["hand-N"]``.
SEEN = """window.napSeen = {};
new MutationObserver(() => {
  document.querySelectorAll("tbody[id^='hand-']").forEach((t) => {
    if (!(t.id in napSeen)) napSeen[t.id] = Date.now();
  });
}).observe(document, {subtree: true, childList: true});"""


def _phone(browser: Any) -> tuple[Any, Any]:
    context = browser.new_context(viewport=PHONE, locale="en-GB", ignore_https_errors=True, service_workers="allow")
    context.add_init_script(SEEN)
    return context, context.new_page()


def _controlled(page: Any, url: str) -> None:
    """The service worker installed and this page under it (a phone's second visit)."""
    page.evaluate("navigator.serviceWorker.ready.then(() => true)")
    page.goto(url)
    page.wait_for_function("() => navigator.serviceWorker.controller !== null", timeout=60000)


def _quick(page: Any, who: str, bid: str, tricks: int) -> int:
    """Record a hand by quick entry; the time of the tap that saves it (Date.now(), ms)."""
    page.click("#record-hand")
    page.wait_for_url(re.compile(r"/quick$"))
    page.locator("fieldset").nth(0).locator(f"label.pill:has-text('{who}')").click()
    page.locator("fieldset").nth(1).locator(f"label.pill:has-text('{bid}')").click()
    tapped = int(page.evaluate("Date.now()"))
    page.locator(f"button[name=tricks][value='{tricks}']").click()
    page.wait_for_url(re.compile(r"/e/[A-Za-z0-9_-]+(#hand-\d+)?$"))
    return tapped


def measure(browser: Any, root: Path, postgres: str, hands: int, quiet: float, before: int = 0) -> Tally:
    """One table of five phones through ``hands`` hands on ``root``'s app, after ``before``
    hands not counted: the tally."""
    with tempfile.TemporaryDirectory(prefix="nap-wire-") as tmp_name, Database(postgres) as database, \
            Site(root, database, Path(tmp_name)) as site:
        base = site.origin
        contexts = []
        try:
            ctx, scorer = _phone(browser)
            contexts.append(ctx)
            scorer.goto(f"{base}/new/pagat")
            for i, name in enumerate(NAMES):
                scorer.fill(f"input[name='players-{i}']", name)
            scorer.fill("input[name='opt_hands_per_dealer']", str(math.ceil((before + hands) / len(NAMES)) + 1))
            scorer.locator("form button[type=submit]").last.click()
            scorer.wait_for_url(re.compile(r"/e/[A-Za-z0-9_-]+$"))
            key = scorer.url.rsplit("/", 1)[-1]
            sheet = f"{base}/e/{key}"
            _controlled(scorer, sheet)
            viewers = []
            for _ in range(4):
                ctx, viewer = _phone(browser)
                contexts.append(ctx)
                viewer.goto(sheet)
                _controlled(viewer, sheet)
                viewers.append(viewer)
            site.quiet(quiet)
            start = len(site.lines())
            began = time.monotonic()
            delays = []
            for n in range(1, before + hands + 1):
                if n == before + 1:  # the hands before: not counted (a table well into its evening)
                    start, began, delays = len(site.lines()), time.monotonic(), []
                tapped = _quick(scorer, NAMES[n % len(NAMES)], "Three", 3)
                for phone in (scorer, *viewers):
                    phone.locator(f"#hand-{n}").wait_for(state="attached", timeout=60000)
                for viewer in viewers:  # the tap that saved it → the row on the viewer's screen
                    seen = viewer.evaluate(f"window.napSeen && window.napSeen['hand-{n}']")
                    if seen:
                        delays.append((int(seen) - tapped) / 1000)
                site.quiet(quiet)
            device = next((c["value"] for c in contexts[0].cookies() if c["name"].endswith("nap_device")), "")
            tally = Tally(hands, seconds=time.monotonic() - began, delays=delays, scorer_device=device)
            if os.environ.get("NAP_WIRE_LOG"):  # keep nginx's log to read (a file of that name)
                Path(os.environ["NAP_WIRE_LOG"]).write_text(site.log.read_text())
            for line in site.lines()[start:]:
                tally.add(line)
            return tally
        finally:
            for ctx in contexts:
                ctx.close()


def _row(label: str, before: tuple[float, float, float] | None, after: tuple[float, float, float]) -> str:
    def cell(v: tuple[float, float, float] | None) -> str:
        return f"{v[0]:7.1f} req {v[1]:8.1f} KiB" if v else " " * 20

    def ratio(a: float, b: float) -> str:
        return f"{a / b:6.2f}x" if b else "     -"

    out = f"{label:10} {cell(before)}  ->  {cell(after)}"
    if before:
        out += f"   req {ratio(after[0], before[0])}  bytes {ratio(after[1], before[1])}"
    return out


def report(before: Tally | None, after: Tally, verbose: bool) -> None:
    print(f"\nPer hand, per table of five phones (scorer + 4 viewers), {after.hands} hands; "
          "KiB = response bytes nginx sent (headers + body, before TLS)")
    print(f"{'kind':10} {'before':>20}      {'after':>20}")
    for kind in KINDS:
        print(_row(kind, before.per_hand(kind) if before else None, after.per_hand(kind)))
    print(_row("TOTAL", before.per_hand() if before else None, after.per_hand()))
    polls = _row("poll", before.per_hand("poll") if before else None, after.per_hand("poll"))
    print(polls + "   (live channel, apart)")
    for label, t in (("before", before), ("after", after)):
        if t is None:
            continue
        print(f"{label}: 304s per hand {t.not_modified / t.hands:.1f}, compressed answers per hand "
              f"{t.compressed / t.hands:.1f}, KiB up per hand {t.per_hand()[2]:.1f}, {t.seconds:.0f} s")
    print("target: at most 12 requests and 40 KiB per hand (issue 23 item 1)")
    for label, t in (("before", before), ("after", after)):
        if t is not None and t.delays:
            d = sorted(t.delays)
            print(f"{label}: save → viewer's screen (tap to row shown, {len(d)} views): "
                  f"p50 {d[len(d) // 2] * 1000:.0f} ms, max {d[-1] * 1000:.0f} ms")
    print(f"machine load average: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    if verbose:
        for label, t in (("before", before), ("after", after)):
            if t is None:
                continue
            print(f"\n{label}: every request (count over all hands)")
            for path, count in sorted(t.paths.items()):
                print(f"  {count:4} {path}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--app-root", type=Path, default=ROOT)
    parser.add_argument("--baseline-root", type=Path, default=None)
    parser.add_argument("--hands", type=int, default=10)
    parser.add_argument("--quiet", type=float, default=4.0, help="seconds of no traffic that end a hand")
    parser.add_argument("--before", type=int, default=1,
                        help="hands played first and not counted (the first hand of an evening sends the "
                             "viewers the whole page: a table well into its evening, as load.py's, does not)")
    parser.add_argument("--postgres", default=os.environ.get("NAP_BENCH_POSTGRES", "postgresql://postgres@127.0.0.1:5432"))
    parser.add_argument("--verbose", action="store_true", help="list every request")
    parser.add_argument("--mix-out", type=Path, default=None,
                        help="write the after run's requests per hand as JSON (benchmarks/load.py --mix)")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            before = None
            if args.baseline_root:
                before = measure(browser, args.baseline_root.resolve(), args.postgres, args.hands, args.quiet,
                                 args.before)
            after = measure(browser, args.app_root.resolve(), args.postgres, args.hands, args.quiet, args.before)
        finally:
            browser.close()
    report(before, after, args.verbose)
    if args.mix_out:
        after.mix_out(args.mix_out)
        print(f"the request mix per hand: {args.mix_out}")


if __name__ == "__main__":
    main()
