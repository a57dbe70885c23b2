"""Entry point: every command group registers itself from its own module."""

from __future__ import annotations

import inspect

import typer

from dialectbench import __version__
from dialectbench.cli import (
    analysis_cmds,
    data_cmds,
    export_cmds,
    models_cmds,
    perturb_cmds,
    plan_cmds,
    registry_cmds,
    report_cmds,
    run_cmds,
    sdqa_cmds,
)
from dialectbench.cli.convention import StrictGroup

app = typer.Typer(
    name="dialectbench",
    help="Measure how NLP and speech systems treat dialects and language varieties "
    "(DialectBench: 10 tasks, 281 varieties, 40 clusters; SD-QA: spoken dialectal QA).",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    cls=StrictGroup,
    context_settings={"help_option_names": ["-h", "--help"]},  # inherited by every subcommand
)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"dialectbench {__version__}")
        raise typer.Exit()


@app.callback()
def _root(version: bool = typer.Option(False, "--version", callback=_version, is_eager=True,
                                       help="Print the version and exit.")) -> None:
    """dialectbench command line."""
    from dialectbench.data.errors import plain_data_warnings

    plain_data_warnings()


for module in (registry_cmds, analysis_cmds, data_cmds, run_cmds, plan_cmds, report_cmds, sdqa_cmds, models_cmds,
               perturb_cmds, export_cmds):
    module.register(app)


def _one_line_listings(group: typer.Typer) -> None:
    """A command's line in its group's listing is its docstring's first paragraph as one flowing text: in
    rich mode typer kept the docstring's line breaks there ('... (Tables 23-31) and' / 'dialect gaps')."""
    for info in group.registered_commands:
        doc = info.help or (info.callback.__doc__ if info.callback else None)
        if info.short_help is None and doc:
            info.short_help = " ".join(inspect.cleandoc(doc).split("\n\n")[0].split())
    for sub in group.registered_groups:
        if sub.typer_instance is not None:
            _one_line_listings(sub.typer_instance)


_one_line_listings(app)

if __name__ == "__main__":
    app()
