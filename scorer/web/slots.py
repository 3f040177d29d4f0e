"""Page slots: one client address may hold at most ``NAP_PAGE_SLOTS`` of the server's page
threads at once (issue 21, item 10).

waitress answers with 8 threads (:data:`scorer.cli.serve.SERVER_LIMITS`). A client that
keeps 12 page requests in flight held all 8, and every other table's page waited behind
them (p99 2.6–3.3 s, ``benchmarks/greedy_client.py``). Now a page request (anything but a
static file, the live poll and ``/healthz``, which are answered in a moment) from an address
that already has ``NAP_PAGE_SLOTS`` pages in progress in this process is answered at once:
503 with ``Retry-After: 1`` (JSON ``busy`` under ``/api/``), instead of queueing for a thread.

The address is ``request.remote_addr``: the phone's own, or behind the documented proxy the
one its ``X-Forwarded-For`` names once ``NAP_PROXY_HOPS`` trusts it. ``NAP_PAGE_SLOTS``: 4
by default (half the threads), ``0`` turns the cap off; under ``TESTING`` it is off unless
the test's configuration sets it. A loopback address (127.0.0.0/8, ``::1``) is never capped:
it is this machine (a benchmark, a test, a proxy the app was not told to trust, whose
clients would otherwise all share one address). Phones behind one address (a club's Wi-Fi) share its slots:
a page takes a few milliseconds, so 4 slots still serve hundreds of pages a second.
"""

from __future__ import annotations

import functools
import ipaddress
import logging
import os
import threading
import time
from typing import Any

from flask import Flask, current_app, g, jsonify, render_template, request
from flask_babel import gettext

from .quiet import INNER_PAGE

log = logging.getLogger("scorer")

#: Page slots per client address by default: half of waitress's 8 threads.
DEFAULT_SLOTS = 4
#: Endpoints answered in a moment, never counted: static files, the live poll, the health check.
EXEMPT = frozenset({"static", "table.revision", "start.healthz"})
RETRY_AFTER = "1"


class Slots:
    """The page requests in progress per client address (thread-safe)."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._lock = threading.Lock()
        self._held: dict[str, int] = {}
        self._over: set[str] = set()  # addresses refused since their count was last 0 (logged once)

    def take(self, address: str) -> tuple[bool, bool]:
        """``(taken, first_refusal)``: a slot for ``address`` if one of its ``limit`` is free."""
        with self._lock:
            held = self._held.get(address, 0)
            if held >= self.limit:
                first = address not in self._over
                self._over.add(address)
                return False, first
            self._held[address] = held + 1
            return True, False

    def give_back(self, address: str) -> None:
        with self._lock:
            held = self._held.get(address, 0) - 1
            if held <= 0:
                self._held.pop(address, None)
                self._over.discard(address)
            else:
                self._held[address] = held

    def held(self, address: str) -> int:
        """Slots ``address`` holds now."""
        with self._lock:
            return self._held.get(address, 0)


@functools.lru_cache(maxsize=4096)
def is_loopback(address: str) -> bool:
    """Whether ``address`` (``request.remote_addr``) is this machine's loopback (asked by every
    request: each address is parsed once while it is among the last 4,096 seen)."""
    try:
        return ipaddress.ip_address(address).is_loopback
    except ValueError:
        return False


def _configured(name: str, default: int, app: Flask, test_config: dict[str, Any] | None) -> int:
    """Setting ``name`` for ``app``: the test's configuration, else 0 (off) under ``TESTING``,
    else the environment (``default`` when unset). Raises ``ValueError`` below 0."""
    if test_config is not None and name in test_config:
        value = test_config[name]
    elif app.config.get("TESTING"):
        value = 0
    else:
        value = os.environ.get(name, "").strip() or default
    number = int(value)
    if number < 0:
        raise ValueError(f"{name} must be 0 (off) or more")
    return number


def configured_slots(app: Flask, test_config: dict[str, Any] | None) -> int:
    """``NAP_PAGE_SLOTS`` for ``app``: the test's configuration, else off under ``TESTING``,
    else the environment (default :data:`DEFAULT_SLOTS`). Raises ``ValueError`` below 0."""
    return _configured("NAP_PAGE_SLOTS", DEFAULT_SLOTS, app, test_config)


def busy() -> Any:
    """The 503 answer to a page over its address's slots."""
    message = gettext("Too many pages are being loaded from your address at once. Try again in a moment.")
    headers = {"Retry-After": RETRY_AFTER, "Cache-Control": "no-store"}
    if request.path.startswith("/api/"):
        return jsonify(error={"code": "busy", "message": message}), 503, headers
    return render_template("error.html", code=503, message=message), 503, headers


#: Other page requests in progress in this process from which on the service worker's warm-up
#: is put off, by default: any other (the warm-up runs when the process is otherwise idle);
#: ``NAP_WARM_BUSY``, ``0``: never.
DEFAULT_WARM_BUSY = 1


#: Seconds after which a warm-up is made however busy the process: one a process at least this
#: often, so that no stream of requests (a busy room, or one client asking without pause) can
#: put every phone's warm-up off for good.
WARM_AT_LEAST_EVERY = 30.0


class InProgress:
    """The page requests in progress in this process, from any address (thread-safe), and
    when it last made a warm-up (:func:`too_busy_for_background`)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.count = 0
        self.last_warm_up = time.monotonic()

    def enter(self) -> None:
        with self._lock:
            self.count += 1

    def leave(self) -> None:
        with self._lock:
            self.count -= 1


def configured_warm_busy(app: Flask, test_config: dict[str, Any] | None) -> int:
    """``NAP_WARM_BUSY`` for ``app``: the test's configuration, else off (0) under ``TESTING``,
    else the environment (default :data:`DEFAULT_WARM_BUSY`). Raises ``ValueError`` below 0."""
    return _configured("NAP_WARM_BUSY", DEFAULT_WARM_BUSY, app, test_config)


def too_busy_for_background() -> bool:
    """Whether this process has at least ``NAP_WARM_BUSY`` page requests in progress besides
    this one: work no phone waits for (the service worker's warm-up, :mod:`scorer.web.views.offline`)
    is then put off, so that the pages phones do wait for are not queued behind it (issue 23
    item 2). Never while ``NAP_WARM_BUSY`` is 0."""
    busy_past = int(current_app.config.get("NAP_WARM_BUSY") or 0)
    counted: InProgress | None = current_app.extensions.get("nap_in_progress")
    if counted is None:
        return False
    now = time.monotonic()
    if busy_past > 0 and counted.count - 1 >= busy_past and now - counted.last_warm_up < WARM_AT_LEAST_EVERY:
        return True
    counted.last_warm_up = now  # this one is made
    return False


def init_app(app: Flask) -> None:
    """Count each page request against its address (register first: before any other hook),
    and in this process (:func:`too_busy_for_background`)."""
    in_progress = app.extensions["nap_in_progress"] = InProgress()

    @app.before_request
    def count_it() -> None:
        # (a warm-up's own inner pages are part of it: not counted again)
        if request.endpoint not in EXEMPT and not request.environ.get(INNER_PAGE):
            in_progress.enter()
            g.nap_in_progress = True

    @app.teardown_request
    def uncount_it(error: BaseException | None) -> None:
        if g.pop("nap_in_progress", None):
            in_progress.leave()

    limit = int(app.config.get("NAP_PAGE_SLOTS") or 0)
    if limit <= 0:
        return
    slots = app.extensions["nap_page_slots"] = Slots(limit)

    @app.before_request
    def take_a_slot() -> Any:
        if request.endpoint in EXEMPT:
            return None
        address = request.remote_addr or "-"
        if is_loopback(address):
            return None
        taken, first = slots.take(address)
        if taken:
            g.nap_page_slot = address
            return None
        g.error_logged = True  # not a server error (scorer.web.logs): logged here, once per burst
        if first:
            log.warning("busy: %s holds all %d page slots; its other pages are answered 503", address, limit)
        return busy()

    @app.teardown_request
    def give_it_back(error: BaseException | None) -> None:
        address = g.pop("nap_page_slot", None)
        if address is not None:
            current_app.extensions["nap_page_slots"].give_back(address)
