"""No module of subgame imports another that imports it back, however indirectly.

The graph is read from the source (ast), not from an interpreter's imports, so that it has
every import statement: at module level, under ``if TYPE_CHECKING:`` (type-only imports
count: a type a module names is a dependency too) and inside functions (a deferred import
only postpones the dependency).  Its nodes are modules, a package being its ``__init__``.

``from a.b import c`` depends on the module ``a.b.c`` where there is one, else on ``a.b``
(c is a name its ``__init__`` defines).  Importing ``a.b.c`` also initialises the package
``a.b`` first, but that is no edge: a package's ``__init__`` that gathers its submodules'
names (``gops/game/__init__.py``) would otherwise close a circle with each submodule that
imports a sibling, and Python's import order is made for exactly that case (the package is
registered before its ``__init__`` runs; the submodule uses nothing of it).  Modules named
by a string (the family registry, ``importlib.import_module``) are not statically known
and are not followed.
"""

from __future__ import annotations

import ast
from collections import deque
from pathlib import Path

import subgame

PACKAGE_ROOT = Path(subgame.__file__).parent


def module_paths(root: Path, package: str) -> dict[str, Path]:
    """Every module under the package folder ``root``, by dotted name."""
    modules = {}
    for path in root.rglob("*.py"):
        parts = [package, *path.relative_to(root).with_suffix("").parts]
        if parts[-1] == "__init__":
            parts.pop()
        modules[".".join(parts)] = path
    return modules


def imported_modules(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The modules of ``modules`` that the module ``name`` at ``path`` imports anywhere."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names if alias.name in modules)
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # relative: from the package, one level up per extra dot
                base = package.split(".")[:len(package.split(".")) - node.level + 1]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module
            for alias in node.names:
                if f"{source}.{alias.name}" in modules:
                    found.add(f"{source}.{alias.name}")
                elif source in modules:
                    found.add(source)
    found.discard(name)
    return found


def import_graph(root: Path, package: str) -> dict[str, set[str]]:
    modules = module_paths(root, package)
    return {name: imported_modules(name, path, modules) for name, path in modules.items()}


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """A shortest circle through the first module (by name) on one, as the modules along
    it with the first repeated at the end; None when the graph has none."""
    for start in sorted(graph):
        came_from: dict[str, str] = {}
        queue = deque([start])
        while queue:
            node = queue.popleft()
            for following in sorted(graph[node]):
                if following == start:
                    path = [node]
                    while path[-1] != start:
                        path.append(came_from[path[-1]])
                    return [*reversed(path), start]
                if following not in came_from:
                    came_from[following] = node
                    queue.append(following)
    return None


def test_subgame_imports_no_module_that_imports_it_back():
    graph = import_graph(PACKAGE_ROOT, "subgame")
    assert "subgame.plan" in graph and "subgame.computation" in graph["subgame.plan"]
    cycle = find_cycle(graph)
    assert cycle is None, "import cycle: " + " -> ".join(cycle)


def test_the_plan_is_at_the_ground_floor():
    """The plan imports the computation's types from below it, and nothing that plans,
    stores or runs (type-only imports included)."""
    graph = import_graph(PACKAGE_ROOT, "subgame")
    assert graph["subgame.plan"] == {"subgame.computation", "subgame.errors"}
    assert graph["subgame.computation"] == set()


def write_package(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


def test_a_type_only_circle_is_found(tmp_path):
    """A circle closed by an import under TYPE_CHECKING, through a relative import and a
    package, is reported along its modules; a package gathering its submodules is none."""
    root = write_package(tmp_path / "toy", {
        "__init__.py": "from .low import Low\nfrom .high import High\n",
        "low.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
                  "    from toy.parts import Part\nclass Low: ...\n",
        "high.py": "from . import low\nclass High: ...\n",
        "parts/__init__.py": "from ..high import High\nPart = High\n",
    })
    assert find_cycle(import_graph(root, "toy")) == ["toy.high", "toy.low", "toy.parts",
                                                     "toy.high"]
    (root / "low.py").write_text("class Low: ...\n")
    assert find_cycle(import_graph(root, "toy")) is None


def test_a_deferred_import_closes_a_circle(tmp_path):
    root = write_package(tmp_path / "toy", {
        "__init__.py": "",
        "a.py": "def f():\n    from toy import b\n    return b\n",
        "b.py": "from toy.a import f\n",
    })
    assert find_cycle(import_graph(root, "toy")) == ["toy.a", "toy.b", "toy.a"]
