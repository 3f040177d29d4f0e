"""Long evenings round-trip (issue 23, item 7): whatever the app can make, it can read back.

An evening past 500 hands exported a file that the app's own import and ``nap settle``
refused (the import cap was 500 hands). The bounds are now one place,
:mod:`scorer.evening.limits` (2,000 hands, 500 changes of seats, 20 players, 32 MiB files),
the app refuses hand 2,001 as it is recorded, and only the import routes take large bodies.
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from scorer.cli.main import main
from scorer.evening.file import dumps, load, schema
from scorer.evening.ledger import settle_evening
from scorer.evening.limits import MAX_FILE_BYTES, MAX_HANDS, MAX_IMPORT_BODY, MAX_PLAYERS, MAX_SEAT_CHANGES
from tests.long_evenings import long_evening
from tests.webhelpers import counts, post_hand, start_evening


def _import(client: Any, body: bytes) -> Any:
    """Post ``body`` as the Import page's file. The multipart body is built here: werkzeug's
    test client leaves its own temporary file of a large upload unclosed."""
    boundary = "nap-long-evening"
    data = (f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="evening.json"\r\n'
            f"Content-Type: application/json\r\n\r\n").encode() + body + f"\r\n--{boundary}--\r\n".encode()
    return client.post("/import", input_stream=io.BytesIO(data), content_length=len(data),
                       content_type=f"multipart/form-data; boundary={boundary}")


def _settled(path: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    status = main(["settle", "--json", str(path)])
    out = capsys.readouterr().out
    assert status == 0, out
    return json.loads(out)


def test_a_2000_hand_evening_round_trips(client: Any, app: Any, tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    """2,000 random legal hands: imported, exported, imported again (web form and JSON
    command), and ``nap settle`` of the export gives the engine's totals."""
    evening = long_evening(MAX_HANDS)
    ledger = settle_evening(evening.setup, evening.hands)
    expected = dict(zip(evening.setup.players, ledger.totals, strict=True))
    assert len(set(expected.values())) > 1  # a real evening, not all zeros

    response = _import(client, dumps(evening).encode())
    assert response.status_code == 302, response.get_data(as_text=True)[:2000]
    key = response.headers["Location"].rsplit("/", 1)[-1]
    exported = client.get(f"/e/{key}/evening.json").data
    assert len(json.loads(exported)["hands"]) == MAX_HANDS

    path = tmp_path / "long.json"
    path.write_bytes(exported)
    report = _settled(path, capsys)
    assert len(report["hands"]) == MAX_HANDS
    assert report["totals"] == expected

    again = _import(client, exported)  # the app's own export, read back by its own import
    assert again.status_code == 302
    second = again.headers["Location"].rsplit("/", 1)[-1]
    assert json.loads(client.get(f"/e/{second}/evening.json").data)["hands"] == json.loads(exported)["hands"]

    answer = client.post("/api/evenings/import", json={"evening": json.loads(exported), "token": "long-1"})
    assert answer.status_code in (200, 201), answer.get_data(as_text=True)[:500]
    assert counts(app)[:2] == (3, 3 * MAX_HANDS)


def test_hand_2001_is_refused_in_words(client: Any, app: Any) -> None:
    """The app never makes what it cannot read back: the hand after the 2,000th is refused
    as it is recorded, and nothing is saved."""
    response = _import(client, dumps(long_evening(MAX_HANDS, seed=5)).encode())
    key = response.headers["Location"].rsplit("/", 1)[-1]
    refused = post_hand(client, key, MAX_HANDS + 1, 0, {}, misdeal=True)
    text = refused.get_data(as_text=True)
    assert refused.status_code == 422
    assert "An evening holds at most 2000 hands, and this one has them all: nothing was saved." in text
    assert counts(app)[1] == MAX_HANDS
    ru = post_hand(client, key, MAX_HANDS + 1, 0, {}, misdeal=True)
    assert ru.status_code == 422


def test_the_changes_of_seats_and_the_players_are_bounded_as_they_are_made(client: Any, app: Any,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """The 501st change of seats and the 21st player are refused when recorded (here with
    the bounds lowered, so the test stays short), in words, and nothing is saved."""
    from scorer.storage import seat_writes

    key = start_evening(client, "hoyle", players=("Ann", "Bob", "Cat"))
    monkeypatch.setattr(seat_writes, "MAX_PLAYERS", 4)
    joined = client.post(f"/e/{key}/seats", data={"action": "join", "name": "Dan", "left_of": "0"})
    assert joined.status_code == 302
    refused = client.post(f"/e/{key}/seats", data={"action": "join", "name": "Eve", "left_of": "0"})
    assert refused.status_code == 422 and "An evening names at most 4 players" in refused.get_data(as_text=True)
    monkeypatch.setattr(seat_writes, "MAX_SEAT_CHANGES", 1)
    refused = client.post(f"/e/{key}/seats", data={"action": "leave", "seat": "3", "confirm": "1"})
    assert refused.status_code == 422
    assert "An evening holds at most 1 changes of seats" in refused.get_data(as_text=True)


def test_the_schema_and_the_reader_follow_the_limits() -> None:
    """One place for the bounds: the published schema says what the reader checks."""
    published = json.loads((Path(__file__).resolve().parent.parent / "scorer" / "schema" /
                            "evening.schema.json").read_text("utf-8"))
    for field, bound in (("hands", MAX_HANDS), ("seats", MAX_SEAT_CHANGES)):
        assert published["properties"][field]["maxItems"] == bound == schema()["properties"][field]["maxItems"]
    joins = [{"before_hand": 1, "join": f"N{i}", "left_of": "P0"} for i in range(MAX_PLAYERS - 1)]
    too_many = {"format": "nap-evening", "version": 2, "variant": "hoyle", "players": ["P0", "P1"],
                "seats": joins, "hands": []}
    with pytest.raises(ValueError, match="An evening names at most 20 players"):
        load(too_many)


def test_a_file_over_the_bound_is_refused_and_nothing_saved(client: Any, app: Any) -> None:
    """A file of 32 MiB and one byte: the engine refuses it in words (422); a body larger
    than the import routes take: 413, a page or JSON saying the bound; any other route
    keeps its 1 MiB."""
    refused = _import(client, b" " * (MAX_FILE_BYTES + 1))
    assert refused.status_code == 422
    assert (f"An evening file is at most 32 MB ({MAX_FILE_BYTES} bytes); this one has {MAX_FILE_BYTES + 1} bytes."
            in refused.get_data(as_text=True))

    huge = b" " * (MAX_IMPORT_BODY + 1)
    page = _import(client, huge)
    assert page.status_code == 413 and "That file is too large (at most 32 MB)." in page.get_data(as_text=True)
    answer = client.post("/api/evenings/import", data=huge, content_type="application/json")
    assert answer.status_code == 413
    assert answer.get_json()["error"] == {"code": "too_large", "message": "That file is too large (at most 32 MB)."}

    other = client.post("/new/hoyle", data={"players-0": "x" * (2 * 1024 * 1024)})
    assert other.status_code == 413 and "at most 1 MB" in other.get_data(as_text=True)
    assert counts(app) == (0, 0, 0)


def test_the_servers_in_front_let_the_import_routes_bodies_through_and_no_more() -> None:
    """waitress's ``max_request_body_size`` and nginx's ``client_max_body_size`` for the import
    routes follow the bound (one place: scorer/evening/limits.py); other routes keep 2m."""
    import re

    from scorer.cli.serve import SERVER_LIMITS
    from scorer.web.bodies import IMPORT_ENDPOINTS

    assert SERVER_LIMITS["max_request_body_size"] == MAX_IMPORT_BODY
    conf = (Path(__file__).resolve().parent.parent / "deploy" / "nginx.conf").read_text("utf-8")
    block = re.search(r"location ~ \^/\(import\|api/evenings/import\|verify\|api/verify\)\$ \{(.*?)\n    \}", conf,
                      re.S)
    assert block is not None
    size = re.search(r"client_max_body_size (\d+)m;", block.group(1))
    assert size is not None and MAX_IMPORT_BODY <= int(size.group(1)) * 1024 * 1024 < MAX_IMPORT_BODY + 1024 * 1024
    assert "client_max_body_size 2m;" in re.sub(r"#.*", "", conf).split("location")[0]
    # the import routes, and the Verify page and POST /api/verify, which read a file as large (issue 22)
    assert IMPORT_ENDPOINTS == {"start.import_evening", "api_evenings.import_evening", "verify.page",
                                "api_verify.verify_json"}
