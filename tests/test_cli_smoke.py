from typer.testing import CliRunner

from dialectbench import __version__
from dialectbench.cli.main import app


def test_version_flag_prints_package_version():
    result = CliRunner().invoke(app, ["--version"])
    assert result.exit_code == 0
    assert __version__ in result.stdout
