"""A stand-in for ``python -m scorer.reports.render_worker`` that misbehaves on purpose (tests/test_pdf_worker.py):

- ``hang``: reads a request and never answers (the render runs past its time limit);
- ``crash``: reads a request, says so on stderr and exits with status 3;
- ``garbage``: reads a request and answers with bytes that are not a reply frame;
- ``@PATH``: serves one request after another, each as the file ``PATH`` says at that
  moment: ``hang`` (a time-out) or ``crash`` as above, ``refuse`` (an error reply, as when
  WeasyPrint raises on the document: the worker lives on), ``pdf`` (a small PDF) or ``big``
  (a small PDF, the worker saying it holds 400 MiB, as after a 1,000-hand PDF). Every
  request, whatever it meets, is counted in ``PATH.count``. A test changes the file to
  change what the worker (whichever process is running) does next.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

from scorer.reports.render_pool import read_frame, write_frame


def misbehave(mode: str) -> None:
    if mode == "hang":
        while True:
            time.sleep(60)
    if mode == "crash":
        print("fake worker crashed on purpose", file=sys.stderr, flush=True)
        os._exit(3)


def scripted(path: Path) -> int:
    while read_frame(sys.stdin.buffer) is not None:
        count = path.with_name(path.name + ".count")
        count.write_text(str(int(count.read_text() if count.exists() else "0") + 1))
        mode = path.read_text().strip()
        misbehave(mode)
        if mode == "refuse":
            write_frame(sys.stdout.buffer, b"E", b"ValueError: the fake worker refuses this document", 0.01)
        else:
            rss = 400 * 1024 * 1024 if mode == "big" else None
            write_frame(sys.stdout.buffer, b"P", b"%PDF-1.4 fake\n%%EOF\n", 0.01, rss)
    return 0


def main(mode: str) -> int:
    if mode.startswith("@"):
        return scripted(Path(mode[1:]))
    if read_frame(sys.stdin.buffer) is None:
        return 0
    misbehave(mode)
    sys.stdout.buffer.write(b"this is not a reply frame")
    sys.stdout.buffer.flush()
    time.sleep(60)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
