"""The Variety record: a name in the paper's convention plus what Table 8 and the metadata say about it."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from dialectbench.varieties.naming import ATTRIBUTE_KEYS, format_name, parse_name


@dataclass(frozen=True)
class Variety:
    """One language variety. Only the name parts are required; the registry fills in the rest."""

    glottolog_name: str
    area: str | None = None
    register: str | None = None
    mode: str | None = None
    orthography: str | None = None
    identifier: str | None = None
    cluster: str = ""
    glottocode: str | None = None
    tasks: frozenset[str] = frozenset()
    mbert_seen: bool = False
    speakers: int | None = None
    speakers_note: str | None = None  # e.g. "antiquated", "written only" where no count exists
    nllb_code: str | None = None  # FLORES-200 / NLLB code, e.g. "eng_Latn", where the data used one
    original_id: str | None = None  # the variety's id in the original DialectBench code, e.g. "english/standard"
    codes: Mapping[str, str] = field(default_factory=dict, hash=False)  # task id -> dataset code
    name: str = field(init=False, default="")  # canonical string, derived from the parts above

    def __post_init__(self) -> None:
        object.__setattr__(self, "name", format_name(self.glottolog_name, self.attributes))
        object.__setattr__(self, "tasks", frozenset(self.tasks))
        object.__setattr__(self, "codes", dict(self.codes))  # a copy: callers' dicts cannot alias it

    @classmethod
    def parse(cls, name: str, **fields: Any) -> Variety:
        """Build a Variety from a name such as ``english (a:scotland)``; raises MalformedVarietyName."""
        parsed = parse_name(name)
        return cls(parsed.glottolog_name, **parsed.attributes, **fields)

    @property
    def attributes(self) -> dict[str, str]:
        """The set convention attributes, field name -> value, in the paper's order."""
        return {f: getattr(self, f) for f in ATTRIBUTE_KEYS.values() if getattr(self, f)}

    def __str__(self) -> str:
        return self.name

    def to_row(self) -> dict[str, Any]:
        """A flat dict for tables and JSON (tasks as a sorted list, codes as a dict)."""
        return {"name": self.name, "cluster": self.cluster, "glottolog_name": self.glottolog_name,
                **{f: getattr(self, f) for f in ATTRIBUTE_KEYS.values()},
                "glottocode": self.glottocode, "tasks": sorted(self.tasks), "mbert_seen": self.mbert_seen,
                "speakers": self.speakers, "speakers_note": self.speakers_note, "nllb_code": self.nllb_code,
                "original_id": self.original_id, "codes": dict(self.codes)}
