"""The PDF render workers: long-lived ``python -m scorer.reports.render_worker`` children, kept warm.

A render worker imports WeasyPrint and loads the fonts once (about 1.3 s), then renders
one document after another: the web app (:mod:`scorer.reports.pdf`) sends finished HTML down the
worker's stdin and reads the PDF from its stdout, in frames (:func:`write_frame`,
:func:`read_frame`). Isolation stays what it was with a child per render:

- a render still running at its deadline is stopped by killing the worker (SIGKILL), and a
  fresh worker is started at once, at low priority, so the next request finds it warm;
- a worker that dies (a crash inside Pango, the OOM killer) costs only the render it was
  doing: :class:`RenderCrashed`; the next render starts a new worker;
- a worker is retired after ``max_renders`` renders (memory the renderer keeps or leaks
  goes with it) and replaced at once;
- a worker whose resident memory after a render is over ``max_mib`` MiB (config
  ``NAP_PDF_WORKER_MAX_MIB``, default 250) is retired and replaced at once too: a 1,000-hand
  PDF grew a worker to 430 MiB, which it kept for up to 100 renders (issue 23, item 5);
- the worker gets the environment without secrets, runs niced, and can read only the app's
  static files (:class:`scorer.reports.render_worker.StaticOnlyFetcher`).

A :class:`WorkerPool` holds ``size`` workers (config ``PDF_WORKERS``, default one on the
two-core machine this runs on); :meth:`WorkerPool.take` never waits: with every worker busy
it returns ``None`` and the caller answers "try again" (503).

This module uses the standard library only: the worker (:mod:`scorer.reports.render_worker`) imports
its framing from here without loading Flask.
"""

from __future__ import annotations

import atexit
import os
import re
import selectors
import struct
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import BinaryIO

#: A request frame: the HTML's length in bytes, then the HTML (UTF-8).
REQUEST = struct.Struct(">I")
#: A reply frame: ``b"P"`` (a PDF follows) or ``b"E"`` (an error message follows), the
#: payload's length, the CPU seconds the worker spent on the render and its resident memory
#: in bytes as it replies (:func:`resident_bytes`); then the payload.
REPLY = struct.Struct(">cIdQ")

#: Renders before a worker is replaced (config ``PDF_WORKER_RENDERS``).
DEFAULT_MAX_RENDERS = 100
#: A worker's resident memory, in MiB, past which it is replaced after its render (config
#: ``NAP_PDF_WORKER_MAX_MIB``). A warm worker holds about 75 MiB; a 300-hand PDF grows it to
#: about 180 (kept), a 1,000-hand one to about 420 (replaced): benchmarks/pdf_memory.py.
DEFAULT_MAX_MIB = 250
MIB = 1024 * 1024
#: The workers' niceness: a PDF is never more urgent than the pages the server answers.
NICENESS = 10

_SECRET = re.compile(r"SECRET|PASSWORD|TOKEN|KEY|DATABASE|PG|CREDENTIAL", re.IGNORECASE)
#: The folder holding the ``scorer`` package, which the worker imports.
_PACKAGE_ROOT = Path(__file__).resolve().parent.parent.parent


class RenderTimeout(Exception):
    """The render was still going on at its deadline; the worker was killed."""


class RenderCrashed(Exception):
    """The worker died or answered nonsense during the render; ``str()`` is what it said on stderr."""


class RenderFailed(Exception):
    """WeasyPrint raised on this document (the worker lives on); ``str()`` is its message."""


def resident_bytes() -> int:
    """This process's resident memory now, in bytes: the second field of ``/proc/self/statm``
    (pages) times the page size. The current figure, not the lifetime peak (``ru_maxrss``, which
    never falls). The worker reads it as it replies, before its collection after the render:
    what the render grew it to (a 1,000-hand PDF: about 420 MiB; once collected it still
    holds about 240, three times a fresh worker's 75, as the allocator keeps freed memory).
    Where there is no ``/proc``, the peak is all there is (``getrusage``; KiB on Linux,
    bytes on macOS)."""
    try:
        with open("/proc/self/statm", "rb") as statm:
            return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        import resource

        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        return peak if sys.platform == "darwin" else peak * 1024


def write_frame(out: BinaryIO, status: bytes, payload: bytes, cpu: float, rss: int | None = None) -> None:
    """The worker's side: one reply frame (``status`` ``b"P"`` or ``b"E"``) on ``out``, with
    the worker's resident memory ``rss`` in bytes (default: :func:`resident_bytes` now)."""
    out.write(REPLY.pack(status, len(payload), cpu, resident_bytes() if rss is None else rss))
    out.write(payload)
    out.flush()


def read_frame(source: BinaryIO) -> bytes | None:
    """The worker's side: the next request's HTML bytes from ``source``, or ``None`` at
    the end of the input (the app closed the pipe: time to exit)."""
    header = source.read(REQUEST.size)
    if len(header) < REQUEST.size:
        return None
    (length,) = REQUEST.unpack(header)
    body = source.read(length)
    return body if len(body) == length else None


def worker_command(static_dir: Path) -> list[str]:
    """The command that starts one worker serving ``static_dir``'s files."""
    return [sys.executable, "-m", "scorer.reports.render_worker", str(static_dir)]


def worker_environment(niceness: int = NICENESS) -> dict[str, str]:
    """The worker's environment: this one without keys, passwords or the database's address."""
    env = {k: v for k, v in os.environ.items() if not _SECRET.search(k)}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(_PACKAGE_ROOT), os.environ.get("PYTHONPATH")]))
    env["NAP_PDF_NICE"] = str(niceness)
    return env


class RenderWorker:
    """One worker process, started on first use; used by one thread at a time (the pool's)."""

    def __init__(self, static_dir: Path, max_renders: int = DEFAULT_MAX_RENDERS,
                 max_mib: int = DEFAULT_MAX_MIB) -> None:
        self.static_dir = static_dir
        self.max_renders = max(1, max_renders)
        self.max_mib = max(1, max_mib)
        self.renders = 0  # by the current process
        #: the resident memory (bytes) the worker reported with its last reply (0: none yet)
        self.last_rss = 0
        #: workers retired for their memory, over this object's life
        self.replaced_for_memory = 0
        self.process: subprocess.Popen[bytes] | None = None
        self._errors: BinaryIO | None = None

    @property
    def pid(self) -> int | None:
        return self.process.pid if self.process is not None else None

    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def start(self) -> None:
        """Start the process (it imports WeasyPrint and warms its fonts while we go on)."""
        self.stop()
        if self._errors is not None:
            self._errors.close()
        self._errors = tempfile.TemporaryFile()  # the worker's stderr, kept for its life
        self.process = subprocess.Popen(  # noqa: S603 - a fixed command; documents go through stdin
            worker_command(self.static_dir), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._errors,
            env=worker_environment(), cwd=_PACKAGE_ROOT, bufsize=0, start_new_session=True,
        )
        assert self.process.stdin is not None and self.process.stdout is not None
        os.set_blocking(self.process.stdin.fileno(), False)
        os.set_blocking(self.process.stdout.fileno(), False)
        self.renders = 0

    def stop(self, *, kill: bool = True) -> None:
        """End the process: killed at once if ``kill``, else its stdin is closed so that it
        exits when it has finished (reaped in the background, killed if it lingers)."""
        process, self.process = self.process, None
        if process is None:
            return
        for pipe in (process.stdin, process.stdout):
            if pipe is not None:
                pipe.close()
        if kill:
            process.kill()
            process.wait()
        else:
            threading.Thread(target=_reap, args=(process,), daemon=True).start()

    def close(self, *, kill: bool = True) -> None:
        """Stop the process (see :meth:`stop`) and let go of its stderr file."""
        self.stop(kill=kill)
        if self._errors is not None:
            self._errors.close()
            self._errors = None

    def stderr_tail(self, limit: int = 2000) -> str:
        if self._errors is None:
            return ""
        self._errors.seek(0, os.SEEK_END)
        size = self._errors.tell()
        self._errors.seek(max(0, size - limit))
        return self._errors.read().decode(errors="replace")

    def render(self, html: bytes, deadline: float) -> tuple[bytes, float]:
        """The PDF of ``html`` and the worker's CPU seconds for it, by ``deadline``
        (:func:`time.monotonic`). Raises :class:`RenderTimeout` (the worker is killed and
        replaced), :class:`RenderCrashed` (likewise), :class:`RenderFailed` (WeasyPrint's
        error; the worker lives on)."""
        try:
            if not self.alive():
                self.start()
            status, payload, cpu, rss = self._exchange(REQUEST.pack(len(html)) + html, deadline)
        except OSError as error:  # no process could be started (out of memory, no such interpreter)
            self.stop()
            raise RenderCrashed(f"the worker could not be started: {error}") from None
        except RenderTimeout:
            self._replace()  # kills the stuck one; the new one warms up while the user reads the 503 page
            raise
        except RenderCrashed as crash:
            said = self.stderr_tail() or str(crash)
            self.stop()
            raise RenderCrashed(said) from None
        self.renders += 1
        self.last_rss = rss
        too_big = rss > self.max_mib * MIB
        if self.renders >= self.max_renders or too_big:
            # it has replied: it ends when its input closes, and its memory goes with it
            self.replaced_for_memory += too_big
            self.stop(kill=False)
            self._replace()
        if status != b"P":
            raise RenderFailed(payload.decode(errors="replace"))
        return payload, cpu

    def _replace(self) -> None:
        """A fresh process in place of the current one (killed if still there); if none can be
        started now, the next render tries again."""
        try:
            self.start()
        except OSError:
            self.stop()

    def _exchange(self, request: bytes, deadline: float) -> tuple[bytes, bytes, float, int]:
        process = self.process
        assert process is not None and process.stdin is not None and process.stdout is not None
        out_fd, in_fd = process.stdin.fileno(), process.stdout.fileno()
        view, sent = memoryview(request), 0
        reply = bytearray()
        with selectors.DefaultSelector() as selector:
            selector.register(out_fd, selectors.EVENT_WRITE)
            selector.register(in_fd, selectors.EVENT_READ)
            while True:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise RenderTimeout()
                for key, _events in selector.select(left):
                    if key.fd == out_fd:
                        try:
                            sent += os.write(out_fd, view[sent:sent + 65536])
                        except (BrokenPipeError, BlockingIOError) as error:
                            if isinstance(error, BrokenPipeError):
                                raise RenderCrashed("the worker closed its input") from None
                            continue
                        if sent == len(view):
                            selector.unregister(out_fd)
                        continue
                    chunk = os.read(in_fd, 1 << 20)
                    if not chunk:
                        raise RenderCrashed(f"the worker exited ({process.poll()})")
                    reply += chunk
                    if len(reply) >= REPLY.size:
                        status, length, cpu, rss = REPLY.unpack_from(reply)
                        if status not in (b"P", b"E"):
                            raise RenderCrashed("the worker answered out of turn")
                        if len(reply) >= REPLY.size + length:
                            return status, bytes(reply[REPLY.size:REPLY.size + length]), cpu, rss


def _reap(process: subprocess.Popen[bytes], grace: float = 10.0) -> None:
    try:
        process.wait(timeout=grace)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


class WorkerPool:
    """``size`` workers for one static folder; :meth:`take` a free one (or ``None`` at once), :meth:`give`
    it back."""

    def __init__(self, size: int, static_dir: Path, max_renders: int = DEFAULT_MAX_RENDERS,
                 max_mib: int = DEFAULT_MAX_MIB) -> None:
        self.size = max(1, size)
        self.free = [RenderWorker(static_dir, max_renders, max_mib) for _ in range(self.size)]
        self.all = list(self.free)
        self.lock = threading.Lock()

    def take(self) -> RenderWorker | None:
        with self.lock:
            return self.free.pop() if self.free else None

    def give(self, worker: RenderWorker) -> None:
        with self.lock:
            self.free.append(worker)

    def warm(self) -> None:
        """Start every idle worker that is not running (a server starting up): the first PDF is then warm."""
        with self.lock:
            for worker in self.free:
                if not worker.alive():
                    worker.start()

    def close(self) -> None:
        for worker in self.all:
            worker.close(kill=False)


_pools: dict[tuple[int, int, str, int, int], WorkerPool] = {}
_pools_lock = threading.Lock()


def pool(size: int, static_dir: Path, max_renders: int = DEFAULT_MAX_RENDERS,
         max_mib: int = DEFAULT_MAX_MIB) -> WorkerPool:
    """The process's pool for these settings (a forked process gets its own)."""
    key = (os.getpid(), size, str(static_dir), max_renders, max_mib)
    with _pools_lock:
        found = _pools.get(key)
        if found is None:
            found = _pools[key] = WorkerPool(size, static_dir, max_renders, max_mib)
        return found


@atexit.register
def _close_all() -> None:
    for key, found in list(_pools.items()):
        if key[0] == os.getpid():
            found.close()
