"""Import and settle of a long evening's file (issue 23, item 7); prints figures, asserts nothing.

Evenings of 100, 500 and 2,000 random legal hands (``tests/long_evenings.py``, made with
the engine): for each, the file's size, the app's Import (``POST /import``, the file read,
ruled on and saved on SQLite, through Flask's test client), the export of that evening
(``GET /e/<key>/evening.json``) and ``nap settle --json`` of the export, each the median of
``--repeat`` rounds, and its ratio to the 100-hand figure measured in the same run. A
file the app refuses is reported as refused, with the app's words (before this item: the
2,000-hand file, "An evening file holds at most 500 hands").

Run: ``.venv/bin/python benchmarks/long_file.py [--repeat 5] [--hands 100 500 2000]``.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import re
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from scorer.cli.main import main as nap  # noqa: E402
from scorer.evening.file import dumps  # noqa: E402
from tests.long_evenings import long_evening  # noqa: E402


def timed(fn: Callable[[], object], repeat: int) -> float:
    """Median seconds of ``repeat`` calls (after one warm-up call)."""
    fn()
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def upload(client: object, body: bytes) -> object:
    boundary = "nap-bench"
    data = (f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="e.json"\r\n'
            "Content-Type: application/json\r\n\r\n").encode() + body + f"\r\n--{boundary}--\r\n".encode()
    return client.post("/import", input_stream=io.BytesIO(data), content_length=len(data),  # type: ignore[attr-defined]
                       content_type=f"multipart/form-data; boundary={boundary}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--hands", type=int, nargs="+", default=[100, 500, 2000])
    args = parser.parse_args()

    from flask_migrate import upgrade

    from scorer import create_app

    with tempfile.TemporaryDirectory() as tmp:
        app = create_app({"SQLALCHEMY_DATABASE_URI": f"sqlite:///{tmp}/bench.sqlite3", "SECRET_KEY": "bench",
                          "WTF_CSRF_ENABLED": False})
        with app.app_context():
            upgrade()
        client = app.test_client()
        base: dict[str, float] = {}
        print(f"{'hands':>6} {'file':>9} {'import':>16} {'export':>16} {'nap settle':>16}")
        for hands in args.hands:
            body = dumps(long_evening(hands)).encode()
            first = upload(client, body)
            if first.status_code != 302:  # type: ignore[attr-defined]
                words = re.search(r"An evening file[^<]*|hands:[^<]*", first.get_data(as_text=True))  # type: ignore[attr-defined]
                print(f"{hands:>6} {len(body):>8}B refused ({first.status_code}): "  # type: ignore[attr-defined]
                      f"{words.group(0) if words else '?'}")
                continue
            key = first.headers["Location"].rsplit("/", 1)[-1]  # type: ignore[attr-defined]
            exported = client.get(f"/e/{key}/evening.json").data
            path = Path(tmp) / f"e{hands}.json"
            path.write_bytes(exported)

            def settle(path: Path = path) -> None:
                with contextlib.redirect_stdout(io.StringIO()):
                    assert nap(["settle", "--json", str(path)]) == 0

            figures = {
                "import": timed(lambda body=body: upload(client, body), args.repeat),
                "export": timed(lambda key=key: client.get(f"/e/{key}/evening.json"), args.repeat),
                "settle": timed(settle, args.repeat),
            }
            if not base:
                base = dict(figures)
            cells = [f"{figures[k] * 1000:8.1f} ms {figures[k] / base[k]:4.1f}×" for k in figures]
            print(f"{hands:>6} {len(body):>8}B " + " ".join(cells))
        print("(× = against the first row, measured in the same run)")


if __name__ == "__main__":
    main()
