"""Reproducer of the segmentation fault of ``nap serve`` on long evenings (found by
benchmarks/cold.py; the cause was CPython 3.11's double free of inline attribute values,
guarded by scorer/storage/state_guard.py): one ``nap serve`` (one app process) on a
throwaway PostgreSQL schema, one long evening (``--hands``), ``--saves`` hands saved through
the HTML hand form, each followed by two views of the scoresheet it redirects to (as
cold.py's "redirect" rounds). A server that dies is started again; the run prints how many
saves crashed it and where its logs are (faulthandler's dump of every thread,
``PYTHONFAULTHANDLER=1``).

The crash depended on the process's exact sequence of allocations: any change to the code
or to what is loaded could hide it or bring it back. ``--perturb`` makes the server import a
little more first (a sitecustomize.py of its own), which brought it back on main (2 of 4
saves without the guard; 0 of 12 with it). With ``--perturb``, the environment also says:

- ``SEGV_BLOCK=mod1,mod2``: those modules' imports fail (their pure-Python fallbacks are used);
- ``SEGV_PURE_SQLALCHEMY=all`` or ``=_result_cy,_row_cy,…``: SQLAlchemy's Cython modules
  loaded from their ``.py`` source instead;
- ``SEGV_WRAP="valgrind --tool=memcheck --num-callers=40"``: the server runs under that
  command (with ``PYTHONMALLOC=malloc`` valgrind sees every object: this is what found the
  double free, "Invalid free … free_values … dictresize", first freed in a weak-reference
  callback during a collector pass).

Nothing is asserted.

    .venv/bin/python benchmarks/segv_repro.py --hands 2000 --saves 4 --perturb [--poll]
    .venv/bin/python benchmarks/segv_repro.py --app /path/to/other/checkout --migration 0016_pin_budget
"""

from __future__ import annotations

import argparse
import os
import secrets
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "benchmarks"), str(ROOT)]

import cold  # noqa: E402 - benchmarks/cold.py
from load import drop_schema, make_schema  # noqa: E402 - benchmarks/load.py


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hands", type=int, default=1000, help="hands of the evening")
    parser.add_argument("--saves", type=int, default=10, help="hands saved through the form")
    parser.add_argument("--poll", action="store_true", help="one live poll first (starts the LISTEN thread)")
    parser.add_argument("--app", type=Path, default=ROOT, help="the checkout `nap serve` runs from")
    parser.add_argument("--migration", default="head", help="that checkout's newest migration")
    parser.add_argument("--perturb", action="store_true",
                        help="the server imports a little more first (importlib.abc, importlib.util): this shifts "
                             "when the garbage collector runs, which is what decides whether it crashes")
    parser.add_argument("--database", default=os.environ.get("TEST_POSTGRES_URL",
                                                             "postgresql://postgres@127.0.0.1:5432/test"))
    args = parser.parse_args()
    schema, url = make_schema(args.database)
    url = url.replace("postgresql://", "postgresql+psycopg://", 1)
    crashes = errors = ok = 0
    tmp = Path(tempfile.mkdtemp(prefix="nap-segv-"))
    if args.perturb:
        site = tmp / "site"
        site.mkdir()
        (site / "sitecustomize.py").write_text(
            "import importlib.abc, importlib.util  # noqa: F401\n"
            "import os, sys\n"
            "for _name in filter(None, os.environ.get('SEGV_BLOCK', '').split(',')):\n"
            "    sys.modules[_name] = None  # its import fails: the pure-Python fallback is used\n"
            "if os.environ.get('SEGV_PURE_SQLALCHEMY'):  # SQLAlchemy's *_cy modules from their .py source\n"
            "    import importlib.machinery\n"
            "    class _Source(importlib.machinery.PathFinder):\n"
            "        @classmethod\n"
            "        def find_spec(cls, name, path=None, target=None):\n"
            "            pure = os.environ['SEGV_PURE_SQLALCHEMY'].split(',')\n"
            "            if not (name.startswith('sqlalchemy.') and name.endswith('_cy')) or not path:\n"
            "                return None\n"
            "            if 'all' not in pure and name.rsplit('.', 1)[1] not in pure:\n"
            "                return None\n"
            "            source = os.path.join(path[0], name.rsplit('.', 1)[1] + '.py')\n"
            "            return importlib.util.spec_from_file_location(name, source)\n"
            "    sys.meta_path.insert(0, _Source)\n")
        popen = subprocess.Popen

        def with_site(*popen_args: Any, **kwargs: Any) -> subprocess.Popen[bytes]:
            env = kwargs.get("env")
            if env is not None and env.get("PYTHONPATH"):
                env["PYTHONPATH"] = f"{site}{os.pathsep}{env['PYTHONPATH']}"
            wrap = os.environ.get("SEGV_WRAP", "").split()  # e.g. "valgrind --tool=memcheck"
            if wrap and popen_args and isinstance(popen_args[0], list) and "serve" in popen_args[0]:
                popen_args = (wrap + popen_args[0], *popen_args[1:])
            return popen(*popen_args, **kwargs)

        listening = cold.listening
        cold.listening = lambda process, port, timeout, *rest: listening(process, port, timeout * 20, *rest)
        cold.subprocess.Popen = with_site  # type: ignore[assignment,misc]
    try:
        table = cold.make_data(url, [], 20, args.hands, 0, args.migration, long_saves=args.saves + 5).long
        server = cold.Server(url, args.app.resolve(), "segv-" + secrets.token_hex(8), tmp, "a")

        def phone() -> cold.Phone:
            one = cold.Phone(server.port)
            one.get(f"/e/{table.key}/scorer/{table.edit_key}", 302)
            one.get(f"/e/{table.key}")
            if args.poll:
                one.get(f"/e/{table.key}/revision")
            return one

        scorer = phone()
        for i in range(args.saves):
            try:
                path = cold.save_by_form(scorer, table)
                scorer.get(path)
                scorer.get(path)
                ok += 1
            except (OSError, AssertionError) as error:
                alive = server.alive()
                crashes += not alive
                errors += alive
                print(f"save {i + 1}: {type(error).__name__} {str(error)[:100]}; server alive: {alive}", flush=True)
                server.restart()
                scorer = phone()
        server.stop()
    finally:
        drop_schema(args.database, schema)
    print(f"{crashes} of {args.saves} saves crashed the server, {errors} other errors, {ok} saved; logs in {tmp}")


if __name__ == "__main__":
    main()
