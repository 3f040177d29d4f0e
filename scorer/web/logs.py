"""Logging, configured in one place: one logger, ``scorer``, and a request id per request.

Every request gets an id: the incoming ``X-Request-Id`` when it is short and safe
(letters, digits, ``.``, ``_``, ``-``; at most 64), else a new random one; it is sent
back in the response's ``X-Request-Id`` header. Each log record carries the id
(``request_id``) and the table's key (``table``, the ``key`` view argument, ``-``
when there is none). Logged: every write (a request other than GET, HEAD, OPTIONS)
with its endpoint and status, at INFO, or WARNING when it is refused (4xx); and every
server error with its traceback, at ERROR.

Nothing from a request can start a line of its own or forge one (issue 21, item 16): the
formatter (:class:`SafeFormatter`) writes every control character of a record's line (the
table's key comes from the URL, where ``%0d%0a`` is a CR LF) as ``\\xNN`` (C0, DEL and
C1) or ``\\uNNNN`` (the Unicode line and paragraph separators). A traceback keeps its
own line breaks; its other control characters are escaped the same way.
"""

from __future__ import annotations

import logging
import re
import secrets
from typing import Any

from flask import Flask, Response, g, got_request_exception, has_request_context, request

log = logging.getLogger("scorer")

FORMAT = "%(asctime)s %(levelname)s [req %(request_id)s] [table %(table)s] %(message)s"
_SAFE_ID = re.compile(r"[A-Za-z0-9._-]{1,64}")
_READS = frozenset({"GET", "HEAD", "OPTIONS"})
#: C0 controls (CR, LF, TAB, ESC, …), DEL, C1 controls (NEL, CSI, …), U+2028 and U+2029.
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")
_CONTROL_BUT_LF = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029]")


def _escaped(match: re.Match[str]) -> str:
    code = ord(match[0])
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def escape_controls(text: str, keep_newlines: bool = False) -> str:
    """``text`` with each control character written out: ``"a\\r\\nb"`` → ``"a\\\\x0d\\\\x0ab"``
    (``\\x0d\\x0a`` as four-character texts); with ``keep_newlines`` a LF is left as it is."""
    return (_CONTROL_BUT_LF if keep_newlines else _CONTROL).sub(_escaped, text)


class SafeFormatter(logging.Formatter):
    """:class:`logging.Formatter` whose record line is one line, whatever a request put in it."""

    def formatMessage(self, record: logging.LogRecord) -> str:  # noqa: N802 - logging's name
        return escape_controls(super().formatMessage(record))

    def formatException(self, ei: Any) -> str:  # noqa: N802 - logging's name
        return escape_controls(super().formatException(ei), keep_newlines=True)

    def formatStack(self, stack_info: str) -> str:  # noqa: N802 - logging's name
        return escape_controls(super().formatStack(stack_info), keep_newlines=True)


def request_id() -> str:
    """This request's id (``-`` outside a request)."""
    if not has_request_context():
        return "-"
    rid = g.get("request_id")
    if rid is None:
        incoming = request.headers.get("X-Request-Id", "")
        rid = g.request_id = incoming if _SAFE_ID.fullmatch(incoming) else secrets.token_hex(16)
    return rid


def table_key() -> str:
    """The table's key of this request (the ``key`` view argument), or ``-``."""
    if not has_request_context():
        return "-"
    key = (request.view_args or {}).get("key")
    return key if isinstance(key, str) and key else "-"


class _RequestContext(logging.Filter):
    """Puts ``request_id`` and ``table`` on every record of the ``scorer`` logger."""

    def filter(self, record: logging.LogRecord) -> bool:
        if not hasattr(record, "request_id"):
            record.request_id = request_id()
        if not hasattr(record, "table"):
            record.table = table_key()
        return True


def _configure() -> None:
    # the filter sits on the handler, not the logger: records of child loggers (Flask's
    # ``scorer.web.app``) reach this handler too and need the request id and table
    if not any(getattr(h, "_scorer", False) for h in log.handlers):
        handler = logging.StreamHandler()
        handler.addFilter(_RequestContext())
        handler.setFormatter(SafeFormatter(FORMAT))
        handler._scorer = True  # type: ignore[attr-defined]
        log.addHandler(handler)
    if log.level == logging.NOTSET:
        log.setLevel(logging.INFO)
    # the handler above writes every line once: a root handler added by someone else
    # (Alembic's logging set-up when `nap serve` migrates) must not write it again
    log.propagate = False


def init_app(app: Flask) -> None:
    """Give each request an id, send it back, and log writes, refusals and server errors."""
    _configure()

    @app.before_request
    def assign_request_id() -> None:
        request_id()

    @app.after_request
    def log_write(response: Response) -> Response:
        response.headers["X-Request-Id"] = request_id()
        status = response.status_code
        if status >= 500:
            if not g.get("error_logged"):
                log.error("server error %s %s → %s", request.method, request.endpoint, status)
        elif request.method not in _READS:
            level = logging.WARNING if status >= 400 else logging.INFO
            what = "refused" if status >= 400 else "write"
            log.log(level, "%s %s %s → %s", what, request.method, request.endpoint, status)
        return response

    def log_exception(sender: Any, exception: BaseException, **extra: Any) -> None:
        if has_request_context():
            g.error_logged = True
        log.error("server error %s %s: %s", request.method if has_request_context() else "-",
                  request.endpoint if has_request_context() else "-", type(exception).__name__,
                  exc_info=(type(exception), exception, exception.__traceback__))

    got_request_exception.connect(log_exception, app, weak=False)
