"""``nap settle`` prints the hand-by-hand entries and totals, as text or JSON."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from scorer.cli.main import main

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def test_text(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["settle", str(EXAMPLES / "hoyle-five.json")]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert any(line.startswith("Totals") and "+70" in line and "-125" in line for line in lines)
    assert any(line.startswith("Money") and "£3.50" in line and "−£6.25" in line for line in lines)
    assert "Winner: Alice" in out
    hand7 = next(line for line in lines if line.strip().startswith("7 "))
    assert "Blücher" in hand7 and "-80" in hand7 and "H-11" in hand7


def test_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["settle", "--json", str(EXAMPLES / "pagat-thursday.json")]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["totals"] == {"Ann": 29, "Bob": 9, "Cat": -19, "Dan": -19}
    assert report["winners"] == ["Ann"] and report["hands_remaining"] == 7
    assert report["still_to_deal"] == {"Bob": 2, "Cat": 1, "Dan": 2}  # examples/README.md, P-14
    hand3 = report["hands"][2]
    assert hand3["contract"] == "wellington" and hand3["entries"]["Bob"] == 30
    assert hand3["rules"] == ["P-7", "P-6", "P-12"]
    assert report["hands"][5]["result"] == "misdeal" and report["hands"][5]["rules"] == ["P-16"]


def test_an_evening_with_changes_of_seats(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # docs/evening-format.md's version-2 example, worked out there (P-6, P-12, P-13): Eve
    # joins on Bob's left before hand 2, Cat leaves before hand 3. Before this was mended
    # `nap settle` settled the file without its seat changes and stopped at hand 2.
    file = tmp_path / "seats.json"
    file.write_text(json.dumps({
        "format": "nap-evening", "version": 2, "variant": "pagat", "players": ["Ann", "Bob", "Cat", "Dan"],
        "seats": [{"before_hand": 2, "join": "Eve", "left_of": "Bob"}, {"before_hand": 3, "leave": "Cat"}],
        "hands": [{"auction": ["pass", "four", "pass", "pass"], "tricks": 4},
                  {"auction": ["nap", "pass", "pass", "pass", "pass"], "tricks": 5},
                  {"auction": ["three", "pass", "pass", "pass"], "tricks": 2}]}))
    assert main(["settle", "--json", str(file)]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["totals"] == {"Ann": -6, "Bob": -6, "Cat": 7, "Dan": -18, "Eve": 23}
    assert report["hands"][1]["entries"] == {"Ann": -5, "Bob": -5, "Cat": -5, "Dan": -5, "Eve": 20}
    assert main(["settle", str(file)]) == 0
    assert "Eve" in capsys.readouterr().out


def test_bad_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "nap-evening", "version": 1, "variant": "pagat", "players": ["A","B","C"], '
                   '"hands": [{"auction": ["two","pass","pass"], "tricks": 2}]}')
    assert main(["settle", str(bad)]) == 2
    assert "P-15" in capsys.readouterr().err
    assert main(["settle", str(tmp_path / "missing.json")]) == 2


def test_limits_are_refused_in_words(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Seven players cite the variant's rule and range; 2001 hands and an over-size file
    say the limit (docs/evening-format.md, "Limits")."""
    def settle(data: dict[str, object] | bytes) -> str:
        path = tmp_path / "e.json"
        path.write_bytes(data if isinstance(data, bytes) else json.dumps(data).encode())
        assert main(["settle", str(path)]) == 2
        return capsys.readouterr().err

    base = {"format": "nap-evening", "version": 1, "variant": "russian36", "players": list("ABCDEFG"), "hands": []}
    assert "players: Napoleon" in settle(base) and "is for 2 to 6 players, not 7. (R-1)" in settle(base)
    many = {**base, "variant": "pagat", "players": ["Ada", "Bea", "Cy"], "hands": [{"auction": ["pass"] * 3}] * 2001}
    assert "hands: An evening file holds at most 2000 hands; this one has 2001." in settle(many)
    assert "at most 32 MB (33554432 bytes); this one has 33554433 bytes" in settle(b" " * (32 * 1024 * 1024 + 1))


def test_console_entry_point_runs_without_flask() -> None:
    path = str(EXAMPLES / "pagat-thursday.json")
    code = (
        f"import sys, runpy; sys.argv=['nap','settle',{path!r}]; "
        "sys.modules['flask']=None; runpy.run_module('scorer', run_name='__main__')"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr
    assert "Winner: Ann" in result.stdout


def test_the_demo_evening_is_offered_on_the_home_page(app: Any) -> None:
    runner = app.test_cli_runner()
    result = runner.invoke(args=["demo"])
    assert "Loaded the demo evening" in result.output
    client = app.test_client()
    home = client.get("/").get_data(as_text=True)
    link = re.search(r'href="(/e/[^/"]+/scorer/[^"]+)"', home)
    assert link is not None and "Open the demo evening" in home
    # the link makes this phone a scorer of the demo (it is only a demo)
    assert client.get(link.group(1)).status_code == 302
    key = link.group(1).split("/")[2]
    assert "Record hand" in client.get(f"/e/{key}").get_data(as_text=True)
    assert "Loaded" not in runner.invoke(args=["demo"]).output  # only once
