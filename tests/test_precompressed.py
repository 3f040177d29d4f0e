"""Pyodide's files are sent compressed (issue 24): scripts/setup compresses them once
(scorer/web/precompressed.py, NAME.br and NAME.gz beside each), and the app's static view sends
the copy the phone accepts, with its Content-Encoding, the file's own type and Vary."""

from __future__ import annotations

import gzip
import os
from pathlib import Path
from typing import Any

import brotli
import pytest

from scorer.web import precompressed

ROOT = Path(__file__).resolve().parent.parent
PYODIDE = ROOT / "static" / "vendor" / "pyodide"


def test_setup_writes_each_copy_once_and_again_when_the_file_changes(tmp_path: Path) -> None:
    text = b"export const x = 1;\n" * 500
    (tmp_path / "pyodide.mjs").write_bytes(text)
    (tmp_path / "other.js").write_bytes(text)  # not one of Pyodide's files: left alone
    written = precompressed.write(tmp_path)
    assert sorted(p.name for p in written) == ["pyodide.mjs.br", "pyodide.mjs.gz"]
    assert brotli.decompress((tmp_path / "pyodide.mjs.br").read_bytes()) == text
    assert gzip.decompress((tmp_path / "pyodide.mjs.gz").read_bytes()) == text
    assert len((tmp_path / "pyodide.mjs.gz").read_bytes()) < len(text) // 10
    assert precompressed.write(tmp_path) == []  # nothing changed: nothing made again
    later = (tmp_path / "pyodide.mjs.gz").stat().st_mtime_ns + 10**9
    (tmp_path / "pyodide.mjs").write_bytes(b"export const y = 2;\n")
    os.utime(tmp_path / "pyodide.mjs", ns=(later, later))
    assert sorted(p.name for p in precompressed.write(tmp_path)) == ["pyodide.mjs.br", "pyodide.mjs.gz"]
    assert gzip.decompress((tmp_path / "pyodide.mjs.gz").read_bytes()) == b"export const y = 2;\n"


@pytest.mark.parametrize(("accept", "coding"), [("gzip, deflate, br", "br"), ("gzip", "gzip"), ("br;q=0, gzip", "gzip"),
                                                ("identity", None), ("", None), ("*", "br")])
def test_the_static_view_sends_the_copy_the_phone_accepts(app: Any, accept: str, coding: str | None) -> None:
    if not (PYODIDE / "pyodide.asm.wasm.br").is_file() or not (PYODIDE / "pyodide.asm.wasm.gz").is_file():
        pytest.skip("Pyodide's compressed copies are not there (./scripts/setup makes them)")
    client = app.test_client()
    for name, kind in (("pyodide.asm.wasm", "application/wasm"), ("pyodide.asm.mjs", "text/javascript"),
                       ("pyodide-lock.json", "application/json")):
        answer = client.get(f"/static/vendor/pyodide/{name}", headers={"Accept-Encoding": accept})
        assert answer.status_code == 200
        assert answer.mimetype == kind, name
        original = (PYODIDE / name).read_bytes()
        body = answer.get_data()
        answer.close()  # the copy's file, opened by send_file
        assert answer.headers.get("Content-Encoding") == coding, name
        if coding == "br":
            assert body == (PYODIDE / f"{name}.br").read_bytes() and brotli.decompress(body) == original
        elif coding == "gzip":
            assert body == (PYODIDE / f"{name}.gz").read_bytes() and gzip.decompress(body) == original
        else:
            assert body == original
        if coding:
            assert "Accept-Encoding" in answer.headers["Vary"] and answer.headers["Cache-Control"] == "no-cache"
