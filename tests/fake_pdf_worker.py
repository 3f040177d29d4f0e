"""A stand-in for ``python -m scorer.reports.render_worker`` that misbehaves on purpose (tests/test_pdf_worker.py):

- ``hang``: reads a request and never answers;
- ``crash``: reads a request, says so on stderr and exits with status 3;
- ``garbage``: reads a request and answers with bytes that are not a reply frame.
"""

from __future__ import annotations

import os
import sys
import time

from scorer.reports.render_pool import read_frame


def main(mode: str) -> int:
    if read_frame(sys.stdin.buffer) is None:
        return 0
    if mode == "hang":
        while True:
            time.sleep(60)
    if mode == "crash":
        print("fake worker crashed on purpose", file=sys.stderr, flush=True)
        os._exit(3)
    sys.stdout.buffer.write(b"this is not a reply frame")
    sys.stdout.buffer.flush()
    time.sleep(60)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
