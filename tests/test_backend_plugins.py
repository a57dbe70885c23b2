"""Backends as a registry with plugins (issue 39 item 3): the package's entries, an installed plugin from the
entry-point group `dialectbench.backends` (examples/plugin-backend), a broken plugin, declared options."""

from __future__ import annotations

import csv
import inspect
import io
import json
import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from dialectbench.backends import (
    Backend,
    BackendEntry,
    BackendOptionError,
    UnknownBackendError,
    check_name,
    entries,
    get_backend,
)
from dialectbench.backends.base import Declared, FittedModel, declared, model_capability

ROOT = Path(__file__).resolve().parents[1]
PLUGIN = ROOT / "examples" / "plugin-backend"


def _install(site: Path, name: str, entry_points: dict[str, str], package: Path | None = None) -> None:
    """What `pip install` leaves in site-packages, written by hand (offline, no build, no shared venv
    touched): the package itself and a .dist-info whose entry_points.txt importlib.metadata reads."""
    info = site / f"{name.replace('-', '_')}-0.1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 0.1.0\n")
    lines = [f"{k} = {v}" for k, v in entry_points.items()]
    (info / "entry_points.txt").write_text("[dialectbench.backends]\n" + "\n".join(lines) + "\n")
    if package is not None:
        shutil.copytree(package, site / package.name)


def _cli(site: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), str(ROOT / "src")]), "COLUMNS": "100"}
    env.pop("DIALECTBENCH_CATALOGUE", None)
    return subprocess.run([sys.executable, "-m", "dialectbench.cli.main", *args], env=env, capture_output=True,
                          text=True, timeout=600, check=False)


@pytest.fixture(scope="module")
def plugin_site(tmp_path_factory) -> Path:
    """examples/plugin-backend installed (its own pyproject's entry points), plus a plugin that is broken."""
    site = tmp_path_factory.mktemp("site")
    project = tomllib.loads((PLUGIN / "pyproject.toml").read_text())
    points = project["project"]["entry-points"]["dialectbench.backends"]
    _install(site, project["project"]["name"], points, PLUGIN / "src" / "dialectbench_keywords")
    _install(site, "broken-plugin", {"broken": "no_such_module_anywhere:ENTRY"})
    return site


def test_the_example_plugin_is_listed_and_a_broken_one_is_one_line(plugin_site):
    out = _cli(plugin_site, "models", "--format", "json")
    assert out.returncode == 0, out.stderr[-2000:]
    rows = {r["model"]: r for r in json.loads(out.stdout)}
    assert rows["keywords"]["source"] == "dialectbench-keywords" and rows["keywords"]["tasks"] == ["did", "sa", "tc"]
    assert rows["keywords"]["options"] == ["top"] and rows["keywords"]["installed"] == "yes"
    assert {"baseline", "mbert", "hf:<id>", "hf-causal:<id>", "llm:<url>"} <= set(rows)
    broken = [line for line in out.stderr.splitlines() if "broken" in line]
    assert len(broken) == 1 and "no_such_module_anywhere" in broken[0] and "Traceback" not in out.stderr


def test_the_example_plugin_runs_tc_on_the_sample_suite(plugin_site, tmp_path):
    store = tmp_path / "r.sqlite"
    out = _cli(plugin_site, "run", "--model", "keywords", "--tasks", "tc", "--store", str(store), "--no-report")
    assert out.returncode == 0, out.stderr[-3000:]
    exported = _cli(plugin_site, "results", "export", "--store", str(store), "--format", "csv", "--all")
    rows = list(csv.DictReader(io.StringIO(exported.stdout)))
    assert rows and {r["model"] for r in rows} == {"keywords"} and {r["task"] for r in rows} == {"tc"}
    assert all(r["signature"].startswith("keywords:top20|ties:first-label|") for r in rows)
    assert all(0.0 <= float(r["score"]) <= 100.0 for r in rows)


def test_an_option_the_plugin_does_not_declare_is_one_line(plugin_site, tmp_path):
    out = _cli(plugin_site, "run", "--model", "keywords", "--tasks", "tc", "--mode", "generate",
               "--store", str(tmp_path / "r.sqlite"), "--no-report")
    assert out.returncode != 0 and "Traceback" not in out.stderr
    text = " ".join(out.stderr.split())
    # the run flag, not the Python keyword; and what the plugin does take
    assert "backend 'keywords' does not take the option(s) --mode (options it takes: --model-args top)" in text
    out = _cli(plugin_site, "run", "--model", "keywords", "--tasks", "tc", "--model-args", "tpo=3",
               "--store", str(tmp_path / "r.sqlite"), "--no-report")
    text = " ".join(out.stderr.split())
    assert out.returncode != 0 and "--model-args: unknown key 'tpo'" in text and "Did you mean: top" in text


def test_model_args_reach_the_plugin_as_its_declared_option(plugin_site, tmp_path):
    """`run --model keywords --model-args top=3`: the plugin's own option, from the CLI (its signature and
    its job keys say top 3, apart from the default top 20)."""
    store = tmp_path / "r.sqlite"
    out = _cli(plugin_site, "run", "--model", "keywords", "--tasks", "tc", "--model-args", "top=3",
               "--store", str(store), "--no-report")
    assert out.returncode == 0, out.stderr[-3000:]
    exported = _cli(plugin_site, "results", "export", "--store", str(store), "--format", "csv", "--all")
    rows = list(csv.DictReader(io.StringIO(exported.stdout)))
    assert rows and all(r["signature"].startswith("keywords:top3|ties:first-label|") for r in rows)


def test_a_broken_plugin_named_by_run_says_why(plugin_site, tmp_path):
    out = _cli(plugin_site, "run", "--model", "broken", "--tasks", "tc", "--store", str(tmp_path / "r.sqlite"))
    text = " ".join(out.stderr.split())
    assert out.returncode != 0 and "unknown backend 'broken'" in text and "no_such_module_anywhere" in text


def test_unknown_options_are_named_with_the_nearest_declared_ones():
    with pytest.raises(BackendOptionError, match=r"does not take the option\(s\) parsr; did you mean: parser\?"):
        get_backend("baseline", parsr=None)
    with pytest.raises(UnknownBackendError, match="did you mean: baseline"):
        check_name("baseline2")
    with pytest.raises(UnknownBackendError, match="takes no argument"):
        check_name("mbert:x")


@pytest.mark.parametrize("prefix, module, cls", [("baseline", "dialectbench.backends.baseline", "BaselineBackend"),
                                                 ("llm", "dialectbench.backends.llm.backend", "LLMBackend"),
                                                 ("hf-causal", "dialectbench.backends.hf_causal.engine",
                                                  "HFCausalBackend"),
                                                 ("hf", "dialectbench.backends.hf.backend", "HFBackend")])
def test_declared_options_are_the_constructors_keywords(prefix, module, cls):
    """The registry's option list is what the backend's constructor takes: a new keyword there must be
    declared (or `run` would reject it), a declared one must exist (or the factory would fail)."""
    pytest.importorskip("torch" if prefix.startswith("hf") else "sklearn")
    if prefix.startswith("hf"):
        pytest.importorskip("transformers")
    klass = getattr(__import__(module, fromlist=[cls]), cls)
    params = inspect.signature(klass.__init__).parameters
    taken = {n for n, p in list(params.items())[2:] if p.kind is not p.VAR_KEYWORD} if prefix != "baseline" \
        else {n for n in params if n != "self"}
    entry = next(e for e in entries() if e.prefix == prefix)
    assert set(entry.options) == taken


def test_every_packaged_backend_declares_its_capabilities_on_the_base_class():
    assert isinstance(get_backend("baseline"), Backend)
    assert get_backend("baseline").training_free_tasks == ("mrc",) and not get_backend("baseline").supports_icl
    assert all(e.argument in ("none", "model id", "url") for e in entries())


def test_a_duck_typed_backend_and_model_get_the_declared_defaults():
    class Duck:
        name = "duck"

        def fit(self, task, train, dev, *, seed=0):
            return object()

    wrapped = declared(Duck())
    assert isinstance(wrapped, Declared) and wrapped.name == "duck" and wrapped.supports_icl is False
    assert wrapped.config == {} and wrapped.fit_weight("tc", 10.0) is None and wrapped.job_seconds("tc", 1, 0, 1) is None
    assert declared(wrapped) is wrapped
    assert model_capability(object(), "fallbacks") == 0 and model_capability(object(), "max_invalid") is None

    class Counted(FittedModel):
        fallbacks = 3

    assert model_capability(Counted(), "fallbacks") == 3
    with pytest.raises(KeyError):
        model_capability(Counted(), "not_declared")


def test_an_entry_names_what_to_install_when_its_library_is_missing():
    entry = BackendEntry("x", "nowhere:make", argument="url", needs=("no_such_library_here",),
                         extra="x-plugin[gpu]")
    assert entry.unavailable("http://k@h") == ("--model x:... needs no_such_library_here: "
                                               "pip install 'x-plugin[gpu]'")
    with pytest.raises(ValueError, match="argument is one of"):
        BackendEntry("y", "nowhere:make", argument="path")
