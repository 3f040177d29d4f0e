"""Logging: one line per write with the table's key and the request id; tracebacks for 500s."""

from __future__ import annotations

import logging
import re
from typing import Any

import pytest

from scorer.web.logs import FORMAT
from scorer.web.permissions import permission
from tests.webhelpers import start_evening

HOYLE = {"opt_lowest_bid": "1", "opt_wellington_blucher": "y", "opt_all_pass": "redeal"}


@pytest.fixture(autouse=True)
def _capture_scorer(caplog: pytest.LogCaptureFixture) -> Any:
    """The ``scorer`` logger does not propagate (its own handler writes each line once):
    caplog listens to it directly."""
    logger = logging.getLogger("scorer")
    logger.addHandler(caplog.handler)
    yield
    logger.removeHandler(caplog.handler)


def _records(caplog: pytest.LogCaptureFixture, rid: str) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.name == "scorer" and getattr(r, "request_id", None) == rid]


def test_a_write_and_a_refused_write_log_one_line_each_with_key_and_request_id(
        app: Any, caplog: pytest.LogCaptureFixture) -> None:
    client = app.test_client()
    key = start_evening(client, "hoyle")
    caplog.set_level(logging.INFO, logger="scorer")
    ok = client.post(f"/e/{key}/settings", data={"name": "Crown", "revision": "0", **HOYLE},
                     headers={"X-Request-Id": "write-1"})
    assert ok.status_code == 302 and ok.headers["X-Request-Id"] == "write-1"
    refused = client.post(f"/e/{key}/settings", data={"name": "x", "revision": "1", "opt_widow": "peep", **HOYLE},
                          headers={"X-Request-Id": "refused-1"})
    assert refused.status_code == 422 and refused.headers["X-Request-Id"] == "refused-1"
    [write] = _records(caplog, "write-1")
    assert (write.levelname, write.table, write.getMessage()) == ("INFO", key, "write POST table.settings → 302")
    [refusal] = _records(caplog, "refused-1")
    assert (refusal.levelname, refusal.table, refusal.getMessage()) == (
        "WARNING", key, "refused POST table.settings → 422")
    # the configured format shows both
    line = logging.Formatter(FORMAT.replace("%(asctime)s ", "")).format(write)
    assert line == f"INFO [req write-1] [table {key}] write POST table.settings → 302"
    client.get(f"/e/{key}", headers={"X-Request-Id": "read-1"})
    assert _records(caplog, "read-1") == []  # reads are not logged


def test_an_unsafe_request_id_is_replaced(client: Any) -> None:
    response = client.get("/", headers={"X-Request-Id": "bad id<script>"})
    assert re.fullmatch(r"[0-9a-f]{32}", response.headers["X-Request-Id"])
    long = client.get("/", headers={"X-Request-Id": "a" * 65})
    assert long.headers["X-Request-Id"] != "a" * 65


def test_a_server_error_logs_its_traceback_with_the_request_id(app: Any, caplog: pytest.LogCaptureFixture) -> None:
    def boom(key: str) -> str:
        raise RuntimeError("boom for the test")

    app.add_url_rule("/e/<key>/boom", "boom", permission("public")(boom), methods=["POST"])
    app.config["PROPAGATE_EXCEPTIONS"] = False  # answer with the 500 page, as in production
    caplog.set_level(logging.INFO, logger="scorer")
    response = app.test_client().post("/e/abc123/boom", headers={"X-Request-Id": "err-1"})
    assert response.status_code == 500 and response.headers["X-Request-Id"] == "err-1"
    [error] = _records(caplog, "err-1")
    assert (error.levelname, error.table) == ("ERROR", "abc123")
    assert error.exc_info is not None and error.exc_info[0] is RuntimeError
    text = logging.Formatter("%(message)s").format(error)
    assert "Traceback (most recent call last)" in text and "RuntimeError: boom for the test" in text


def test_each_write_is_logged_once_whatever_handlers_the_root_logger_has(app: Any) -> None:
    """`nap serve` migrates first, and Alembic's logging set-up gives the root logger a
    handler: every write was then written twice, in two formats."""
    import io

    stream = io.StringIO()
    root_handler = logging.StreamHandler(stream)
    logging.getLogger().addHandler(root_handler)
    try:
        app.test_client().post("/device", data={"device": "x", "next": "/"})
    finally:
        logging.getLogger().removeHandler(root_handler)
    assert "write POST table.device" not in stream.getvalue()


# -- nothing from a request forges a log line (issue 21, item 16) -----------------------


def _scorer_handler() -> logging.Handler:
    [handler] = [h for h in logging.getLogger("scorer").handlers if getattr(h, "_scorer", False)]
    return handler


def test_a_table_key_with_cr_lf_cannot_inject_a_log_line(app: Any) -> None:
    """The table's key comes from the URL: ``%0d%0a`` in it started a forged line."""
    import io

    handler = _scorer_handler()
    stream = io.StringIO()
    old = handler.setStream(stream)  # type: ignore[attr-defined]
    try:
        forged = "abc%0D%0A2026-12-04 20:00:00,000 INFO [req x] [table y] write POST table.settings %E2%80%A8%C2%85z"
        response = app.test_client().post(f"/e/{forged}/finish", headers={"X-Request-Id": "inject-1"})
        assert response.status_code in (403, 404)
    finally:
        handler.setStream(old)  # type: ignore[attr-defined]
    lines = stream.getvalue().splitlines()
    [line] = [line for line in lines if "inject-1" in line]
    assert len(lines) == 1, lines
    assert ("[table abc\\x0d\\x0a2026-12-04 20:00:00,000 INFO [req x] [table y] write POST table.settings "
            "\\u2028\\x85z]") in line
    assert line.endswith(f"refused POST sheet.finish → {response.status_code}")


def test_escape_controls() -> None:
    from scorer.web.logs import escape_controls

    assert escape_controls("a\r\nb\tc\x1b[31m\x7f\x9b\u2028ü€") == "a\\x0d\\x0ab\\x09c\\x1b[31m\\x7f\\x9b\\u2028ü€"
    assert escape_controls("line 1\nline 2\r", keep_newlines=True) == "line 1\nline 2\\x0d"


def test_a_traceback_keeps_its_lines_and_loses_its_other_controls() -> None:
    from scorer.web.logs import SafeFormatter

    try:
        raise RuntimeError("bad\rvalue")
    except RuntimeError:
        import sys

        record = logging.LogRecord("scorer", logging.ERROR, __file__, 1, "oops\n%s", ("x\ny",), sys.exc_info())
    record.request_id, record.table = "r", "t"
    text = SafeFormatter("%(message)s").format(record)
    first, *rest = text.split("\n")
    assert first == "oops\\x0ax\\x0ay"
    assert rest[0] == "Traceback (most recent call last):" and rest[-1] == "RuntimeError: bad\\x0dvalue"
