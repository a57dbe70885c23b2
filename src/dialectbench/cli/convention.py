"""The one CLI convention (README "Command-line conventions"): a single spelling per concept, old spellings as
hidden aliases that say they are deprecated, and no option that silently keeps the last of two values."""

from __future__ import annotations

from collections import Counter
from typing import Any

import typer
from typer.core import TyperGroup


class StrictGroup(TyperGroup):
    """A command group whose commands refuse an option given twice when it takes one value (click would keep
    the last one silently: `-t dep -t pos` ran pos only). Options that take lists accumulate instead."""

    def resolve_command(self, ctx: Any, args: list[str]) -> tuple[str | None, Any, list[str]]:
        name, cmd, rest = super().resolve_command(ctx, args)
        if cmd is not None and not hasattr(cmd, "commands") and not ctx.resilient_parsing:
            _refuse_repeats(cmd, ctx, rest)
        return name, cmd, rest


def _refuse_repeats(cmd: Any, ctx: Any, args: list[str]) -> None:
    try:  # a dry parse for the order the options came in; a bad command line fails in the real parse
        _, _, order = cmd.make_parser(ctx).parse_args(args=list(args))
    except Exception:  # noqa: BLE001 - the real parse reports it, with the command's own context
        return
    seen = Counter(p for p in order if getattr(p, "param_type_name", "") == "option" and not p.multiple
                   and not p.is_flag and not getattr(p, "count", False))
    for param, times in seen.items():
        if times > 1:
            name = max(param.opts, key=len)
            raise typer.BadParameter(f"given {times} times; it takes one value (list options take "
                                     "comma-separated values or repeat)", param_hint=f"'{name}'")


def deprecated(*names: str, use: str, default: Any = None) -> Any:
    """A hidden old spelling of an option (kept so existing scripts still run; help shows only `use`)."""
    return typer.Option(default, *names, hidden=True, help=f"Deprecated: use {use}.")


def prefer(new: Any, old: Any, old_name: str, new_name: str) -> Any:
    """The value of `new_name`, or of its deprecated spelling `old_name` (with a one-line note on stderr).
    Lists from both accumulate; a single value given both ways is an error."""
    from dialectbench.cli.output import fail, warn

    if old is None or old == [] or old is False:
        return new
    warn(f"{old_name} is deprecated; use {new_name}", label="note:", style="cyan")
    if isinstance(old, list):
        return [*(new or []), *old]
    if new is not None and new != [] and new is not False:
        fail(f"give {new_name} once (not also as {old_name})")
    return old


def comma_list(values: list[str] | str | None) -> list[str] | None:
    """`-t dep,pos -t ner` -> ['dep', 'pos', 'ner'] (None when nothing was given); commas inside a variety
    name's parentheses do not split it."""
    from dialectbench.runner.plan import split_names

    items = split_names(values) if values else None
    return items or None


def one_of(values: list[str] | None, option: str) -> str | None:
    """A list option of a command that works on one item at a time: its single value, or a clear error."""
    from dialectbench.cli.output import fail

    items = comma_list(values)
    if items and len(items) > 1:
        fail(f"{option} takes one value here, not {len(items)} ({', '.join(items)})")
    return items[0] if items else None


# -- options shared by every command that takes them (one spelling, one help text)
CATALOGUE_OPTION = typer.Option(None, "--catalogue", help="Your own dataset catalogue YAML (repeatable; also "
                                "$DIALECTBENCH_CATALOGUE, paths separated by ':').")


def use_catalogues(paths: list[Any] | None) -> list[Any]:
    """Load the user's catalogues (--catalogue and $DIALECTBENCH_CATALOGUE): their varieties join the
    registry and their datasets the data sources; a bad file is a clear error."""
    from dialectbench.cli.output import fail
    from dialectbench.data.user_catalogue import UserCatalogueError, use_user_catalogues

    try:
        return use_user_catalogues(paths or [])
    except UserCatalogueError as err:
        fail(str(err))
    return []
