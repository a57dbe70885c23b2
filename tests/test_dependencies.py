"""pyproject.toml declares every third-party library the package imports (issue 28, item 4).

The imports are read from the source with ast (every `import x` / `from x import y`, at module level or
inside a function, outside `if TYPE_CHECKING:`), not guessed: a library the code imports but the install
does not declare works only where something else happened to pull it in (markupsafe via jinja2,
pycrfsuite via sklearn-crfsuite, huggingface_hub via transformers)."""

from __future__ import annotations

import ast
import re
import sys
import tomllib
from importlib import metadata
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src" / "dialectbench"
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["project"]


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def imported_modules(tree: ast.AST) -> dict[str, list[int]]:
    """Top-level module name -> the lines importing it (absolute imports only; TYPE_CHECKING blocks skipped)."""
    found: dict[str, list[int]] = {}

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            for child in node.orelse:
                visit(child)
            return
        names = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module]
        for name in names:
            found.setdefault(name.partition(".")[0], []).append(node.lineno)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    return found


def third_party_imports() -> dict[str, list[str]]:
    """Every third-party top-level module imported under src/dialectbench -> 'file:line' of each import."""
    out: dict[str, list[str]] = {}
    for path in sorted(SRC.rglob("*.py")):
        tree = ast.parse(path.read_text("utf-8"), str(path))
        for module, lines in imported_modules(tree).items():
            if module in sys.stdlib_module_names or module in ("dialectbench", "__future__"):
                continue
            out.setdefault(module, []).extend(f"{path.relative_to(ROOT)}:{n}" for n in lines)
    return out


def canonical(name: str) -> str:
    """PEP 503 normalized distribution name (Jinja2 = jinja2, huggingface_hub = huggingface-hub)."""
    return re.sub(r"[-_.]+", "-", name).lower()


def requirement_name(requirement: str) -> str:
    return canonical(re.match(r"[A-Za-z0-9][A-Za-z0-9._-]*", requirement).group())


def declared(project: dict) -> set[str]:
    """Distribution names in the core dependencies and every extra (self-references left out)."""
    reqs = list(project["dependencies"])
    for group in project.get("optional-dependencies", {}).values():
        reqs += group
    return {requirement_name(r) for r in reqs} - {canonical(project["name"])}


def undeclared(imports: dict[str, list[str]], names: set[str]) -> list[str]:
    """Import names none of whose distributions is declared, with where they are imported."""
    dists = metadata.packages_distributions()
    bad = []
    for module, where in sorted(imports.items()):
        # a library not installed here (datasets: the fetch extra, which the tests never import) can only
        # be declared under its import name
        candidates = {canonical(d) for d in dists.get(module, [module])}
        if not candidates & names:
            bad.append(f"{module} (imported at {where[0]}) comes from {', '.join(sorted(candidates))}, "
                       "which pyproject.toml does not declare")
    return bad


IMPORTS = third_party_imports()


def test_the_scan_sees_the_libraries_the_issue_names():
    # guards the ast walk: function-level imports (datasets, huggingface_hub in data/fetch.py) count too
    assert {"pycrfsuite", "markupsafe", "huggingface_hub", "datasets", "jinja2", "torch", "yaml",
            "sklearn"} <= set(IMPORTS)
    assert not {"os", "json", "dialectbench", "__future__"} & set(IMPORTS)


def test_every_third_party_import_is_declared():
    assert undeclared(IMPORTS, declared(PROJECT)) == []


@pytest.mark.parametrize(("module", "dist"), [("markupsafe", "markupsafe"), ("pycrfsuite", "python-crfsuite"),
                                              ("huggingface_hub", "huggingface-hub"), ("yaml", "pyyaml"),
                                              ("datasets", "datasets")])
def test_the_check_fails_when_a_declaration_is_removed(module, dist):
    """Honesty: drop one library from a copy of pyproject.toml and the check names it."""
    project = dict(PROJECT)
    project["dependencies"] = [r for r in PROJECT["dependencies"] if requirement_name(r) != dist]
    project["optional-dependencies"] = {k: [r for r in v if requirement_name(r) != dist]
                                        for k, v in PROJECT["optional-dependencies"].items()}
    assert dist not in declared(project)
    bad = undeclared({module: IMPORTS[module]}, declared(project))
    assert len(bad) == 1 and bad[0].startswith(f"{module} (imported at src/dialectbench/") and dist in bad[0]


def test_the_hub_libraries_are_imported_only_inside_functions():
    """datasets and huggingface_hub are the fetch extra: no module imports them at import time."""
    for path in sorted(SRC.rglob("*.py")):
        tree = ast.parse(path.read_text("utf-8"))
        top = [n for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))]
        names = {a.name.partition(".")[0] for n in top if isinstance(n, ast.Import) for a in n.names}
        names |= {n.module.partition(".")[0] for n in top if isinstance(n, ast.ImportFrom) and n.module}
        assert not names & {"datasets", "huggingface_hub"}, path


def test_constraints_pin_every_declared_library_exactly():
    """constraints.txt is the exact tested set: one `name==version` per declared distribution, and the
    ranges of pyproject.toml admit it."""
    pins = {}
    for line in (ROOT / "constraints.txt").read_text("utf-8").splitlines():
        line = line.split("#")[0].strip()
        if line:
            name, sep, version = line.partition("==")
            assert sep and re.fullmatch(r"[0-9][0-9A-Za-z.+]*", version), line
            pins[canonical(name)] = version
    assert set(pins) == declared(PROJECT)
    for req in PROJECT["dependencies"] + [r for g in PROJECT["optional-dependencies"].values() for r in g]:
        name = requirement_name(req)
        if name == canonical(PROJECT["name"]):
            continue
        spec = req.split("#")[0].strip()[len(re.match(r"[A-Za-z0-9._-]+(\[[^\]]*\])?", req).group()):]
        assert _admits(spec, pins[name]), (req, pins[name])
        if name != "torch" and "==" not in spec:
            assert re.fullmatch(r">=[0-9.]+,<[0-9.]+", spec), req  # a compatible range, not a pin


def _version(v: str) -> tuple[int, ...]:
    return tuple(int(p) for p in re.match(r"[0-9]+(\.[0-9]+)*", v).group().split("."))


def _admits(spec: str, version: str) -> bool:
    v = _version(version)
    for clause in filter(None, (c.strip() for c in spec.split(","))):
        op, bound = re.fullmatch(r"(==|>=|<)\s*(\S+)", clause).groups()
        b = _version(bound)
        if (op == "==" and v[:len(b)] + (0,) * (len(b) - len(v)) != b) or (op == ">=" and v < b) or (
                op == "<" and v >= b):
            return False
    return True
