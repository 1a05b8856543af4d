"""The layers and their imports (shared/design/architecture.md): engine/ imports no layer above
it, bots/ imports engine/ only, and no module hides an import of the project's own code inside
a function to dodge an import circle, except those listed here with the reason they remain."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PROJECT = ("engine", "bots", "tournaments")

# (module, imported module): the in-function imports still standing, and why.
KNOWN = {
    # A finished league division closes its season, and leagues.py makes its divisions with
    # services.tournaments: the one circle left (issue 13's redesign of round closing).
    ("tournaments/services/tournaments.py", "tournaments.services.leagues"),
    # Format.next_round applies the duplicate option with duplicate.py, whose functions take
    # base's types.
    ("tournaments/formats/base.py", "tournaments.formats.duplicate"),
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
