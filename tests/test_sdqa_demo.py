"""The embedded spoken demo runs on real synthesized audio (skipped without espeak-ng)."""

from __future__ import annotations

import shutil

import pytest
from typer.testing import CliRunner

from dialectbench.cli.main import app
from dialectbench.sdqa.demo import SYNTHETIC_NOTE, run_demo, write_arpa

pytestmark = pytest.mark.skipif(shutil.which("espeak-ng") is None, reason="espeak-ng is not installed")


@pytest.fixture(scope="module")
def demo():
    return run_demo(("en-us", "en-029", "en-gb-scotland"), n_questions=5)


def test_demo_processed_real_audio(demo):
    t = demo.transcripts
    assert len(t) == 15 and set(t["dialect"]) == {"en-us", "en-029", "en-gb-scotland"}
    assert (t["transcript"].str.strip() != "").mean() > 0.8  # PocketSphinx heard words in the wav files
    wer = demo.wer.set_index("dialect")["wer"]
    assert ((wer >= 0) & (wer <= 150)).all()
    assert wer.nunique() > 1  # the voices are not all recognised alike
    assert set(demo.qa["dialect"]) == {"gold", "en-us", "en-029", "en-gb-scotland"}
    gold = demo.qa.set_index("dialect").loc["gold"]
    assert gold["passage_f1"] >= demo.qa["passage_f1"].max() - 1e-9
    u = demo.wer_unfairness[0]
    assert u["total"] == pytest.approx(u["within"] + u["between"])


def test_demo_cli_says_voices_are_synthetic():
    res = CliRunner().invoke(app, ["sdqa", "demo", "--voice", "en-us", "--voice", "en-gb", "--questions", "2"])
    assert res.exit_code == 0, res.output
    assert "SYNTHETIC" in res.stdout and SYNTHETIC_NOTE.split(";")[0] in res.stdout


def test_arpa_is_well_formed(tmp_path):
    p = tmp_path / "lm.arpa"
    write_arpa(["what is the capital", "the capital is nairobi"], p, {"what", "is", "the", "capital", "nairobi"})
    text = p.read_text()
    assert text.startswith("\\data\\\nngram 1=7\n") and "the capital" in text and text.endswith("\\end\\\n")
