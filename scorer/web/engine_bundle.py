"""The phone's engine bundle: one zip of the pure packages, built from the installed source.

The scorer's phone runs the very engine of the server under Pyodide (CPython compiled to
WebAssembly, vendored under ``static/vendor/pyodide/`` by ``scripts/setup``). What it imports
comes in one deterministic zip built here, never a hand-kept copy:

- ``scorer/__init__.py``, ``scorer/rules/``, ``scorer/evening/`` and ``scorer/schema/`` (the
  engine, the ledger, the evening file and its JSON Schema), and ``scorer/cli/main.py`` (the
  ``nap settle --json`` report, so ``static/engine/settle.mjs`` prints what ``nap settle`` does);
- the evening reader's ``jsonschema`` stack as installed (``jsonschema``, ``referencing``,
  ``attrs``/``attr``, ``jsonschema_specifications``), so the phone checks a file with the very
  schema, code and words of the server; ``rpds`` (compiled, absent from Pyodide's npm package) is
  :mod:`scorer.evening.pure_rpds` under that name;
- ``scorer/translations/<language>/LC_MESSAGES/messages.mo``: the server's catalogs, cut to the
  messages of the engine's own source (``scorer/rules``, ``scorer/evening``, ``scorer/schema``,
  ``scorer/cli`` and the ``{where}: {message}`` of a refusal), so a hand refused at the tap is
  said in the phone's language with the server's words (:mod:`scorer.evening.said`);
- ``tzdata/``: the names of the time zones this server knows (``zones``, read by
  :func:`zoneinfo.available_timezones`, so a file's ``time_zone`` is taken or refused as the
  server does) and the one zone file ``UTC``. The phone keeps its times in UTC: a zone's rules
  are not shipped (they would cost some 400 KB compressed).

The zip is deterministic: names sorted, every date 1980-01-01, the same permissions, so the
same source gives the same bytes (its hash names it in caches). Built by ``scripts/setup``
(``python -m scorer.web.engine_bundle static/vendor/pyodide/nap-engine.zip``) and by the tests.
"""

from __future__ import annotations

import importlib.util
import io
import sys
import zipfile
import zoneinfo
from collections.abc import Iterator
from pathlib import Path

SCORER = Path(__file__).resolve().parent.parent
#: the scorer's own files in the bundle (folders are taken whole: ``.py`` and ``.json``)
SCORER_PARTS = ("__init__.py", "rules", "evening", "schema", "cli/__init__.py", "cli/main.py")
#: the evening reader's libraries, copied as installed (``.py`` files and package data, no tests)
LIBRARIES = ("jsonschema", "referencing", "attrs", "attr", "jsonschema_specifications")
SKIPPED_DIRS = {"__pycache__", "tests", "benchmarks"}
SKIPPED_SUFFIXES = {".pyc", ".pyi", ".typed"}
DATE = (1980, 1, 1, 0, 0, 0)
ZONE_README = '"""Only the names of the time zones the server knows (``zones``) and ``UTC``: see\n' \
              'scorer/web/engine_bundle.py. The phone keeps its times in UTC."""\n'


def _files(root: Path, skip_suffixes: set[str]) -> Iterator[Path]:
    if root.is_file():
        yield root
        return
    for path in sorted(root.rglob("*")):
        if path.is_file() and not SKIPPED_DIRS & set(path.relative_to(root).parts) \
                and path.suffix not in skip_suffixes:
            yield path


def _package_dir(name: str) -> Path:
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit(f"engine_bundle: the package {name} is not installed")
    return Path(next(iter(spec.submodule_search_locations)))


def _utc_zone_file() -> bytes:
    for base in zoneinfo.TZPATH:
        path = Path(base) / "UTC"
        if path.is_file():
            return path.read_bytes()
    from importlib import resources  # the tzdata package, where the machine has no database

    return resources.files("tzdata.zoneinfo").joinpath("UTC").read_bytes()


#: where a message of the engine is written (a catalog entry's location); and the one message
#: of a refusal written elsewhere (scorer/storage/evening_writes.py's ``unreadable``)
ENGINE_SOURCES = ("scorer/rules/", "scorer/evening/", "scorer/schema/", "scorer/cli/")
ENGINE_MESSAGES = {"{where}: {message}"}


def engine_catalogs() -> dict[str, bytes]:
    """Each language's compiled catalog cut to the engine's messages: path in the zip → bytes
    (from the ``.po`` files, compiled as ``pybabel compile`` does: no fuzzy entries)."""
    from babel.messages.mofile import write_mo
    from babel.messages.pofile import read_po

    out = {}
    for po in sorted((SCORER / "translations").glob("*/LC_MESSAGES/messages.po")):
        with po.open("rb") as file:
            full = read_po(file)
        for message in list(full):
            if not message.id:
                continue
            ours = message.id in ENGINE_MESSAGES if isinstance(message.id, str) else False
            ours = ours or any(where.startswith(ENGINE_SOURCES) for where, _ in message.locations)
            if not ours:
                del full[message.id]
        buffer = io.BytesIO()
        write_mo(buffer, full)
        out[po.with_suffix(".mo").relative_to(SCORER.parent).as_posix()] = buffer.getvalue()
    return out


def bundle_entries() -> dict[str, bytes]:
    """Every file of the bundle: its path in the zip → its bytes."""
    entries: dict[str, bytes] = {}
    for part in SCORER_PARTS:
        root = SCORER / part
        for path in _files(root, SKIPPED_SUFFIXES | {".po", ".mo"}):
            if path.name == "pure_rpds.py":
                continue
            entries[path.relative_to(SCORER.parent).as_posix()] = path.read_bytes()
    for name in LIBRARIES:
        root = _package_dir(name)
        for path in _files(root, SKIPPED_SUFFIXES):
            entries[f"{name}/{path.relative_to(root).as_posix()}"] = path.read_bytes()
    entries.update(engine_catalogs())
    entries["rpds/__init__.py"] = (SCORER / "evening" / "pure_rpds.py").read_bytes()
    entries["tzdata/__init__.py"] = ZONE_README.encode()
    entries["tzdata/zones"] = "".join(f"{z}\n" for z in sorted(zoneinfo.available_timezones())).encode()
    entries["tzdata/zoneinfo/__init__.py"] = b""
    entries["tzdata/zoneinfo/UTC"] = _utc_zone_file()
    return entries


def build_bundle() -> bytes:
    """The bundle's bytes (a zip, deflated): the same source gives the same bytes."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        for name, data in sorted(bundle_entries().items()):
            info = zipfile.ZipInfo(name, DATE)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            info.create_system = 3
            archive.writestr(info, data, compresslevel=9)
    return out.getvalue()


def write_bundle(target: Path) -> bool:
    """Write the bundle to ``target`` unless it holds the same bytes; True when it was written."""
    data = build_bundle()
    if target.is_file() and target.read_bytes() == data:
        return False
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(data)
    return True


if __name__ == "__main__":  # pragma: no cover - scripts/setup
    if len(sys.argv) != 2:
        raise SystemExit("usage: python -m scorer.web.engine_bundle OUT.zip")
    write_bundle(Path(sys.argv[1]))
