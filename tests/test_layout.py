"""The package's layout, read from the source with ``ast`` (nothing is imported):
view modules share helpers only through ``scorer.web.views.common``, and no module of
``scorer`` imports, even inside a function, a module that leads back to it."""

from __future__ import annotations

import ast
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


def _is_package(name: str) -> bool:
    return MODULES[name].name == "__init__.py"


def imports_of(name: str) -> set[str]:
    """The modules of the package that module ``name`` imports, anywhere in it (top
    level, functions, ``TYPE_CHECKING`` blocks). ``from x import y`` is an import of
    the module ``x.y`` when there is one, else of ``x``. Parent packages, which Python
    runs first anyway, are not counted unless named."""
    tree = ast.parse(MODULES[name].read_text(), filename=str(MODULES[name]))
    here = name if _is_package(name) else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name in MODULES:
                    found.add(alias.name)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = here.split(".")
                base = base[: len(base) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if target not in MODULES:
                continue
            for alias in node.names:
                sub = f"{target}.{alias.name}"
                found.add(sub if sub in MODULES else target)
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


def test_the_rules_engine_imports_nothing_of_the_web_app() -> None:
    for name, path in MODULES.items():
        if name.startswith("scorer.rules"):
            assert all(dep.startswith("scorer.rules") for dep in imports_of(name)), name
            tree = ast.parse(path.read_text())
            for node in ast.walk(tree):
                if isinstance(node, ast.Import | ast.ImportFrom) and not getattr(node, "level", 0):
                    roots = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
                    for root in roots:
                        assert root.split(".")[0] not in {"flask", "flask_babel", "sqlalchemy", "wtforms",
                                                          "flask_wtf", "flask_sqlalchemy"}, (name, root)
