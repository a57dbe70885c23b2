"""What a catalogue entry may pass to its format's reader, read off the reader's signature: the file
arguments (those typed as paths) and the options (every other keyword), with their types. A typo'd key or a
value of the wrong type is then named, with the valid choices, before any data is read, instead of reaching
the reader as "unexpected keyword argument" or an AttributeError deep in a run."""

from __future__ import annotations

import codecs
import encodings.aliases
import functools
import inspect
import types
import typing
from collections import abc
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, Union

from dialectbench.data.errors import near, shown


@dataclass(frozen=True)
class Arguments:
    files: dict[str, bool]  # file argument -> required
    options: dict[str, Any]  # option -> the type a YAML value must have
    required: frozenset[str]  # options without a default


@functools.cache
def arguments(fmt: str) -> Arguments:
    """The file arguments and options of a format's reader (`READERS[fmt]`)."""
    from dialectbench.data.readers import READERS

    reader = READERS[fmt]
    hints = typing.get_type_hints(reader)
    files, options, required = {}, {}, set()
    for name, param in inspect.signature(reader).parameters.items():
        must = param.default is inspect.Parameter.empty
        hint = hints[name]
        if _has(hint, Path):  # a file; `subset` may also be a list of row indices, an option
            files[name] = must
            rest = [a for a in typing.get_args(hint) if a not in (str, Path, type(None))]
            if not rest:
                continue
            hint = Union[(*rest, type(None))]
        options[name] = _yaml_type(hint)
        if must:
            required.add(name)
    return Arguments(files, options, frozenset(required))


def _has(hint: Any, kind: type) -> bool:
    return hint is kind or any(_has(a, kind) for a in typing.get_args(hint))


def _yaml_type(hint: Any) -> Any:
    """The reader's hint as YAML gives values: Sequence/Collection -> list, Mapping -> dict."""
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin in (Union, types.UnionType):
        return Union[tuple(_yaml_type(a) for a in args)]  # noqa: UP007
    if origin in (abc.Sequence, abc.Collection):
        return list[_yaml_type(args[0])]  # type: ignore[misc]
    if origin is abc.Mapping:
        return dict[_yaml_type(args[0]), _yaml_type(args[1])]  # type: ignore[misc]
    return hint


def _matches(value: Any, hint: Any) -> bool:
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin in (Union, types.UnionType):
        return any(_matches(value, a) for a in args)
    if origin is Literal:
        return any(value == a and type(value) is type(a) for a in args)
    if origin is list:
        return isinstance(value, list) and all(_matches(v, args[0]) for v in value)
    if origin is dict:
        return isinstance(value, dict) and all(_matches(k, args[0]) and _matches(v, args[1])
                                               for k, v in value.items())
    if hint is type(None):
        return value is None
    if hint is int:
        return isinstance(value, int) and not isinstance(value, bool)
    return isinstance(value, hint)


def type_text(hint: Any) -> str:
    """A hint as a reader of the catalogue writes values: "an integer or a string", "a list of strings"."""
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin in (Union, types.UnionType):
        return " or ".join(type_text(a) for a in args)
    if origin is Literal:
        return "one of " + ", ".join(repr(a) for a in args)
    if origin is list:
        return f"a list of ({type_text(args[0])})"
    if origin is dict:
        return f"a mapping of ({type_text(args[0])}) to ({type_text(args[1])})"
    return {int: "an integer", str: "a string", bool: "true or false", type(None): "null"}.get(hint, str(hint))


def problems(fmt: str, files: Collection[str], options: Mapping[Any, Any]) -> list[tuple[tuple[str, ...], str]]:
    """(("files"|"options", key) or (), problem) for each argument the format's reader cannot take."""
    spec = arguments(fmt)
    out: list[tuple[tuple[str, ...], str]] = []
    for name in files:
        if name not in spec.files:
            problem = (f"{fmt} reads no file {shown(str(name))}{near(str(name), spec.files)} "
                       f"(its files: {', '.join(spec.files)})")
            out.append((("files", name), problem))
    for name in (n for n, must in spec.files.items() if must and n not in files):
        out.append(((), f"{fmt} needs the file {name!r} (files: {{{name}: {{path: ...}}}})"))
    for name, value in options.items():
        key = str(name)
        if name not in spec.options:
            hint = near(key, spec.options) or (f"; {key!r} is a file: give it under files:" if key in spec.files
                                                else "")
            out.append((("options", key), f"unknown {fmt} option {shown(key)}{hint} (options: "
                                          + ", ".join(spec.options) + ")"))
        elif not _matches(value, spec.options[name]):
            found = shown(repr(value), quote=False)
            out.append((("options", key), f"option {key}: expected {type_text(spec.options[name])}, found {found}"))
        else:
            problem = _VALUES.get(key, lambda v, o: None)(value, options)
            if problem:
                out.append((("options", key), f"option {key}: {problem}"))
    for name in sorted(spec.required - set(options)):
        out.append(((), f"{fmt} needs the option {name!r} ({type_text(spec.options[name])})"))
    return out


def _encoding(value: str, options: Mapping[Any, Any]) -> str | None:
    try:
        if codecs.lookup(value)._is_text_encoding:  # type: ignore[attr-defined]
            return None
    except (LookupError, ValueError):  # ValueError: a NUL in the name
        pass
    names = sorted(set(encodings.aliases.aliases) | set(encodings.aliases.aliases.values()))
    return f"unknown text encoding {shown(value)}{near(value.lower().replace('-', '_'), names)} (e.g. utf-8, latin-1)"


def _delimiter(value: str | None, options: Mapping[Any, Any]) -> str | None:
    if value is None:
        return None
    if not value or "\n" in value or "\r" in value:
        return "a delimiter is one or more characters and no line end"
    if options.get("quoting") is True and (len(value) != 1 or value == '"'):
        return "with quoting: true the delimiter is one character other than '\"'"
    return None


_VALUES = {"encoding": _encoding, "delimiter": _delimiter}
