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


# The text codecs a data file may be in. Python calls punycode, idna, raw_unicode_escape, unicode_escape,
# rot_13 and utf_7 "text encodings" too, but they transform text rather than encode a file (punycode fails on
# a file with a UnicodeError, not a decoding error), so only these are accepted, by their codec's name.
TEXT_ENCODINGS = frozenset({
    "utf_8", "utf_8_sig", "utf_16", "utf_16_le", "utf_16_be", "utf_32", "utf_32_le", "utf_32_be", "ascii",
    "latin_1", "iso8859_2", "iso8859_3", "iso8859_4", "iso8859_5", "iso8859_6", "iso8859_7", "iso8859_8",
    "iso8859_9", "iso8859_10", "iso8859_11", "iso8859_13", "iso8859_14", "iso8859_15", "iso8859_16",
    "cp1250", "cp1251", "cp1252", "cp1253", "cp1254", "cp1255", "cp1256", "cp1257", "cp1258", "cp437", "cp850",
    "cp866", "koi8_r", "koi8_u", "mac_roman", "gb2312", "gbk", "gb18030", "big5", "big5hkscs", "shift_jis",
    "cp932", "euc_jp", "iso2022_jp", "euc_kr", "cp949", "iso2022_kr", "tis_620", "cp874"})


def text_encoding(value: str) -> str | None:
    """The codec name of an accepted data-file encoding ("UTF8" -> "utf_8"), else None."""
    try:
        name = codecs.lookup(value).name.replace("-", "_")
    except (LookupError, ValueError):  # ValueError: a NUL in the name
        return None
    name = {"iso8859_1": "latin_1", "us_ascii": "ascii"}.get(name, name)
    return name if name in TEXT_ENCODINGS else None


def _encoding(value: str, options: Mapping[Any, Any]) -> str | None:
    if text_encoding(value) is not None:
        return None
    names = TEXT_ENCODINGS | {a for a, c in encodings.aliases.aliases.items() if c in TEXT_ENCODINGS}
    return (f"unknown text encoding {shown(value)}{near(value.lower().replace('-', '_'), sorted(names))} "
            "(the accepted ones are the file encodings of Python's codecs: e.g. utf-8, latin-1, cp1252, gb18030)")


def _delimiter(value: str | None, options: Mapping[Any, Any]) -> str | None:
    if value is None:
        return None
    if not value or "\n" in value or "\r" in value:
        return "a delimiter is one or more characters and no line end"
    if options.get("quoting") is True and (len(value) != 1 or value == '"'):
        return "with quoting: true the delimiter is one character other than '\"'"
    return None


_VALUES = {"encoding": _encoding, "delimiter": _delimiter}
