"""What a PDF's failures are remembered as (issue 21 item 15): only what the document
itself caused stands until the document changes; the worker's or the load's fault is
tried again after a while.

- :class:`~scorer.reports.pdf.PdfFailed` (WeasyPrint raised on this document) will fail
  again the same way: it is remembered for as long as the key is (the key holds the
  evening's revision, so until the evening changes), and asked again it is answered at
  once, without a render.
- :class:`~scorer.reports.pdf.PdfCrashed` (the worker died, answered nonsense or could not
  be started) and :class:`~scorer.reports.pdf.PdfTooSlow` (the render ran past the time
  limit: a busy server, or a very long evening) are remembered with a back-off: asked again
  within :data:`FIRST_WAIT` seconds (30 s) they are answered at once, with the seconds
  left as ``retry_after`` (the page's ``Retry-After``); after that a request really tries
  again. Each further failure of the same document doubles the wait, up to
  :data:`LONGEST_WAIT` (10 min); a success forgets it all.
- :class:`~scorer.reports.pdf.PdfBusy` (no render slot free) is not a failure of the
  document and is never remembered.

The clock is injectable (``clock``, seconds, :func:`time.monotonic` by default), so the
back-off is tested without sleeping. Thread-safe; keeps at most ``size`` documents (the
least recently failed are forgotten first).
"""

from __future__ import annotations

import math
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import TypeVar

from .pdf import PdfBusy, PdfCrashed, PdfError, PdfFailed, PdfTooSlow

#: Seconds a document is not rendered again after its first crash or time-out.
FIRST_WAIT = 30.0
#: The longest wait (seconds) however often it failed: after it, a request tries again.
LONGEST_WAIT = 600.0

T = TypeVar("T")


@dataclass(frozen=True)
class Failure:
    """One document's remembered failure: the error's ``kind`` and ``limit`` (to raise it
    again in the asking phone's language), whether the document caused it (``lasting``),
    how many times in a row it failed (``times``) and, unless lasting, the clock's time
    ``until`` which it is not tried again."""

    kind: type[PdfError]
    limit: float | None
    lasting: bool
    times: int = 1
    until: float = math.inf

    def again(self, retry_after: int | None) -> PdfError:
        """The error to answer with now (a fresh one: its message in this request's language)."""
        error = self.kind(self.limit)  # type: ignore[call-arg]
        error.retry_after = retry_after
        return error


class FailureMemory:
    """The failures of documents by key (e.g. ``(table, revision, language, paper,
    limit)``): see the module's description. ``first`` and ``longest`` are the back-off's
    first and longest waits in seconds."""

    def __init__(self, size: int = 64, *, clock: Callable[[], float] = time.monotonic,
                 first: float = FIRST_WAIT, longest: float = LONGEST_WAIT) -> None:
        self.size = size
        self.clock = clock
        self.first = first
        self.longest = longest
        self._data: OrderedDict[Hashable, Failure] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: Hashable) -> Failure | None:
        with self._lock:
            return self._data.get(key)

    def clear(self) -> None:
        with self._lock:
            self._data.clear()

    def wait(self, times: int) -> float:
        """Seconds not to try again after ``times`` failures in a row: ``first``,
        doubling each time, at most ``longest``."""
        return min(self.longest, self.first * 2 ** min(max(times - 1, 0), 32))

    def check(self, key: Hashable) -> None:
        """Raise the failure remembered for ``key`` if it still stands: the document's own
        (always, ``retry_after`` ``None``), or the worker's or the load's while its wait
        lasts (``retry_after``: whole seconds left, at least 1). Returns when a render
        should be tried."""
        found = self.get(key)
        if found is None:
            return
        if found.lasting:
            raise found.again(None)
        left = found.until - self.clock()
        if left > 0:
            raise found.again(max(1, math.ceil(left)))

    def failed(self, key: Hashable, error: PdfError) -> None:
        """Remember that the document ``key`` failed with ``error`` (a :class:`PdfBusy` is
        not remembered) and set ``error.retry_after`` to the wait it starts (``None`` for
        a failure the document caused)."""
        if isinstance(error, PdfBusy):
            return
        lasting = isinstance(error, PdfFailed) and not isinstance(error, PdfCrashed)
        limit = error.limit if isinstance(error, PdfTooSlow) else None
        with self._lock:
            before = self._data.get(key)
            if lasting:
                failure = Failure(type(error), limit, True)
                error.retry_after = None
            else:
                times = before.times + 1 if before is not None and not before.lasting else 1
                wait = self.wait(times)
                failure = Failure(type(error), limit, False, times, self.clock() + wait)
                error.retry_after = max(1, math.ceil(wait))
            self._data[key] = failure
            self._data.move_to_end(key)
            while len(self._data) > self.size:
                self._data.popitem(last=False)

    def forget(self, key: Hashable) -> None:
        with self._lock:
            self._data.pop(key, None)

    def run(self, key: Hashable, make: Callable[[], T]) -> T:
        """``make()`` (a render) unless a failure remembered for ``key`` still stands
        (:meth:`check` raises it); a :class:`PdfError` it raises is remembered
        (:meth:`failed`) and raised again; a success forgets the key's failures."""
        self.check(key)
        try:
            made = make()
        except PdfError as error:
            self.failed(key, error)
            raise
        self.forget(key)
        return made
