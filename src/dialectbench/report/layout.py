"""What a report table is: its columns and raw rows (`Column`, `Table`), apart from the layouts that fill
one (`tables` for the benchmark's, `sdqa` for SD-QA's) and the renderers, so that neither layout imports
the other's module. `dialectbench.report.tables` re-exports both.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Column:
    """`key` names the row field (for kind "ci": the pair of low/high fields); kind: text, num, int, ci, bool."""

    key: str | tuple[str, str]
    label: str
    kind: str = "text"
    digits: int = 1

    @property
    def csv_keys(self) -> list[str]:
        return list(self.key) if isinstance(self.key, tuple) else [self.key]


@dataclass
class Table:
    key: str
    title: str
    columns: list[Column]
    rows: list[dict[str, Any]]
    task: str | None = None
    note: str = ""
    row_variety: str | None = None  # the field holding a variety name (the HTML search filters on it)
    extra: dict[str, Any] = field(default_factory=dict)
