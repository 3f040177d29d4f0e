"""Pyodide's files sent compressed (issue 24, "What a scorer's phone downloads").

Pyodide's runtime (``static/vendor/pyodide/``, put there by ``scripts/setup``) is 13 MB as npm
ships it; its WebAssembly and standard library compress to about a third. They are compressed
once, at setup (``python -m scorer.web.precompressed static/vendor/pyodide``), next to each file:
``NAME.br`` (brotli, quality 11; quality 9 for a file over 4 MB, whose quality 11 takes two
minutes for 12 % less) and ``NAME.gz`` (gzip -9). The app's static view sends the one the phone
accepts (brotli first) with its ``Content-Encoding`` and ``Vary: Accept-Encoding``
(:func:`answer`); deploy/nginx.conf sends them from the disk with ``gzip_static``. A copy older
than its file is never sent (the file as it is then).
"""

from __future__ import annotations

import gzip
import mimetypes
import sys
from pathlib import Path

from flask import Response, current_app, request, send_file

from . import compression

#: the folder under static/ and the files in it sent precompressed
FOLDER = "vendor/pyodide/"
FILES = ("pyodide.asm.wasm", "python_stdlib.zip", "pyodide.asm.mjs", "pyodide.mjs", "pyodide-lock.json")
#: each coding and the suffix of its copy, in the order the app prefers them
CODINGS = (("br", ".br"), ("gzip", ".gz"))
BIG = 4 * 1024 * 1024
mimetypes.add_type("text/javascript", ".mjs")
mimetypes.add_type("application/wasm", ".wasm")


def _brotli(data: bytes) -> bytes:
    import brotli  # installed with Flask-Compress

    return brotli.compress(data, quality=9 if len(data) > BIG else 11)


def write(folder: Path) -> list[Path]:
    """Write the compressed copies of :data:`FILES` in ``folder`` that are missing or older than
    their file; the copies written."""
    written = []
    for name in FILES:
        source = folder / name
        if not source.is_file():
            continue
        data = None
        for coding, suffix in CODINGS:
            target = folder / (name + suffix)
            if target.is_file() and target.stat().st_mtime_ns >= source.stat().st_mtime_ns:
                continue
            data = data if data is not None else source.read_bytes()
            packed = _brotli(data) if coding == "br" else gzip.compress(data, compresslevel=9, mtime=0)
            target.write_bytes(packed)
            written.append(target)
    return written


def answer(filename: str) -> Response | None:
    """The compressed copy of static/``filename`` the phone accepts, sent with its encoding; None
    when there is none to send (another file, a phone that accepts neither, no fresh copy)."""
    if not filename.startswith(FOLDER) or filename[len(FOLDER):] not in FILES:
        return None
    folder = Path(current_app.static_folder or "static")
    source = folder / filename
    accepted = request.headers.get("Accept-Encoding", "")
    if not source.is_file():
        return None
    for coding, suffix in CODINGS:
        copy = source.with_name(source.name + suffix)
        if not _accepts(accepted, coding) or not copy.is_file() \
                or copy.stat().st_mtime_ns < source.stat().st_mtime_ns:
            continue
        response = send_file(copy, mimetype=mimetypes.guess_type(source.name)[0] or "application/octet-stream",
                             conditional=True, etag=True, max_age=None)
        response.headers["Content-Encoding"] = coding
        response.headers["Cache-Control"] = "no-cache"
        response.vary.add("Accept-Encoding")
        return response
    return None


def _accepts(accept_encoding: str, coding: str) -> bool:
    """Whether ``Accept-Encoding`` takes ``coding``: named (or ``*``) with a q above 0."""
    codings = compression.offered(accept_encoding)
    return codings.get(coding, codings.get("*", 0.0)) > 0


if __name__ == "__main__":  # pragma: no cover - scripts/setup
    if len(sys.argv) != 2:
        raise SystemExit("usage: python -m scorer.web.precompressed static/vendor/pyodide")
    for path in write(Path(sys.argv[1])):
        print(f"setup: compressed {path}")
