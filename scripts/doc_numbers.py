"""Regenerate the measured figures quoted in docs/ (issue 36 item 7): each block sits between markers

    <!-- doc-numbers:NAME begin (scripts/doc_numbers.py) -->
    ...
    <!-- doc-numbers:NAME end -->

and is written by this script from a fresh measurement, never copied by hand.

    .venv/bin/python scripts/doc_numbers.py [--data-dir ../shared/data] [--check]

Blocks: `sdqa-goldp` in docs/protocol.md: the cross-fitted CPU reader's gold-question F1 per SD-QA language
and the range of its per-dialect F1 on the ASR questions (`dialectbench sdqa goldp --lang all`, dev split).
--check measures and exits 1 when a doc's block differs (what it would write is printed)."""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PROTOCOL = ROOT / "docs" / "protocol.md"
LANG_NAMES = {"eng": "English", "ara": "Arabic", "ben": "Bengali", "kor": "Korean", "swa": "Kiswahili"}
BEGIN = "<!-- doc-numbers:{name} begin (scripts/doc_numbers.py) -->"
END = "<!-- doc-numbers:{name} end -->"


def _range(values: Sequence[float]) -> str:
    lo, hi = f"{min(values):.1f}", f"{max(values):.1f}"
    return lo if lo == hi else f"{lo}-{hi}"


def render_goldp(gold: Mapping[str, float], dialects: Mapping[str, Sequence[float]]) -> str:
    """The sdqa-goldp block: per language (the paper's order) its Gold-row F1 and its dialects' F1 range,
    one decimal, as the rest of the doc prints."""
    order = [lang for lang in LANG_NAMES if lang in gold or lang in dialects]
    golds = ", ".join(f"{LANG_NAMES[lang]} {gold[lang]:.1f}" for lang in order if lang in gold)
    ranges = ", ".join(f"{LANG_NAMES[lang]} {_range(dialects[lang])}" for lang in order if dialects.get(lang))
    return (f"  Gold-question F1 on the mirror (the Gold row of `sdqa goldp`, which reads the same way by default):"
            f" {golds};\n  per dialect on the ASR questions: {ranges}.")


_GOLDP_LINE = re.compile(r"Gold-question F1 on the mirror \(.*?\): (?P<gold>.*?);\n  per dialect on the ASR "
                         r"questions: (?P<dialects>.*)\.$", re.DOTALL)


def parse_goldp(block: str) -> tuple[dict[str, float], dict[str, list[float]]]:
    """The values a sdqa-goldp block states (ValueError when it is not in render_goldp's format)."""
    m = _GOLDP_LINE.search(block.strip("\n"))
    if m is None:
        raise ValueError("not a sdqa-goldp block as scripts/doc_numbers.py writes it")
    codes = {v: k for k, v in LANG_NAMES.items()}

    def pairs(text: str) -> list[tuple[str, str]]:
        return [tuple(part.rsplit(" ", 1)) for part in text.split(", ")]  # type: ignore[misc]

    gold = {codes[name]: float(v) for name, v in pairs(m["gold"])}
    dialects = {codes[name]: [float(x) for x in v.split("-")] for name, v in pairs(m["dialects"])}
    return gold, dialects


def block(text: str, name: str) -> str:
    """The text between NAME's markers (ValueError when they are missing or out of order)."""
    begin, end = BEGIN.format(name=name), END.format(name=name)
    i, j = text.find(begin), text.find(end)
    if i < 0 or j < i:
        raise ValueError(f"doc-numbers block {name!r} has no begin/end markers")
    return text[i + len(begin):j].strip("\n")


def replace_block(text: str, name: str, body: str) -> str:
    begin, end = BEGIN.format(name=name), END.format(name=name)
    old = block(text, name)
    i = text.find(begin) + len(begin)
    j = text.find(end)
    assert text[i:j].strip("\n") == old
    return text[:i] + "\n" + body + "\n" + text[j:]


def measure_goldp(data_dir: Path) -> tuple[dict[str, float], dict[str, list[float]]]:
    from dialectbench.sdqa.goldp import run_goldp

    res = run_goldp(data_dir / "sd-qa-goldp", sdqa_dir=data_dir / "sd-qa", langs=tuple(LANG_NAMES), mixed=False)
    f1 = res.f1
    gold = {r.lang: float(r.f1) for r in f1[f1["dialect"] == "gold"].itertuples()}
    dialects: dict[str, list[float]] = {}
    for r in f1[f1["dialect"] != "gold"].itertuples():
        dialects.setdefault(r.lang, []).append(float(r.f1))
    return gold, dialects


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data-dir", type=Path, default=ROOT.parent / "shared" / "data")
    ap.add_argument("--check", action="store_true", help="exit 1 when the doc differs; write nothing")
    args = ap.parse_args()
    body = render_goldp(*measure_goldp(args.data_dir))
    text = PROTOCOL.read_text(encoding="utf-8")
    if args.check:
        same = block(text, "sdqa-goldp") == body
        print(("up to date: " if same else "differs; measured now:\n") + body)
        return 0 if same else 1
    PROTOCOL.write_text(replace_block(text, "sdqa-goldp", body), encoding="utf-8")
    print(f"wrote the sdqa-goldp block of {PROTOCOL}:\n{body}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
