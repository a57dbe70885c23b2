"""`python -m dialectbench`: the same command line as `dialectbench`."""

from dialectbench.cli.main import app

if __name__ == "__main__":
    app(prog_name="dialectbench")
