"""The bounds of one evening, in one place (issue 23, item 7: "whatever the app can make,
it can read back").

The app refuses, as it is recorded, what would take an evening past these bounds (the
hand after :data:`MAX_HANDS`, the change of seats after :data:`MAX_SEAT_CHANGES`, the
newcomer after :data:`MAX_PLAYERS`), so every evening it holds exports to a file that its
own import and ``nap settle`` read back. The file's schema (``maxItems``), the reader
(:func:`scorer.evening.file.loads`), the web app's upload limit on the import routes,
waitress's ``max_request_body_size`` (:mod:`scorer.cli.serve`) and nginx's
``client_max_body_size`` for the import routes (``deploy/nginx.conf``) all follow these.
"""

from __future__ import annotations

import json
import re
from itertools import accumulate

#: Hands in one evening (a long club night is 200; 2,000 is ten such nights in a row).
MAX_HANDS = 2000
#: Joins, leaves and renames in one evening, all told.
MAX_SEAT_CHANGES = 500
#: Players one evening names: those at the first deal and every newcomer (at most six of
#: them are seated at once, by the variant's rule).
MAX_PLAYERS = 20
#: The largest evening file, in bytes of UTF-8 JSON (32 MiB): 2,000 hands with every field
#: (claims, a record of play, a 500-character override reason) at about 8 KB each fit.
MAX_FILE_BYTES = 32 * 1024 * 1024
#: The deepest nesting of arrays and objects an evening file may have (the schema's deepest
#: value, a trick of a record of play, is 6 deep). The reader refuses a deeper file before
#: parsing it: 100,000-deep brackets overflowed the phone's stack (Pyodide, in JavaScript's
#: own stack) where the server's parser raised RecursionError, so both now say the same.
MAX_NESTING = 64
#: What the upload of a file may add to it: the multipart form or the JSON command around it.
ENVELOPE_BYTES = 64 * 1024
#: The largest request body of an import route (the file and its envelope).
MAX_IMPORT_BODY = MAX_FILE_BYTES + ENVELOPE_BYTES
#: The largest request body of every other route (1 MiB: a form or a JSON command).
MAX_BODY = 1024 * 1024


def mebibytes(size: int) -> int:
    """``size`` bytes in whole MiB, rounded down (33,619,968, the import routes' body, → 32:
    the envelope is not the file's to count)."""
    return size // (1024 * 1024)

#: The longest note on a hand or on the evening, in characters (issue 25 item 7).
NOTE_LIMIT = 280

_STRINGS = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"')
_NOT_BRACKETS = re.compile(r"[^\[\]{}]+")


def nesting(text: str | bytes) -> int:
    """How deep ``text``'s arrays and objects nest (brackets inside strings do not count), read
    before parsing; 0 for text that cannot be that deep or does not decode (the parser then
    refuses it). Raises nothing."""
    if isinstance(text, bytes):
        try:
            text = text.decode(json.detect_encoding(text), "surrogatepass")
        except (UnicodeDecodeError, LookupError):
            return 0
    if text.count("[") + text.count("{") <= MAX_NESTING:
        return 0  # cannot be too deep
    brackets = _NOT_BRACKETS.sub("", _STRINGS.sub("", text))
    return max(accumulate(1 if c in "[{" else -1 for c in brackets), default=0)


def check_nesting(text: str | bytes) -> None:
    """Raises ``ValueError("arrays and objects nested more than 64 deep")`` when ``text``
    nests deeper than :data:`MAX_NESTING` (see :func:`nesting`)."""
    if nesting(text) > MAX_NESTING:
        raise ValueError(f"arrays and objects nested more than {MAX_NESTING} deep")
