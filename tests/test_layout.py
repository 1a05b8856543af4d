"""The layers and their imports (shared/design/architecture.md, docs/tournaments.md "Layers"):
engine/ imports no layer above it, bots/ imports engine/ only; the pure algorithms (formats/,
ratings/, standings, limits, errors) import neither the ORM nor a service; no read module
imports a service (a module of tournaments/ outside services/ may import one only if it is a
writer listed in WRITERS, or a management command); no module of the project takes part in an
import circle, and no module hides an import of the project's own code inside a function to
dodge one, except those listed here with the reason they remain."""

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


# --- reads below writes ------------------------------------------------------------------------

def imports_of(path: Path) -> set[str]:
    """Every module ``path`` imports, at its top level or inside a function; ``from package import
    name`` counts as importing the submodule when ``name`` is one."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = imported(node, path)
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                names.add(sub if (ROOT / sub.replace(".", "/")).with_suffix(".py").exists()
                          or (ROOT / sub.replace(".", "/") / "__init__.py").exists() else base)
    return names


def tournaments_imports() -> dict[str, set[str]]:
    """Each module of tournaments/ (by path) and every module it imports."""
    return {str(path.relative_to(ROOT)): imports_of(path) for path in modules("tournaments")}


# The pure layer: algorithms on plain values, tested and benchmarked without a database. They
# import only each other, engine/ and bots/ (and the standard library and third-party packages
# that are not the ORM): never django.db, Django's models, or another module of tournaments/
# (models, plain and selectors read the database; services write it).
PURE = ("tournaments/formats/", "tournaments/ratings/", "tournaments/standings.py", "tournaments/limits.py",
        "tournaments/errors.py", "tournaments/games/")


def is_pure(module: str) -> bool:
    return module.startswith(PURE)


def pure_module_name(name: str) -> bool:
    path = name.replace(".", "/")
    return any(path == p.rstrip("/").removesuffix(".py") or path.startswith(p) for p in PURE)


def pure_violations(graph: dict[str, set[str]]) -> set[tuple[str, str]]:
    found = set()
    for module, names in graph.items():
        if not is_pure(module):
            continue
        for name in names:
            top = name.split(".")[0]
            orm = top == "django" and (name == "django.db" or name.startswith("django.db.") or name.endswith(".models"))
            project = top == "tournaments" and not pure_module_name(name)
            if orm or project:
                found.add((module, name))
    return found


def test_the_pure_algorithms_import_neither_the_orm_nor_a_service():
    assert pure_violations(tournaments_imports()) == set()


def test_the_pure_check_finds_an_orm_or_a_service_import():
    graph = tournaments_imports()
    graph["tournaments/standings.py"] = graph["tournaments/standings.py"] | {"django.db.models"}
    graph["tournaments/formats/stored.py"] = graph["tournaments/formats/stored.py"] | {"tournaments.models"}
    graph["tournaments/limits.py"] = graph["tournaments/limits.py"] | {"tournaments.services.players"}
    graph["tournaments/ratings/elo.py"] = graph["tournaments/ratings/elo.py"] | {"tournaments.selectors"}
    assert pure_violations(graph) == {
        ("tournaments/standings.py", "django.db.models"), ("tournaments/formats/stored.py", "tournaments.models"),
        ("tournaments/limits.py", "tournaments.services.players"), ("tournaments/ratings/elo.py", "tournaments.selectors"),
    }


# The writers: the modules of tournaments/ outside services/ that take a request or a job and
# change state through a service, so they import services. Every other module of tournaments/
# outside services/ is a reader (selectors, feeds, web/reads, the pages, the API's reads,
# exports, streams, permissions, ...) or below the services, and imports no service. So is a
# new module, until it is listed here. Management commands (*/management/commands/) are
# writers by rule: each is a caller at the top, as a task is.
WRITERS = {
    "tournaments/tasks.py": "the Celery tasks: each calls the service that does its work",
    "tournaments/admin.py": "the admin's edits tell services.versions that the standings changed",
    "tournaments/api/accounts.py": "sign up, sign in: services.accounts",
    "tournaments/api/auth.py": "token authentication: services.tokens.token_find records a token's last use",
    "tournaments/api/views.py": "the API's writes (create, start, withdraw, submit, ...) call services",
    "tournaments/api/webhooks.py": "subscribe, change, delete, ping, redeliver: services.webhooks",
    "tournaments/web/forms.py": "the forms take what a service takes and show its refusals (ServiceError)",
    "tournaments/web/organise.py": "the organisers' pages: their forms post to services",
    "tournaments/web/play.py": "the play screen posts moves: services.online, services.dispatch",
    "tournaments/matchplay.py": "plays a match as services.play does (manage.py play_match), with its "
                                "bot seeds (services.seeds) and forfeit policy (services.clocks)",
}

def is_writer(module: str) -> bool:
    return module in WRITERS or "/management/commands/" in module


def reader_violations(graph: dict[str, set[str]]) -> set[tuple[str, str]]:
    return {
        (module, name)
        for module, names in graph.items()
        if not module.startswith("tournaments/services/") and not is_writer(module)
        for name in names
        if name == "tournaments.services" or name.startswith("tournaments.services.")
    }


def test_no_read_module_imports_a_service():
    assert reader_violations(tournaments_imports()) == set()


def test_the_reader_check_finds_a_reader_importing_a_service():
    graph = tournaments_imports()
    graph["tournaments/selectors.py"] = graph["tournaments/selectors.py"] | {"tournaments.services.rounds"}
    graph["tournaments/web/reads.py"] = graph["tournaments/web/reads.py"] | {"tournaments.services"}
    graph["tournaments/new_reader.py"] = {"tournaments.services.online"}  # a new module is a reader
    assert reader_violations(graph) == {
        ("tournaments/selectors.py", "tournaments.services.rounds"), ("tournaments/web/reads.py", "tournaments.services"),
        ("tournaments/new_reader.py", "tournaments.services.online"),
    }


def test_every_writer_listed_exists_and_imports_a_service():
    """The list stays as short as the code: a writer that no longer imports a service is a
    reader, and leaves it."""
    graph = tournaments_imports()
    assert {module for module in WRITERS
            if not any(name.startswith("tournaments.services") for name in graph.get(module, ()))} == set()
