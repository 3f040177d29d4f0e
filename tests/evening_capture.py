"""A pytest plugin that keeps every evening file the tests give the reader, for the parity test.

``NAP_CAPTURE_DIR=DIR pytest -p tests.evening_capture tests/test_x.py`` runs the tests as usual and
writes each text given to :func:`scorer.evening.file.loads`, and each value given to
:func:`~scorer.evening.file.load` (as JSON), to ``DIR/<sha256>.json`` (the same file once).
tests/test_engine_parity.py then settles each of them with CPython and with Pyodide.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

import pytest


def _keep(out: Path, data: bytes) -> None:
    (out / f"{hashlib.sha256(data).hexdigest()}.json").write_bytes(data)


def pytest_configure(config: pytest.Config) -> None:
    out = Path(os.environ["NAP_CAPTURE_DIR"])
    out.mkdir(parents=True, exist_ok=True)
    from scorer.evening import file

    real_load, real_loads = file.load, file.loads

    def loads(text: str | bytes, **options: Any) -> Any:
        _keep(out, text if isinstance(text, bytes) else text.encode("utf-8", "surrogatepass"))
        return real_loads(text, **options)

    def load(data: Any, **options: Any) -> Any:
        try:
            _keep(out, json.dumps(data, ensure_ascii=False).encode("utf-8", "surrogatepass"))
        except (TypeError, ValueError, RecursionError):
            pass  # not JSON (a test's Python-only value): no file can hold it
        return real_load(data, **options)

    file.loads, file.load = loads, load
