"""The DialectBench naming convention (DialectBench section 2).

A variety is named ``{Glottolog name} (a:…, r:…, m:…, o:…, i:…)``: area, register, mode, orthography and
a dataset-specific identifier, each optional, written in that order. A trailing parenthesis without any
``key:`` inside belongs to the Glottolog name itself (e.g. ``old english (ca. 450-1100)``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# Attribute keys in the paper's order, with the field each one fills.
ATTRIBUTE_KEYS: dict[str, str] = {
    "a": "area",
    "r": "register",
    "m": "mode",
    "o": "orthography",
    "i": "identifier",
}
_WS = re.compile(r"\s+")
_ATTR_GROUP = re.compile(r"\([^)]*:[^)]*\)")


class VarietyError(ValueError):
    """Base class of every registry error about a variety name."""


class MalformedVarietyName(VarietyError):
    """A name that does not follow the convention; the message names the problem."""

    def __init__(self, name: str, problem: str):
        self.name = name
        self.problem = problem
        super().__init__(f"malformed variety name {name!r}: {problem}")


@dataclass(frozen=True)
class ParsedName:
    glottolog_name: str
    attributes: dict[str, str]  # field name (area, register, ...) -> value, in convention order

    def __str__(self) -> str:
        return format_name(self.glottolog_name, self.attributes)


def format_name(glottolog_name: str, attributes: dict[str, str | None]) -> str:
    """Canonical string: attributes in the paper's order, ``key:value`` joined by ``, ``."""
    parts = [f"{key}:{attributes[field]}" for key, field in ATTRIBUTE_KEYS.items() if attributes.get(field)]
    return f"{glottolog_name} ({', '.join(parts)})" if parts else glottolog_name


def _check_parens(name: str) -> None:
    depth = 0
    for ch in name:
        depth += {"(": 1, ")": -1}.get(ch, 0)
        if depth < 0:
            raise MalformedVarietyName(name, "')' without a matching '('")
        if depth > 1:
            raise MalformedVarietyName(name, "nested parentheses")
    if depth:
        raise MalformedVarietyName(name, "'(' is never closed")


def _split_trailing_group(name: str) -> tuple[str, str | None]:
    """Split ``base (group)`` -> (base, group); (name, None) when the name does not end in a group."""
    if not name.endswith(")"):
        if ")" in name:
            raise MalformedVarietyName(name, "text after the closing parenthesis")
        return name, None
    open_at = name.rfind("(")
    base = name[:open_at].strip()
    if _ATTR_GROUP.search(base):
        raise MalformedVarietyName(name, "more than one attribute parenthesis")
    return base, name[open_at + 1:-1]


def _parse_attributes(name: str, group: str) -> dict[str, str]:
    found: dict[str, str] = {}
    for item in group.split(","):
        key, sep, value = item.partition(":")
        key, value = key.strip().lower(), _WS.sub(" ", value).strip()
        if not sep:
            raise MalformedVarietyName(name, f"attribute {item.strip()!r} is not of the form key:value")
        if key not in ATTRIBUTE_KEYS:
            raise MalformedVarietyName(
                name, f"unknown attribute key {key!r} (known: {', '.join(ATTRIBUTE_KEYS)})")
        field = ATTRIBUTE_KEYS[key]
        if field in found:
            raise MalformedVarietyName(name, f"attribute key {key!r} given twice")
        if not value:
            raise MalformedVarietyName(name, f"attribute {key!r} has an empty value")
        found[field] = value
    return {f: found[f] for f in ATTRIBUTE_KEYS.values() if f in found}


def parse_name(name: str) -> ParsedName:
    """Parse a variety name; raise MalformedVarietyName naming the problem."""
    if not isinstance(name, str):
        raise MalformedVarietyName(repr(name), "not a string")
    text = _WS.sub(" ", name).strip()
    if not text:
        raise MalformedVarietyName(name, "empty name")
    _check_parens(text)
    base, group = _split_trailing_group(text)
    if group is None or ":" not in group:
        if group is not None and not group.strip():
            raise MalformedVarietyName(name, "empty parentheses")
        return ParsedName(text, {})
    if not base:
        raise MalformedVarietyName(name, "no Glottolog name before the attributes")
    return ParsedName(base, _parse_attributes(name, group))
