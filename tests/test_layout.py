"""The package's layout, read from the source with ``ast`` (nothing is imported).

The layer rule: the folders of ``scorer`` are layers, bottom to top
``rules < evening < storage < reports < web < cli`` (:data:`LAYERS`). A module imports,
anywhere in it (top level, functions, ``TYPE_CHECKING`` blocks), only modules of its own
layer or of lower ones; ``scorer/__init__.py`` and ``scorer/__main__.py`` are the only
modules outside the folders, and the only ones that may import the top (``web.app``,
``cli.main``), lazily. ``rules`` and ``evening`` import no web or database library
(``evening`` runs in the browser under Pyodide; it may use ``jsonschema``). No private
name (``_name``) crosses from one module to another. No module is over
:data:`MAX_LINES` lines. And: view modules share helpers only through
``scorer.web.views.common``, and no module imports a module that leads back to it."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "scorer"


def _modules() -> dict[str, Path]:
    """Every module of the package by dotted name (a package by its own name)."""
    out = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


MODULES = _modules()

#: The layers, bottom to top: each folder of ``scorer`` imports only its own and lower ones.
LAYERS = ("rules", "evening", "storage", "reports", "web", "cli")
#: The modules outside the layers, and what each may import (lazily: ``create_app``, ``main``).
TOP = {"scorer": {"scorer.web.app"}, "scorer.__main__": {"scorer.cli.main"}}
#: Libraries the pure layers never import: web, database, PDF (``rules`` and ``evening``
#: run anywhere, ``evening`` in the browser under Pyodide).
HEAVY = ("flask", "flask_babel", "flask_wtf", "flask_sqlalchemy", "flask_migrate", "sqlalchemy", "wtforms",
         "weasyprint", "psycopg", "psycopg2", "alembic", "werkzeug", "markupsafe", "jinja2", "babel", "pygal")
#: No module of the package is longer than this many lines.
MAX_LINES = 500


def _is_package(name: str) -> bool:
    return MODULES[name].name == "__init__.py"


def _parse(name: str) -> ast.Module:
    return ast.parse(MODULES[name].read_text(), filename=str(MODULES[name]))


def _target(name: str, node: ast.ImportFrom) -> str:
    """The dotted module ``from … import`` names, relative ones resolved against ``name``."""
    if not node.level:
        return node.module or ""
    here = name if _is_package(name) else name.rpartition(".")[0]
    base = here.split(".")
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def import_lines(name: str) -> Iterator[tuple[int, str]]:
    """``(line, module)`` for each module of the package that ``name`` imports, as
    :func:`imports_of` counts them, with the line of the import."""
    for node in ast.walk(_parse(name)):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name in MODULES:
                    yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            target = _target(name, node)
            if target in MODULES:
                for alias in node.names:
                    sub = f"{target}.{alias.name}"
                    yield node.lineno, sub if sub in MODULES else target


def imports_of(name: str) -> set[str]:
    """The modules of the package that module ``name`` imports, anywhere in it (top
    level, functions, ``TYPE_CHECKING`` blocks). ``from x import y`` is an import of
    the module ``x.y`` when there is one, else of ``x``. Parent packages, which Python
    runs first anyway, are not counted unless named."""
    found = {module for _line, module in import_lines(name)}
    found.discard(name)
    return found


def graph() -> dict[str, set[str]]:
    return {name: imports_of(name) for name in MODULES}


def find_cycle(edges: dict[str, set[str]]) -> list[str] | None:
    """One cycle of the graph as ``[a, b, …, a]``, or ``None``."""
    state: dict[str, int] = {}  # 1: on the path, 2: done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(edges.get(node, ())):
            if state.get(nxt) == 1:
                return path[path.index(nxt):] + [nxt]
            if nxt not in state:
                cycle = visit(nxt)
                if cycle:
                    return cycle
        path.pop()
        state[node] = 2
        return None

    for start in sorted(edges):
        if start not in state:
            cycle = visit(start)
            if cycle:
                return cycle
    return None


def test_the_reader_sees_imports_in_functions_and_relative_ones() -> None:
    edges = graph()
    assert "scorer.rules.core" in edges["scorer.rules"]  # from .core import (...)
    assert "scorer.web.app" in edges["scorer"]  # inside create_app()
    assert "scorer.web.views.common" in edges["scorer.web.views.table"]


def test_find_cycle_finds_one_made_by_hand() -> None:
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b", "c"}, "b": {"c"}, "c": set()}) is None


def test_view_modules_import_no_other_view_module_but_common() -> None:
    views = {name for name in MODULES if name == "scorer.web.views" or name.startswith("scorer.web.views.")}
    assert len(views) > 4
    wrong = {
        name: sorted(edges & views - {"scorer.web.views.common"})
        for name, edges in graph().items()
        if name in views and name != "scorer.web.views.common"
    }
    assert {name: found for name, found in wrong.items() if found} == {}
    assert not imports_of("scorer.web.views.common") & views


def test_the_package_has_no_import_cycle() -> None:
    assert find_cycle(graph()) is None


def layer_of(name: str) -> int | None:
    """The index of ``name``'s layer in :data:`LAYERS`; ``None`` outside the folders."""
    parts = name.split(".")
    return LAYERS.index(parts[1]) if len(parts) > 1 and parts[1] in LAYERS else None


def layer_breaches() -> list[str]:
    """Every import of a module above the importer's layer (or outside the layers), as
    ``"scorer/reports/pdf.py:30 imports scorer.web.i18n (reports may import rules, evening, storage, reports)"``."""
    out = []
    for name in MODULES:
        here = layer_of(name)
        for line, dep in sorted(set(import_lines(name))):
            there = layer_of(dep)
            if dep == name:
                continue
            if here is None:
                allowed = name in TOP and dep in TOP[name]
                rule = f"outside the layers, {name} may import only {sorted(TOP.get(name, ()))}"
            else:
                allowed = there is not None and there <= here
                rule = f"{LAYERS[here]} may import {', '.join(LAYERS[: here + 1])}"
            if not allowed:
                out.append(f"{_where(name, line)} imports {dep} ({rule})")
    return out


def _where(name: str, line: int) -> str:
    return f"{MODULES[name].relative_to(PACKAGE.parent)}:{line}"


def heavy_imports() -> list[str]:
    """Every import of a web, database or PDF library (:data:`HEAVY`) in ``rules`` or ``evening``."""
    out = []
    for name in MODULES:
        if layer_of(name) not in (0, 1):
            continue
        for node in ast.walk(_parse(name)):
            if isinstance(node, ast.Import):
                roots = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and not node.level:
                roots = [node.module or ""]
            else:
                continue
            out += [f"{_where(name, node.lineno)} imports {root} ({LAYERS[layer_of(name) or 0]} stays free of "
                    f"web and database libraries)" for root in roots if _heavy(root)]
    return out


def _heavy(module: str) -> bool:
    root = module.split(".")[0]
    return root in HEAVY or root.startswith("flask_")


def _module_names(name: str, tree: ast.Module) -> dict[str, str]:
    """Local names bound to a module of the package (``from .. import services``, ``import scorer.x as y``)."""
    bound = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name in MODULES and alias.asname:
                    bound[alias.asname] = alias.name
        elif isinstance(node, ast.ImportFrom):
            target = _target(name, node)
            for alias in node.names:
                if f"{target}.{alias.name}" in MODULES:
                    bound[alias.asname or alias.name] = f"{target}.{alias.name}"
    return bound


def _is_private(attr: str) -> bool:
    return attr.startswith("_") and not attr.startswith("__")


def private_crossings(name: str) -> list[str]:
    """Each use in module ``name`` of another module's private name: ``from x import _y``
    or ``x._y`` where ``x`` is a module of the package."""
    tree = _parse(name)
    modules = _module_names(name, tree)
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and _target(name, node) in MODULES:
            out += [f"{_where(name, node.lineno)} imports {alias.name} from {_target(name, node)}"
                    for alias in node.names if _is_private(alias.name)]
        elif (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and _is_private(node.attr)
              and modules.get(node.value.id, name) != name):
            out.append(f"{_where(name, node.lineno)} uses {modules[node.value.id]}.{node.attr}")
    return out


def test_the_layer_reader_sees_what_it_must() -> None:
    assert layer_of("scorer.rules.variants.base") == 0
    assert layer_of("scorer.web.views.sheet") == 4
    assert layer_of("scorer") is None and layer_of("scorer.__main__") is None
    assert any(dep == "scorer.web.app" for _line, dep in import_lines("scorer"))


def test_each_layer_imports_only_its_own_and_lower_layers() -> None:
    """rules < evening < storage < reports < web < cli; only ``scorer/__init__.py``
    (``web.app``) and ``scorer/__main__.py`` (``cli.main``) sit outside them."""
    folders = {path.name for path in PACKAGE.iterdir() if path.is_dir() and (path / "__init__.py").exists()}
    assert folders == set(LAYERS), f"every package of scorer/ is a layer of {LAYERS}: {sorted(folders)}"
    outside = sorted(name for name in MODULES if layer_of(name) is None)
    assert outside == sorted(TOP), f"only {sorted(TOP)} may sit outside the layers: {outside}"
    breaches = layer_breaches()
    assert not breaches, "imports above the importer's layer:\n" + "\n".join(breaches)


def test_the_pure_layers_import_no_web_or_database_library() -> None:
    """``rules`` and ``evening``: no Flask, SQLAlchemy, WTForms, WeasyPrint, psycopg
    (``evening`` may use ``jsonschema`` and the standard library)."""
    found = heavy_imports()
    assert not found, "\n".join(found)


def test_no_private_name_crosses_from_one_module_to_another() -> None:
    found = [line for name in MODULES for line in private_crossings(name)]
    assert not found, "private names used outside their module:\n" + "\n".join(found)


def test_no_module_is_over_500_lines() -> None:
    long = [f"{path.relative_to(PACKAGE.parent)}: {n} lines (at most {MAX_LINES})"
            for path in MODULES.values() if (n := len(path.read_text().splitlines())) > MAX_LINES]
    assert not long, "modules too long:\n" + "\n".join(long)
