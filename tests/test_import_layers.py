"""The import graph of `src/dialectbench`, read from the source with `ast`: no cycle between modules and no
package importing a higher one (the layer order below, the same as the README's Development section).

Every `import` / `from ... import` counts, at module level and inside functions (a lazy import is still a
dependency), except those under `if TYPE_CHECKING:`; relative imports are resolved. `importlib` calls
with computed names (the PEP 562 tables of `metrics`, `runner`, `backends`) are not read: they name the
package's own submodules.
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

PACKAGE = "dialectbench"
SRC = Path(__file__).resolve().parents[1] / "src"
ROOT = SRC / PACKAGE

# Lowest first. A package may import its own modules and those of any lower level; one level's packages
# (a tuple) import neither each other nor anything above. "dialectbench" is the package's __init__ alone.
LAYERS: list[tuple[str, ...]] = [
    ("dialectbench",),                  # __version__ only
    ("progress", "scores", "extras", "lazy"),  # primitives: a fit's progress, score ids, extras, lazy exports
    ("varieties",),                     # the variety registry, names, aliases
    ("tasks",),                         # the task registry (metric, representatives)
    ("metrics",),                       # task metrics on the field's libraries
    ("data",),                          # catalogues, readers, the data source, fetch
    ("backends",),                      # the models: baselines, Hugging Face, LLMs
    ("perturb",),                       # synthetic varieties (its analyzer tags with a baseline)
    ("analysis",),                      # gaps, summaries, reference comparison over stored scores
    ("runner",),                        # plan, execute, store; its run summary uses analysis
    ("sdqa", "interop"),                # the SD-QA study; bridges to other tools (lm-eval export/import)
    ("report",),                        # tables, figures, HTML over runs, analyses and SD-QA
    ("cli",),                           # the commands
    ("__main__",),                      # `python -m dialectbench`: the commands
]

# Edges (importer module, imported module) that break the rules today, each with why it is still there.
# The test fails on any violation not listed here and on a listed one that is gone (remove it then).
KNOWN_VIOLATIONS: dict[tuple[str, str], str] = {}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES = {_module_name(p): p for p in sorted(ROOT.rglob("*.py"))}


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _imported_names(path: Path, module: str) -> list[tuple[str, int]]:
    """(dotted name, line) of every import in the file outside `if TYPE_CHECKING:` blocks."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: list[tuple[str, int]] = []

    def visit(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and _is_type_checking(child.test):
                for other in child.orelse:
                    visit_node(other)
                continue
            visit_node(child)

    def visit_node(node: ast.AST) -> None:
        if isinstance(node, ast.Import):
            found.extend((alias.name, node.lineno) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                origin = ".".join(base + ([node.module] if node.module else []))
            else:
                origin = node.module or ""
            for alias in node.names:  # `from pkg import submodule` imports the submodule
                full = f"{origin}.{alias.name}"
                found.append((full if full in MODULES else origin, node.lineno))
        else:
            visit(node)

    visit(ast.parse(path.read_text(encoding="utf-8"), str(path)))
    return found


def _resolve(name: str) -> str | None:
    """The module of ours a dotted name lands in (`dialectbench.runner.progress.report` -> the module)."""
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name or None


def import_graph() -> dict[str, dict[str, int]]:
    """module -> {imported module of ours: first line importing it}."""
    graph: dict[str, dict[str, int]] = {}
    for module, path in MODULES.items():
        edges: dict[str, int] = {}
        for name, line in _imported_names(path, module):
            if name != PACKAGE and not name.startswith(PACKAGE + "."):
                continue
            target = _resolve(name)
            if target is not None and target != module:
                edges.setdefault(target, line)
        graph[module] = edges
    return graph


def layer_of(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else PACKAGE


LEVEL = {name: i for i, level in enumerate(LAYERS) for name in level}


def cycles(graph: dict[str, dict[str, int]]) -> list[list[str]]:
    """One cycle (a list of modules, the first repeated at the end) per strongly connected component."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[list[str]] = []

    def connect(v: str) -> None:  # Tarjan's algorithm
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                connect(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                components.append(component)

    old = sys.getrecursionlimit()
    sys.setrecursionlimit(max(old, 10 * len(graph) + 100))
    try:
        for v in sorted(graph):
            if v not in index:
                connect(v)
    finally:
        sys.setrecursionlimit(old)

    found = []
    for component in components:  # a shortest path back to the start, within the component
        members, start = set(component), min(component)
        paths = {start: [start]}
        queue = [start]
        while queue:
            v = queue.pop(0)
            for w in sorted(graph[v]):
                if w == start:
                    found.append([*paths[v], start])
                    queue = []
                    break
                if w in members and w not in paths:
                    paths[w] = [*paths[v], w]
                    queue.append(w)
    return found


def layer_violations(graph: dict[str, dict[str, int]]) -> dict[tuple[str, str], str]:
    """(importer, imported) -> why, for every import of a higher or a same-level other package."""
    out = {}
    for module, edges in graph.items():
        mine = layer_of(module)
        for target, line in edges.items():
            theirs = layer_of(target)
            if theirs == mine:
                continue
            if LEVEL[theirs] >= LEVEL[mine]:
                how = "higher" if LEVEL[theirs] > LEVEL[mine] else "same-level"
                out[(module, target)] = f"{MODULES[module].relative_to(SRC)}:{line} imports {how} {theirs!r}"
    return out


def test_every_package_is_in_a_layer():
    packages = {layer_of(m) for m in MODULES}
    assert packages - set(LEVEL) == set(), "add the new package to LAYERS (and the README's Development section)"
    assert set(LEVEL) - packages == set(), "LAYERS names a package that is gone"
    assert len(LEVEL) == sum(len(level) for level in LAYERS), "a package is in two layers"


def test_the_graph_is_read_from_the_source():
    """The reader sees what it must: a function-level import, a relative one, a TYPE_CHECKING one skipped."""
    graph = import_graph()
    assert "dialectbench.runner.ray_executor" in graph["dialectbench.runner.executors"]  # inside a function
    assert "dialectbench.data.source" in graph["dialectbench.data.user_catalogue"]  # inside a function
    # varieties/aliases.py imports the registry only for type checking; the registry imports it lazily
    assert "dialectbench.varieties.registry" not in graph["dialectbench.varieties.aliases"]
    assert "dialectbench.varieties.aliases" in graph["dialectbench.varieties.registry"]
    assert "dialectbench.progress" in graph["dialectbench.backends.baseline.tagging"]


def test_no_import_cycles():
    found = cycles(import_graph())
    assert found == [], "import cycles:\n" + "\n".join("  " + " -> ".join(c) for c in found)


def test_no_package_imports_a_higher_one():
    violations = layer_violations(import_graph())
    new = {k: v for k, v in violations.items() if k not in KNOWN_VIOLATIONS}
    gone = sorted(set(KNOWN_VIOLATIONS) - set(violations))
    assert not new, "imports against LAYERS:\n" + "\n".join("  " + why for why in sorted(new.values()))
    assert not gone, f"KNOWN_VIOLATIONS lists imports that are gone (remove them): {gone}"


def test_importing_the_crf_tagger_does_not_load_the_runner():
    code = ("import sys, dialectbench.backends.baseline.tagging, dialectbench.runner.flags\n"
            "print(sorted(m for m in sys.modules if m.startswith('dialectbench.runner')))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={**os.environ, "PYTHONPATH": str(SRC)}).stdout
    assert out.strip() == "['dialectbench.runner', 'dialectbench.runner.flags']", out
