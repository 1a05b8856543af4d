"""The layers and their imports (shared/design/architecture.md): engine/ imports no layer above
it, bots/ imports engine/ only, no module of the project takes part in an import circle, and no
module hides an import of the project's own code inside a function to dodge one, except those
listed here with the reason they remain."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PROJECT = ("engine", "bots", "tournaments")

# (module, imported module): the in-function imports still standing, and why.
KNOWN = {
    # AppConfig.ready registers the Celery tasks in every process (web, commands), so that
    # services.dispatch finds them by name; Django's apps must be ready before they import.
    ("tournaments/apps.py", "tournaments"),
}


def modules(package: str):
    return sorted(p for p in (ROOT / package).rglob("*.py") if "migrations" not in p.parts)


def imported(node: ast.AST, path: Path) -> str:
    """The module an import statement names, relative imports resolved."""
    if isinstance(node, ast.Import):
        return node.names[0].name
    base = ".".join(path.relative_to(ROOT).with_suffix("").parts[: -node.level] if node.level else ())
    return ".".join(part for part in (base, node.module or "") if part)


def imports(path: Path, *, in_functions: bool):
    tree = ast.parse(path.read_text())
    functions = [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    inside = {id(n) for f in functions for n in ast.walk(f) if isinstance(n, (ast.Import, ast.ImportFrom))}
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)) and (id(node) in inside) == in_functions:
            yield imported(node, path)


@pytest.mark.parametrize("package, allowed", [("engine", {"engine"}), ("bots", {"engine", "bots"})])
def test_a_lower_layer_imports_no_layer_above_it(package, allowed):
    for path in modules(package):
        for name in [*imports(path, in_functions=False), *imports(path, in_functions=True)]:
            top = name.split(".")[0]
            assert top not in ("django", "rest_framework", "celery") and (top not in PROJECT or top in allowed), (
                f"{path.relative_to(ROOT)} imports {name}")


def test_no_project_import_hides_inside_a_function_but_the_known_ones():
    found = {
        (str(path.relative_to(ROOT)), name)
        for package in ("bots", "tournaments")
        for path in modules(package)
        for name in imports(path, in_functions=True)
        if name.split(".")[0] in PROJECT
    }
    assert found == KNOWN


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph() -> dict[str, set[str]]:
    """Each project module (bots/, tournaments/) and the project modules it imports at its top
    level. ``from package import name`` counts as importing the submodule when ``name`` is one."""
    paths = [path for package in ("bots", "tournaments") for path in modules(package)]
    known = {module_name(path) for path in paths}
    graph: dict[str, set[str]] = {}
    for path in paths:
        tree = ast.parse(path.read_text())
        functions = [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
        inside = {id(n) for f in functions for n in ast.walk(f)}
        edges = set()
        for node in ast.walk(tree):
            if id(node) in inside or not isinstance(node, (ast.Import, ast.ImportFrom)):
                continue
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            else:
                base = imported(node, path)
                names = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base for alias in node.names]
            edges |= {name for name in names if name in known}
        graph[module_name(path)] = edges - {module_name(path)}
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_no_import_circle_among_the_projects_modules():
    assert circles(import_graph()) == []


def test_the_circle_check_finds_a_circle():
    graph = import_graph()
    graph["tournaments.services.rounds"] = graph["tournaments.services.rounds"] | {"tournaments.services.recording"}
    assert any({"tournaments.services.recording", "tournaments.services.rounds"} <= set(c) for c in circles(graph))


def test_services_never_import_the_tasks_that_call_them():
    graph = import_graph()
    assert not [name for name, edges in graph.items()
                if name.startswith("tournaments.services") and "tournaments.tasks" in edges]
