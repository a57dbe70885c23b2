"""Shared fixtures. Tests that read real data in ../shared/data skip cleanly when it is absent."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import torch

# One intra-op thread for every test: float reductions then sum in one order, so seeded training gives
# the same weights on any machine, under any load and whatever a previous test set.
torch.set_num_threads(1)

REPO = Path(__file__).resolve().parents[1]
SHARED_DATA = Path(os.environ.get("DIALECTBENCH_SHARED_DATA", REPO.parent / "shared" / "data"))
SEEDS = REPO.parent / "shared" / "seeds"


@pytest.fixture(autouse=True)
def pipe_width(monkeypatch):
    """Every test sees the width rich uses in a pipe (80 columns), whatever terminal runs the suite;
    tests about narrow terminals set their own."""
    monkeypatch.setenv("COLUMNS", "80")


@pytest.fixture
def forget_user_catalogues(monkeypatch):
    """No user catalogue from the environment, and none left registered after the test."""
    from dialectbench.data import user_catalogue

    monkeypatch.delenv(user_catalogue.ENV_CATALOGUE, raising=False)
    user_catalogue.reset()
    yield
    user_catalogue.reset()


def _present(folder: Path) -> bool:
    """A folder with something in it: an empty ../shared (a checkout's placeholder, a failed mount) is as
    absent as a missing one, and the tests skip instead of failing on each missing file."""
    try:
        return folder.is_dir() and any(not p.name.startswith(".") for p in folder.iterdir())
    except OSError:
        return False


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """Root of the real public datasets (../shared/data); skips the test when absent or empty."""
    if not _present(SHARED_DATA):
        pytest.skip(f"real data in {SHARED_DATA} is not available (absent or empty)")
    return SHARED_DATA


@pytest.fixture(scope="session")
def seeds() -> Path:
    """The two papers' text (../shared/seeds); skips when absent or empty."""
    if not _present(SEEDS):
        pytest.skip(f"{SEEDS} is not available (absent or empty)")
    return SEEDS


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    """A failed test that used a server the tests started (a node with `server_log`, set by that
    server's fixture) shows the last lines of the server's log: a crashed server says why it went away."""
    report = yield
    if report.failed:
        logs = [node.server_log for node in item.listchain() if getattr(node, "server_log", None)]
        for log in logs:
            lines = Path(log).read_text(errors="replace").splitlines()[-30:] if Path(log).is_file() else []
            report.sections.append((f"last lines of {log}", "\n".join(lines) or "(empty)"))
    return report
