from typer.testing import CliRunner

from dialectbench import __version__
from dialectbench.cli.main import app


def test_version_flag_prints_package_version():
    result = CliRunner().invoke(app, ["--version"])
    assert result.exit_code == 0
    assert __version__ in result.stdout


def test_error_messages_are_never_wrapped(tmp_path):
    # longer than any terminal: rich would fold it at 80 columns when stderr is not a terminal
    missing = tmp_path / ("x" * 150) / "nope"
    result = CliRunner().invoke(app, ["run", "--model", f"hf:{missing}", "--tasks", "pos",
                                      "--store", str(tmp_path / "s.sqlite"), "--no-report"],
                                env={"COLUMNS": "60"})
    assert result.exit_code != 0
    line = next(ln for ln in result.output.splitlines() if "error:" in ln)
    assert str(missing) in line and "does not exist" in line, "the message must stay on one line"


def test_messages_print_brackets_as_text_not_markup(capsys):
    """An error text or path with rich-markup-like brackets prints as it is (no style eaten, no MarkupError)."""
    from dialectbench.cli.output import stderr, warn

    warn("cannot read /data/[red]x[/red]/f.tsv: [/] closing tag")
    stderr.print("report: /tmp/[bold]/out")
    err = capsys.readouterr().err
    assert "warning: cannot read /data/[red]x[/red]/f.tsv: [/] closing tag" in err
    assert "report: /tmp/[bold]/out" in err
