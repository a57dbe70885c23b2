"""Every docstring example in the package runs. The modules are listed here and checked against the source
tree, so an example added elsewhere, or a module whose examples were all deleted, fails this test instead
of passing with nothing run."""

from __future__ import annotations

import doctest
import importlib
from pathlib import Path

import pytest

import dialectbench

# module -> its runnable examples (report's one example writes a report: `# doctest: +SKIP`, none run)
EXAMPLES = {
    "dialectbench.tasks": 4,
    "dialectbench.tasks.kinds": 2,
    "dialectbench.tasks.naming": 3,
    "dialectbench.varieties": 3,
    "dialectbench.data": 3,
    "dialectbench.data.source": 2,
    "dialectbench.data.catalogue": 2,
    "dialectbench.analysis.reference": 3,
    "dialectbench.metrics.signature": 4,
    "dialectbench.report": 0,
}


def _modules_with_examples() -> set[str]:
    root = Path(dialectbench.__file__).parent
    found = set()
    for path in root.rglob("*.py"):
        if ">>> " in path.read_text(encoding="utf-8"):
            parts = path.relative_to(root.parent).with_suffix("").parts
            found.add(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return found


def test_every_module_with_examples_is_listed():
    assert _modules_with_examples() == set(EXAMPLES)


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_docstring_examples_run(name):
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
    assert result.attempted == EXAMPLES[name]  # none deleted, none silently skipped
