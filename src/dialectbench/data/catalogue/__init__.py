"""The dataset catalogue: one YAML file per task (`<task>.yaml` next to this module), validated by pydantic.

>>> cat = load_catalogue("dep")
>>> cat.entry("english").splits["test"][0].file.path
'ud/UD_English-EWT/en_ewt-ud-test.conllu'
"""

from __future__ import annotations

from functools import cache
from importlib import resources
from pathlib import Path

import yaml
from pydantic import ValidationError

from dialectbench.data.catalogue.models import (
    FORMATS,
    SPLITS,
    TASK_IDS,
    Dataset,
    Derive,
    Entry,
    FileRef,
    HFFile,
    Part,
    TaskCatalogue,
)
from dialectbench.data.errors import shown

__all__ = [
    "FORMATS", "SPLITS", "TASK_IDS", "CatalogueError", "Dataset", "Derive", "Entry", "FileRef", "HFFile",
    "Part", "TaskCatalogue", "canonical_variety", "catalogue_files", "duplicate_key", "load_catalogue",
    "load_catalogue_file",
]


_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # the C loader parses mt-region.yaml ~10x faster


class CatalogueError(ValueError):
    """A catalogue file that is not valid YAML or does not match the schema; names the file."""


def load_catalogue_file(path: str | Path) -> TaskCatalogue:
    """Parse and validate one catalogue file (unknown keys are rejected)."""
    path = Path(path)
    loader = None
    try:
        loader = _LOADER(path.read_text(encoding="utf-8"))
        node = loader.get_single_node()  # composed, checked, then built: what yaml.load does, plus the check
        twice = duplicate_key(node)
        if twice:
            raise CatalogueError(f"{path}:{twice}")
        data = loader.construct_document(node) if node is not None else None
        return TaskCatalogue.model_validate(data)
    except yaml.YAMLError as err:
        raise CatalogueError(f"{path}: not valid YAML: {err}") from None
    except ValidationError as err:
        raise CatalogueError(f"{path}: {err}") from None
    finally:
        if loader is not None:
            loader.dispose()


def duplicate_key(root: yaml.Node | None) -> str | None:
    """"line: problem" for a mapping of the composed YAML `root` that has one key twice (YAML keeps the last
    silently: `task: tc` then `task: sa` would validate as sa); None when every key is once. Walked without
    recursion: the composer has already bounded the depth."""
    stack = [root]
    while stack:
        node = stack.pop()
        if isinstance(node, yaml.MappingNode):
            seen: dict[object, int] = {}
            for key, value in node.value:
                name = key.value if isinstance(key, yaml.ScalarNode) else None
                if name is not None and name in seen and name != "<<":
                    return (f"{key.start_mark.line + 1}: key {shown(str(name))} appears twice in one mapping "
                            f"(first on line {seen[name]}); YAML would keep only the last")
                if name is not None:
                    seen[name] = key.start_mark.line + 1
                stack.extend((key, value))
        elif isinstance(node, yaml.SequenceNode):
            stack.extend(node.value)
    return None


def catalogue_files() -> dict[str, Path]:
    """task id -> the packaged catalogue file."""
    root = resources.files(__package__)
    return {t: Path(str(root / f"{t}.yaml")) for t in TASK_IDS}


@cache
def load_catalogue(task: str) -> TaskCatalogue:
    """The packaged catalogue of one task (cached)."""
    files = catalogue_files()
    if task not in files:
        raise CatalogueError(f"unknown task {task!r}; valid task ids: {', '.join(TASK_IDS)}")
    return load_catalogue_file(files[task])


def canonical_variety(variety: str) -> str:
    """The registry's canonical name for `variety` (an alias or another spelling), or `variety` itself
    when the registry does not know it: the name a catalogue entry is keyed by."""
    from dialectbench.varieties import UnknownVarietyError, registry

    try:
        return registry().get(variety).name
    except UnknownVarietyError:
        return variety
