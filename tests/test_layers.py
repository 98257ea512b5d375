"""The house's layers, read from the source (no module is imported): kinds stand on the core and
never reach into the web app, and no module takes part in an import circle.

Every import counts, at module level or inside a function (an import moved into a function
still ties the two modules together); only imports under ``if TYPE_CHECKING:``, which never
run, are left out.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("simcore", "scheduling", "uav", "hetsite", "frontend")
KIND_TREES = ("scheduling", "uav")
# What a kind may not import: the web app, its pages, and the web frameworks under them.
WEB = ("hetsite", "frontend", "django", "rest_framework", "celery")
# What the core may not import: anything above it. Kinds, the shared domain libraries beside
# them (scheduling.hpc: the SWF reader, the trace library) and the web side all stand on it.
ABOVE_CORE = ("scheduling", "uav") + WEB


def _modules(root: Path, packages) -> dict[str, Path]:
    out = {}
    for package in packages:
        for path in sorted((root / package).rglob("*.py")):
            rel = path.relative_to(root).with_suffix("")
            parts = list(rel.parts)
            if "migrations" in parts:
                continue
            if parts[-1] == "__init__":
                parts.pop()
            out[".".join(parts)] = path
    return out


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _imports(tree: ast.AST):
    """Every import node that runs, at any depth."""
    stack = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.If) and _is_type_checking(node):
            stack.extend(node.orelse)
            continue
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
        stack.extend(ast.iter_child_nodes(node))


def imported_names(module: str, path: Path, modules=None) -> list[tuple[str, int]]:
    """Dotted names ``module`` imports, with line numbers: ``from a import b`` gives ``a.b``,
    and ``a`` too unless every name imported is a module of ``modules``."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    out = []
    for node in _imports(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            out += [(alias.name, node.lineno) for alias in node.names]
            continue
        base = node.module or ""
        if node.level:
            anchor = package.split(".")
            anchor = anchor[:len(anchor) - (node.level - 1)]
            base = ".".join(anchor + ([base] if base else []))
        out += [(f"{base}.{alias.name}", node.lineno) for alias in node.names]
        if modules is None or any(f"{base}.{a.name}" not in modules for a in node.names):
            out.append((base, node.lineno))  # a name defined in ``base`` itself
    return out


def import_graph(root: Path, packages=PACKAGES) -> dict[str, set[str]]:
    """Project module -> the project modules it imports."""
    modules = _modules(root, packages)
    graph = {}
    for module, path in modules.items():
        graph[module] = {name for name, _ in imported_names(module, path, modules)
                         if name in modules and name != module}
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return sorted(found)


def web_imports(root: Path, trees=KIND_TREES, forbidden=WEB) -> list[str]:
    """``file:line imports name`` for every import of the web side (or of another ``forbidden``
    top-level package) inside a kind (a Django ``apps.py`` aside)."""
    out = []
    for module, path in _modules(root, trees).items():
        if path.name == "apps.py":
            continue
        for name, line in imported_names(module, path):
            if name.split(".")[0] in forbidden:
                out.append(f"{path.relative_to(root)}:{line} imports {name}")
    return sorted(set(out))


def test_no_kind_imports_the_web_app():
    assert web_imports(ROOT) == []


def test_the_core_imports_nothing_above_it():
    """No trace format in the core: the SWF reader and the trace library are the HPC kinds'
    (scheduling.hpc), and a kind hands its run the uploads it may name, not a trace library."""
    assert web_imports(ROOT, ("simcore",), ABOVE_CORE) == []


def test_importing_every_core_module_loads_no_kind_and_no_trace_reader():
    modules = sorted(m for m in _modules(ROOT, ("simcore",)) if m != "simcore.__main__")
    code = ("import sys\n" + "".join(f"import {m}\n" for m in modules) +
            "print('\\n'.join(m for m in sys.modules if m.split('.')[0] in "
            f"{ABOVE_CORE!r} or 'swf' in m or 'traces' in m))")
    loaded = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                            text=True, check=True).stdout.split()
    assert "simcore.registry" in modules and "simcore.lab" in modules
    assert loaded == []


# Folders of scheduling/ that are not kinds: the engine facade and the shared HPC library.
NOT_KINDS = ("engine", "hpc")


def sideways_imports(root: Path) -> list[str]:
    """``file:line imports name`` for every import of one kind's folder from another kind's
    folder or from the shared library (what two kinds share lives in scheduling/hpc)."""
    out = []
    for module, path in _modules(root, ("scheduling",)).items():
        parts = module.split(".")
        if len(parts) < 2 or parts[1] == "engine":  # the facade names its kinds' modules
            continue
        for name, line in imported_names(module, path):
            other = name.split(".")
            if other[0] == "scheduling" and len(other) > 1 and other[1] not in (
                    parts[1], *NOT_KINDS):
                out.append(f"{path.relative_to(root)}:{line} imports {name}")
    return sorted(set(out))


def test_no_kind_borrows_from_another_kind():
    assert sideways_imports(ROOT) == []


def test_no_module_takes_part_in_an_import_circle():
    assert circles(import_graph(ROOT)) == []


def _write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def test_the_checks_see_circles_inside_functions_and_web_imports_of_a_kind(tmp_path):
    """The two checks above on a made-up tree: they would fail on the real one too."""
    _write(tmp_path, {
        "hetsite/__init__.py": "",
        "hetsite/celery.py": "def f():\n    from .services import execution\n",
        "hetsite/services/__init__.py": "",
        "hetsite/services/execution.py": "from ..celery import app\n",
        "hetsite/typed.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
                            "    from . import other\n",
        "hetsite/other.py": "from . import typed\n",
        "scheduling/__init__.py": "",
        "scheduling/apps.py": "from django.apps import AppConfig\n",
        "scheduling/toy/__init__.py": "",
        "scheduling/toy/lab.py": "import os\n\ndef hook():\n    from hetsite.uploads import x\n",
        "scheduling/toy/form.py": "from django import forms\n",
        "scheduling/hpc/__init__.py": "",
        "scheduling/hpc/loop.py": "from scheduling.toy import sim\n",
        "scheduling/other/__init__.py": "from scheduling.hpc import loop\n"
                                        "from scheduling.engine import ENGINE\n"
                                        "from ..toy.lab import hook\n",
        "simcore/__init__.py": "",
        "simcore/registry.py": "from .clock import RunClock\n"
                               "from scheduling.hpc.traces import TraceLibrary\n",
    })
    graph = import_graph(tmp_path, ("hetsite", "scheduling"))
    assert circles(graph) == [["hetsite.celery", "hetsite.services.execution"]]
    assert web_imports(tmp_path) == ["scheduling/toy/form.py:1 imports django",
                                     "scheduling/toy/form.py:1 imports django.forms",
                                     "scheduling/toy/lab.py:4 imports hetsite.uploads",
                                     "scheduling/toy/lab.py:4 imports hetsite.uploads.x"]
    assert sideways_imports(tmp_path) == [
        "scheduling/hpc/loop.py:1 imports scheduling.toy",
        "scheduling/hpc/loop.py:1 imports scheduling.toy.sim",
        "scheduling/other/__init__.py:3 imports scheduling.toy.lab",
        "scheduling/other/__init__.py:3 imports scheduling.toy.lab.hook"]
    assert web_imports(tmp_path, ("simcore",), ABOVE_CORE) == [
        "simcore/registry.py:2 imports scheduling.hpc.traces",
        "simcore/registry.py:2 imports scheduling.hpc.traces.TraceLibrary"]
