"""One-off generator of the packaged registry tables (kept for provenance; not needed at run time).

Reads Table 8 and Table 9 of the DialectBench paper text (seed 000) and the original project's metadata
(speaker counts, dataset codes), cross-checks them, and writes:

- src/dialectbench/varieties/varieties.csv   (one row per variety; the source of truth once written)
- src/dialectbench/tasks/representatives.csv  (Table 9: cluster representative per task)

Usage: python scripts/build_registry_tables.py SEED_TXT METADATA_DIR
After generation the CSVs are edited by hand (in pull requests); do not rerun blindly over edits.
"""

from __future__ import annotations

import csv
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
VARIETIES_CSV = ROOT / "src" / "dialectbench" / "varieties" / "varieties.csv"
REPRESENTATIVES_CSV = ROOT / "src" / "dialectbench" / "tasks" / "representatives.csv"

# Table 8 columns -> task ids (MT is split below).
TABLE8_TASKS = {"UDP": "dep", "POS": "pos", "NER": "ner", "SDQA": "eqa", "RCMC": "mrc", "NLI": "nli",
                "TC": "tc", "SC": "sa", "DI": "did", "MT": "mt"}
# Table 9 section headings -> task ids.
TABLE9_TASKS = {"DEP. Parsing": "dep", "POS Tagging": "pos", "NER": "ner", "EQA": "eqa", "MRC": "mrc",
                "TC": "tc", "SC": "sa", "MT-Dialect": "mt-dialect", "MT-Region": "mt-region", "DId": "did",
                "NLI": "nli"}
CODE_TASKS = ["dep", "pos", "ner", "did", "sa", "tc", "nli", "mrc", "eqa", "mt"]
TICK = "\u2713"
NLLB_RE = re.compile(r"^[a-z]{3}_[A-Z][a-z]{3}$")


def _norm(name: str) -> str:
    return name.replace("\u2019", "'")


def mt_flavour(cluster: str, name: str) -> str:
    """CODET aggregates Italian and Swiss-German dialects by region (seed 000, App. B 'Machine translation')."""
    if cluster == "italian romance" and name.startswith("italian (a:"):
        return "mt-region"
    if cluster == "high german" and name.startswith("central alemannic (a:"):
        return "mt-region"
    return "mt-dialect"


def parse_table8(lines: list[str]) -> list[dict]:
    start = next(i for i, line in enumerate(lines) if line.startswith("Language cluster\tVariety name"))
    header = lines[start].split("\t")
    rows, cluster = [], None
    for line in lines[start + 1:]:
        if line.startswith("Table 8"):
            break
        if not line.strip():
            continue
        cells = line.split("\t")
        if len(cells) != len(header):
            raise ValueError(f"Table 8 row has {len(cells)} cells: {line!r}")
        # "southwestern shifted romance" is broken over two lines of the table.
        if cells[0] == "southwestern shifted":
            cells[0] = "southwestern shifted romance"
        elif cells[0] == "romance" and cluster == "southwestern shifted romance":
            cells[0] = ""
        cluster = cells[0] or cluster
        ticks = dict(zip(header[4:], (c == TICK for c in cells[4:])))
        tasks = [TABLE8_TASKS[col] for col, on in ticks.items() if on]
        tasks = [mt_flavour(cluster, cells[1]) if t == "mt" else t for t in tasks]
        rows.append({"cluster": cluster, "name": cells[1], "glottocode": "" if cells[2] == "-" else cells[2],
                     "mbert_seen": cells[3] == TICK, "tasks": tasks})
    return rows


def parse_table9(lines: list[str]) -> list[dict]:
    start = next(i for i, line in enumerate(lines) if line.startswith("Task\tCluster Name\tCluster Representative"))
    out, task = [], None
    for line in lines[start + 1:]:
        if line.startswith("Table 9"):
            break
        if not line.strip():
            continue
        head, cluster, rep = line.split("\t")
        task = TABLE9_TASKS[head] if head else task
        out.append({"task": task, "cluster": cluster, "variety": rep})
    return out


def _speakers(raw: str) -> tuple[str, str]:
    digits = raw.replace(",", "")
    if digits.isdigit():
        return digits, ""
    return "", ("" if raw in ("-", "") else raw)


def enrich(rows: list[dict], meta_dir: Path) -> None:
    with open(meta_dir / "dialect_info_wgcode.csv", encoding="utf-8") as fh:
        meta = {_norm(r["variety name"]): r for r in csv.DictReader(fh)}
    for row in rows:
        m = meta[_norm(row["name"])]
        if m["language group"] != row["cluster"] or (m["glottocode"].replace("-", "")) != row["glottocode"]:
            raise ValueError(f"metadata disagrees with Table 8 on {row['name']!r}")
        row["speakers"], row["speakers_note"] = _speakers(m["# of speakers"])
        row["original_id"] = "" if m["new_name"] == "-" else m["new_name"]
        for col, task in TABLE8_TASKS.items():
            code = m[col]
            row[f"code_{task}"] = "" if code == "-" else code
            if bool(row[f"code_{task}"]) != any(t.startswith(task) for t in row["tasks"]):
                raise ValueError(f"metadata code for {col} disagrees with Table 8 tick on {row['name']!r}")
        nllb = {m[c] for c in ("RCMC", "NLI", "TC") if NLLB_RE.match(m[c])}
        if len(nllb) > 1:
            raise ValueError(f"several NLLB codes for {row['name']!r}: {nllb}")
        row["nllb_code"] = nllb.pop() if nllb else ""


def write(rows: list[dict], reps: list[dict]) -> None:
    fields = ["cluster", "name", "glottocode", "mbert_seen", "tasks", "speakers", "speakers_note",
              "nllb_code", "original_id"] + [f"code_{t}" for t in CODE_TASKS]
    with open(VARIETIES_CSV, "w", encoding="utf-8", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=fields, lineterminator="\n")
        w.writeheader()
        for r in rows:
            w.writerow({**r, "mbert_seen": "yes" if r["mbert_seen"] else "no", "tasks": " ".join(r["tasks"])})
    with open(REPRESENTATIVES_CSV, "w", encoding="utf-8", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=["task", "cluster", "variety"], lineterminator="\n")
        w.writeheader()
        w.writerows(reps)


def main(seed: str, meta_dir: str) -> None:
    lines = Path(seed).read_text(encoding="utf-8").split("\n")
    rows = parse_table8(lines)
    enrich(rows, Path(meta_dir))
    write(rows, parse_table9(lines))
    print(f"{len(rows)} varieties, {len({r['cluster'] for r in rows})} clusters written")


if __name__ == "__main__":
    main(*sys.argv[1:3])
