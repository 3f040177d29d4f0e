"""Parity: the phone's engine (the server's own Python under Pyodide, in Node) settles every evening
exactly as the server's CPython does, byte for byte, and refuses what it refuses with the same rule
ids and words.

One Pyodide for the whole session (``node static/engine/settle.mjs --serve``: file names in, one
JSON line ``[exit status, stdout, stderr]`` out), given a bundle built now from this checkout's
source (:mod:`scorer.web.engine_bundle`). CPython runs :func:`scorer.cli.main.main` in process on
the same path. The evenings: every file in ``examples/``, every evening file the pure tests build
(kept by ``tests/evening_capture.py`` while they run), 200 random evenings from the property tests'
strategy (``tests/test_ledger_properties.py``) and spoiled files.

Needs Node and Pyodide (``./scripts/setup`` installs both); without them it is skipped with a note,
unless ``NAP_REQUIRE_NODE=1`` (as in CI), which makes that a failure.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

from scorer.cli.main import main
from scorer.evening.file import EveningFile, dumps
from scorer.web.engine_bundle import write_bundle
from tests.test_ledger_properties import evenings

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
SETTLE = ROOT / "static" / "engine" / "settle.mjs"
PYODIDE = ROOT / "static" / "vendor" / "pyodide" / "pyodide.mjs"
REQUIRE = os.environ.get("NAP_REQUIRE_NODE") == "1"
#: the pure tests whose evening files are settled on both (none of them starts the web app)
PURE_TESTS = ("test_evening_file.py", "test_examples.py", "test_settle_up.py", "test_codec.py", "test_cli.py")

Answer = tuple[int, str, str]


def cpython(path: Path) -> Answer:
    """``nap settle --json path`` run by this CPython: (exit status, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(["settle", "--json", str(path)])
    return status, out.getvalue(), err.getvalue()


class Phone:
    """One Pyodide in Node running the phone's engine on files, one at a time."""

    def __init__(self, bundle: Path, log: Path) -> None:
        self.log = log.open("w")
        env = {**os.environ, "NAP_ENGINE_BUNDLE": str(bundle)}
        self.process = subprocess.Popen(["node", str(SETTLE), "--serve"], stdin=subprocess.PIPE,  # noqa: S607
                                        stdout=subprocess.PIPE, stderr=self.log, text=True, encoding="utf-8",
                                        env=env, cwd=ROOT)

    def settle(self, path: Path) -> Answer:
        assert self.process.stdin and self.process.stdout
        self.process.stdin.write(f"{path}\n")
        self.process.stdin.flush()
        line = self.process.stdout.readline()
        if not line:
            self.log.flush()
            pytest.fail(f"Pyodide stopped on {path}: {Path(self.log.name).read_text()[-2000:]}")
        status, out, err = json.loads(line)
        return status, out, err

    def provisional(self, path: Path, waiting: list, lang: str = "en") -> str:
        """static/engine/worker.js's answer (JSON text) for the evening ``path`` and ``waiting`` hands
        (a refusal's words in ``lang``)."""
        assert self.process.stdin and self.process.stdout
        self.process.stdin.write(json.dumps([str(path), waiting, lang]) + "\n")
        self.process.stdin.flush()
        line = self.process.stdout.readline()
        if not line:
            self.log.flush()
            pytest.fail(f"Pyodide stopped on {path}: {Path(self.log.name).read_text()[-2000:]}")
        return json.loads(line)

    def close(self) -> None:
        if self.process.stdin:
            self.process.stdin.close()
        self.process.wait(timeout=60)
        if self.process.stdout:
            self.process.stdout.close()
        self.log.close()


def _missing() -> str | None:
    if shutil.which("node") is None:
        return "node is not installed (./scripts/setup installs it)"
    if not PYODIDE.is_file():
        return f"Pyodide is not under {PYODIDE.parent} (./scripts/setup copies it there)"
    return None


@pytest.fixture(scope="session")
def phone(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Phone]:
    problem = _missing()
    if problem:
        if REQUIRE:
            pytest.fail(f"{problem} and NAP_REQUIRE_NODE=1")
        pytest.skip(f"the phone engine's parity test needs Node and Pyodide: {problem}")
    where = tmp_path_factory.mktemp("phone")
    bundle = where / "nap-engine.zip"
    write_bundle(bundle)  # from this checkout's source, never the copy setup left
    engine = Phone(bundle, where / "node.log")
    yield engine
    engine.close()


def same_on_both(phone: Phone, paths: list[Path]) -> list[Answer]:
    """Settle each of ``paths`` on both; every difference is named. Answers CPython's answers."""
    answers, differences = [], []
    for path in paths:
        server, on_phone = cpython(path), phone.settle(path)
        if server != on_phone:
            differences.append(f"{path.name}: server {server!r:.600} / phone {on_phone!r:.600}")
        answers.append(server)
    assert not differences, "\n".join(differences[:5])
    return answers


def test_every_example_settles_the_same(phone: Phone) -> None:
    paths = sorted(EXAMPLES.glob("*.json"))
    answers = same_on_both(phone, paths)
    by_name = dict(zip((p.name for p in paths), answers))
    status, out, err = by_name["pagat-thursday.json"]
    assert status == 0 and err == ""
    assert json.loads(out)["totals"] == {"Ann": 29, "Bob": 9, "Cat": -19, "Dan": -19}  # examples/README.md
    # the .expected.json files are reports, not evenings: refused alike, in the same words
    status, out, err = by_name["pagat-thursday.expected.json"]
    assert status == 2 and out == "" and "'format' is a required property" in err
    assert sum(a[0] == 0 for a in answers) == len(paths) // 2


def test_every_evening_file_the_pure_tests_build_settles_the_same(phone: Phone, tmp_path: Path) -> None:
    kept = tmp_path / "kept"
    run = subprocess.run(  # noqa: S603
        [sys.executable, "-m", "pytest", "-q", "-p", "tests.evening_capture", "-p", "no:cacheprovider",
         *(str(ROOT / "tests" / name) for name in PURE_TESTS)],
        cwd=ROOT, env={**os.environ, "NAP_CAPTURE_DIR": str(kept)}, capture_output=True, text=True, check=False)
    assert run.returncode == 0, run.stdout[-3000:]
    paths = sorted(kept.glob("*.json"))
    answers = same_on_both(phone, paths)
    settled = sum(a[0] == 0 for a in answers)
    # some eighty files, both kinds: evenings that settle and evenings the rules refuse
    assert len(paths) > 50 and settled > 10 and len(paths) - settled > 20, (len(paths), settled)


def test_random_evenings_settle_the_same(phone: Phone, tmp_path: Path) -> None:
    paths: list[Path] = []

    @settings(max_examples=200, deadline=None, database=None, derandomize=True,
              suppress_health_check=list(HealthCheck))
    @given(evenings())
    def keep(evening: tuple) -> None:
        setup, hands = evening
        path = tmp_path / f"random-{len(paths)}.json"
        path.write_text(dumps(EveningFile(setup, hands, name=f"random {len(paths)}")), encoding="utf-8")
        paths.append(path)

    keep()
    answers = same_on_both(phone, paths)
    assert len(paths) >= 150 and all(status == 0 for status, _, _ in answers)


def _spoiled() -> dict[str, bytes]:
    base = json.loads((EXAMPLES / "pagat-thursday.json").read_text(encoding="utf-8"))

    def with_hands(*hands: dict) -> bytes:
        return json.dumps({**base, "hands": [*base["hands"][:2], *hands]}, ensure_ascii=False).encode()

    return {
        "wellington-without-nap": with_hands({"dealer": "Cat", "auction": ["pass", "pass", "wellington", "pass"],
                                              "tricks": 5}),
        "ninth-trick": with_hands({"dealer": "Cat", "auction": ["three", "pass", "pass", "pass"], "tricks": 9}),
        "outbid-by-a-lower-bid": with_hands({"dealer": "Cat", "auction": ["four", "three", "pass", "pass"],
                                             "tricks": 3}),
        "unknown-variant": json.dumps({**base, "variant": "whist"}).encode(),
        "unknown-zone": json.dumps({**base, "time_zone": "Mars/Olympus"}).encode(),
        "known-zone": json.dumps({**base, "time_zone": "Europe/Oslo"}).encode(),
        "player-twice": json.dumps({**base, "players": ["Ann", "Ann", "Cat", "Dan"]}).encode(),
        "not-json": b'{"format": "nap-evening", ',
        "bad-utf8": b'{"format": "nap-evening", "name": "\xff"}',
        "utf8-bom": b"\xef\xbb\xbf" + json.dumps(base).encode(),
        "nested-100000": b"[" * 100_000 + b"]" * 100_000,
        "nested-65": b'{"a":' * 65 + b"1" + b"}" * 65,
        "huge-number": b'{"format":"nap-evening","version":1,"variant":"pagat","players":["A","B","C"],'
                       b'"hands":[{"auction":["three","pass","pass"],"tricks":' + b"9" * 5000 + b"}]}",
        "empty": b"",
    }


def test_spoiled_files_are_refused_with_the_same_rule_and_words(phone: Phone, tmp_path: Path) -> None:
    paths = []
    for name, data in _spoiled().items():
        path = tmp_path / f"{name}.json"
        path.write_bytes(data)
        paths.append(path)
    paths += [tmp_path / "no-such-file.json", tmp_path]  # unreadable: missing, a folder
    answers = dict(zip((p.stem for p in paths), same_on_both(phone, paths)))
    assert answers.pop("known-zone")[0] == 0  # a zone the server knows is known on the phone too
    assert answers.pop("utf8-bom")[0] == 0  # a file saved with a byte-order mark is read on both
    assert all(status == 2 and out == "" and err.startswith("nap: ") for status, out, err in answers.values())
    assert answers["wellington-without-nap"][2].endswith(
        "hands[2]: Hand 3: Bob bid Wellington, but Wellington may only be bid after someone has bid Nap. (P-7)\n")
    assert "hands[2].tricks: 9 is too large: at most 5 here." in answers["ninth-trick"][2]
    assert answers["outbid-by-a-lower-bid"][2].endswith("a bid must be higher than every earlier bid. (P-5)\n")
    assert "Mars/Olympus" in answers["unknown-zone"][2]
    assert answers["nested-100000"][2].endswith("nested more than 64 deep).\n")
    assert answers["no-such-file"][2].endswith("No such file or directory\n")


def test_settle_mjs_prints_what_nap_settle_prints(tmp_path: Path) -> None:
    """The command itself (a Pyodide of its own), against ``nap settle --json``: stdout, stderr, exit."""
    problem = _missing()
    if problem:
        if REQUIRE:
            pytest.fail(f"{problem} and NAP_REQUIRE_NODE=1")
        pytest.skip(problem)
    bundle = tmp_path / "nap-engine.zip"
    write_bundle(bundle)
    refused = tmp_path / "refused.json"
    refused.write_bytes(_spoiled()["wellington-without-nap"])
    nap = Path(sys.executable).parent / "nap"
    for path in ("examples/hoyle-five.json", str(refused)):
        server = subprocess.run([str(nap), "settle", "--json", path], cwd=ROOT,  # noqa: S603
                                capture_output=True, check=False)
        on_phone = subprocess.run(["node", str(SETTLE), path], cwd=ROOT, capture_output=True,  # noqa: S603,S607
                                  check=False, env={**os.environ, "NAP_ENGINE_BUNDLE": str(bundle)})
        assert (on_phone.returncode, on_phone.stdout, on_phone.stderr) == \
               (server.returncode, server.stdout, server.stderr)
        assert server.returncode == (0 if path.startswith("examples") else 2)


def _provisional_on_the_server() -> object:
    """The worker's Python (PROVISIONAL_PY of static/engine/engine.mjs), run by this CPython."""
    source = (ROOT / "static" / "engine" / "engine.mjs").read_text(encoding="utf-8")
    code = source.split("export const PROVISIONAL_PY = `", 1)[1].split("`;", 1)[0]
    space: dict = {}
    exec(code, space)  # noqa: S102 - the project's own code, as the worker runs it
    return space["_nap_provisional"]


def test_provisional_rulings_are_the_same_on_the_phone(phone: Phone, tmp_path: Path) -> None:
    server_side = _provisional_on_the_server()
    data = json.loads((EXAMPLES / "pagat-thursday.json").read_text(encoding="utf-8"))
    base = tmp_path / "server.json"
    base.write_text(json.dumps({**data, "hands": data["hands"][:2]}), encoding="utf-8")
    cases = [
        [{k: v for k, v in h.items() if k != "dealer"} for h in data["hands"][2:]],
        [{"lone_bid": {"declarer": "Cat", "contract": "three"}, "tricks": 3}],
        [{"auction": ["pass", "three", "pass", "pass"], "tricks": 3},
         {"auction": ["pass", "pass", "wellington", "pass"], "tricks": 5}],
        [{"auction": ["three", "pass", "pass", "pass"], "tricks": 9}],
    ]
    answers = []
    for waiting in cases:
        expected = server_side(base.read_text(encoding="utf-8"), json.dumps(waiting))  # type: ignore[operator]
        assert phone.provisional(base, waiting) == expected
        answers.append(json.loads(expected))
    assert answers[0]["refused"] is None and answers[0]["report"]["totals"] == {"Ann": 29, "Bob": 9, "Cat": -19,
                                                                              "Dan": -19}
    assert answers[2]["refused"] == {"index": 1, "number": 4, "rule": "P-7", "message":
                                     "Cat bid Wellington, but Wellington may only be bid after someone has bid Nap.",
                                     "text": "Cat bid Wellington, but Wellington may only be bid after someone has "
                                     "bid Nap. (P-7)"}
    # the refusal in the page's language, from the catalogs the bundle carries (scorer/evening/said.py)
    for lang, text in (("ru", "Cat: заявка «Веллингтон», но «Веллингтон» можно заявить только после чьей-то "
                              "заявки «Нап». (P-7)"),
                       ("pt-BR", "Cat declarou Wellington, mas Wellington só pode ser declarado depois que alguém "
                                 "declarou Nap. (P-7)")):
        expected = server_side(base.read_text(encoding="utf-8"), json.dumps(cases[2]), lang)  # type: ignore[operator]
        assert phone.provisional(base, cases[2], lang) == expected
        assert json.loads(expected)["refused"]["text"] == text
