"""Issue 36 item 7: measured figures in docs/ are written by scripts/doc_numbers.py between markers; the
doc's block must be in the script's format (what it states, rendered again, is the block itself)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def doc_numbers():
    spec = importlib.util.spec_from_file_location("doc_numbers", ROOT / "scripts" / "doc_numbers.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_protocol_block_is_in_the_scripts_format(doc_numbers):
    text = (ROOT / "docs" / "protocol.md").read_text(encoding="utf-8")
    body = doc_numbers.block(text, "sdqa-goldp")
    gold, dialects = doc_numbers.parse_goldp(body)
    assert set(gold) == set(dialects) == {"eng", "ara", "ben", "kor", "swa"}
    assert doc_numbers.render_goldp(gold, dialects) == body  # a hand edit in another shape fails here


def test_render_and_replace_round_trip_on_made_up_numbers(doc_numbers):
    gold = {"eng": 35.31, "ben": 12.69}
    dialects = {"eng": [33.14, 34.66], "ben": [10.9, 12.44]}
    body = doc_numbers.render_goldp(gold, dialects)
    assert "Bengali 12.7;" in body and "English 33.1-34.7" in body
    text = ("intro\n" + doc_numbers.BEGIN.format(name="sdqa-goldp") + "\nold\n"
            + doc_numbers.END.format(name="sdqa-goldp") + "\noutro\n")
    new = doc_numbers.replace_block(text, "sdqa-goldp", body)
    assert new.startswith("intro\n") and new.endswith("\noutro\n")
    assert doc_numbers.block(new, "sdqa-goldp") == body
    assert doc_numbers.parse_goldp(body) == ({"eng": 35.3, "ben": 12.7}, {"eng": [33.1, 34.7], "ben": [10.9, 12.4]})


def test_missing_markers_or_a_foreign_block_are_errors(doc_numbers):
    with pytest.raises(ValueError, match="no begin/end markers"):
        doc_numbers.block("no markers here", "sdqa-goldp")
    with pytest.raises(ValueError, match="not a sdqa-goldp block"):
        doc_numbers.parse_goldp("English 35.3 by hand")
