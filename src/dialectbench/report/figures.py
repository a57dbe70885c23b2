"""The papers' figures (matplotlib, Agg backend), saved as SVG and PNG, readable in black and white:
clusters are told apart by grey shading and labels, representatives by hatching, models by marker shape.

- Figure 3 / 7-10: max-obtainable score per variety, grouped by cluster (lowest first: the Rawlsian minimum
  heads each group), clusters whose varieties mBERT never saw shaded, cluster representatives hatched.
  Horizontal bars with the figure height scaled to the number of varieties keep 50+ names legible.
- Figure 4 / 11: per cluster, the zero-shot gap against English (x) vs the gap within the cluster (y).
- SD-QA: WER vs F1 per dialect.
"""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.layout_engine import TightLayoutEngine
from matplotlib.patches import Patch
from matplotlib.text import Text

from dialectbench.report.model import ReportData

MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")
FILLS = ("black", "white")
BAR_GREYS = ("#4d4d4d", "#a6a6a6")  # alternate per cluster: neighbouring clusters differ even in print
UNSEEN_SHADE = "#e8e8e8"
ROW_INCH = 0.19
MAX_SCATTER_MODELS = len(MARKERS)  # one panel per model: a store of 50 models would make a 250-inch figure
RC = {"svg.hashsalt": "dialectbench", "font.size": 8, "axes.titlesize": 10, "figure.dpi": 100}


def _task_metric(task: str) -> str:
    try:
        from dialectbench.tasks import get_task
        return get_task(task).metric_label
    except (ImportError, LookupError):
        return "score"


def _txt(text) -> str:
    """A dataset string as literal plot text ('$' would otherwise start matplotlib mathtext)."""
    return str(text).replace("$", r"\$")


_WORDS = {"uas": "UAS", "las": "LAS", "f1": "F1", "bleu": "BLEU", "em": "EM", "wer": "WER", "cer": "CER",
          "chrf": "chrF"}


def _plural(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def _metric_words(task: str, best: pd.DataFrame) -> str:
    """The metric the bars show: the rows' own metric names when they say (the paper's SA/TC maxima mix
    accuracy and F1), else the task's metric."""
    names = sorted({str(m) for m in best.get("metric", pd.Series(dtype=str)) if isinstance(m, str) and m.strip()})
    if not names:
        return _task_metric(task)
    return " or ".join(" ".join(_WORDS.get(w, w) for w in n.split("_")) for n in names)


def _save(fig, out_dir: Path, stem: str) -> dict[str, Path]:
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = {"svg": out_dir / f"{stem}.svg", "png": out_dir / f"{stem}.png"}
    # the tight box measured once (a draw) serves both files; bbox_inches="tight" would draw twice per file
    box = fig.get_tightbbox(fig.canvas.get_renderer()).padded(0.1)
    fig.savefig(paths["svg"], bbox_inches=box, metadata={"Date": None})
    fig.savefig(paths["png"], bbox_inches=box, dpi=110)
    plt.close(fig)
    return paths


def _layout(best: pd.DataFrame) -> tuple[list[tuple[str, pd.DataFrame]], list[float]]:
    """Clusters in name order, each lowest score first; y position per bar with a gap between clusters."""
    groups = [(c, g.sort_values(["score", "variety"])) for c, g in best.groupby("cluster", sort=True)]
    ys, y = [], 0.0
    for _, g in groups:
        ys += [y + i for i in range(len(g))]
        y += len(g) + 0.8
    return groups, ys


def max_score_figure(data: ReportData, task: str, out_dir: Path) -> dict[str, Path] | None:
    """Figure 3 / 7-10 for one task."""
    best = data.best[data.best["task"] == task]
    if best.empty:
        return None
    groups, ys = _layout(best)
    n = len(ys)
    with plt.rc_context(RC):
        fig, ax = plt.subplots(figsize=(8.0, max(2.4, 1.4 + ROW_INCH * (ys[-1] + 1))))
        i = 0
        for k, (cluster, g) in enumerate(groups):
            rows = ys[i:i + len(g)]
            if data.cluster_unseen.get((task, cluster)):
                ax.axhspan(rows[0] - 0.6, rows[-1] + 0.6, color=UNSEEN_SHADE, zorder=0, lw=0)
            rep = g["representative"].to_numpy(dtype=bool)
            for mask, style in ((~rep, {"color": BAR_GREYS[k % 2]}), (rep, {"color": "white", "hatch": "////"})):
                if mask.any():  # one bar container per cluster and style, not one per variety
                    ax.barh(np.asarray(rows)[mask], g["score"].to_numpy()[mask], height=0.78, edgecolor="black",
                            linewidth=0.5, zorder=2, **style)
            for y, score in zip(rows, g["score"]):
                ax.text(score + 0.8, y, f"{score:.1f}", va="center", fontsize=6, zorder=3)
            label = f"{_txt(cluster)} †" if data.cluster_unseen.get((task, cluster)) else _txt(cluster)
            ax.text(1.01, (rows[0] + rows[-1]) / 2, label, transform=ax.get_yaxis_transform(), va="center",
                    ha="left", fontsize=7, style="italic")
            if k:
                ax.axhline(rows[0] - 0.9, color="black", lw=0.4, zorder=1)
            i += len(g)
        names = [_txt(v) for _, g in groups for v in g["variety"]]
        ax.set_yticks(ys, names, fontsize=7)
        ax.set_ylim(ys[-1] + 0.9, -0.9)
        top = max(100.0, float(best["score"].max()) + 8) if _task_metric(task) != "BLEU" else \
            float(best["score"].max()) * 1.12 + 1
        ax.set_xlim(0, top)
        ax.set_xlabel(f"max-obtainable {_metric_words(task, best)} (best over models and settings)")
        ax.set_title(f"{task}: maximum score per variety ({_plural(n, 'variety', 'varieties')}, "
                     f"{_plural(len(groups), 'cluster', 'clusters')})")
        ax.grid(axis="x", lw=0.3, color="#999999", zorder=1)
        handles = [Patch(facecolor="white", edgecolor="black", hatch="////", label="cluster representative"),
                   Patch(facecolor=UNSEEN_SHADE, edgecolor="#b0b0b0",
                         label="shaded, † : mBERT saw none of the cluster's varieties")]
        ax.legend(handles=handles, loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=2, frameon=False,
                  fontsize=7, borderaxespad=0.3)
        ax.set_title(ax.get_title(), pad=24)
        return _save(fig, out_dir, f"fig3_max_scores_{task}")


def _gap_points(data: ReportData, task: str) -> pd.DataFrame:
    g = data.gaps[(data.gaps["task"] == task) & data.gaps["gap"].isin(["eng_eng", "eng_rep"])]
    wide = g.pivot_table(index=["model", "cluster"], columns="gap", values="value", aggfunc="first")
    if not {"eng_eng", "eng_rep"} <= set(wide.columns):
        return pd.DataFrame(columns=["model", "cluster", "eng_eng", "eng_rep"])
    return wide.dropna(subset=["eng_eng", "eng_rep"]).reset_index()


def gap_scatter(data: ReportData, task: str, out_dir: Path) -> dict[str, Path] | None:
    """Figure 4 / 11 for one task: one point per (model, cluster); None when no cluster has both gaps."""
    pts = _gap_points(data, task)
    if pts.empty:
        return None
    models = sorted(pts["model"].unique())
    shown = ""
    if len(models) > MAX_SCATTER_MODELS:  # the figure says it; every model stays in the gap table
        shown = f" (the first {MAX_SCATTER_MODELS} of {len(models)} models; all are in the gap table)"
        models = models[:MAX_SCATTER_MODELS]
        pts = pts[pts["model"].isin(models)]
    with plt.rc_context(RC):
        side = 5.0 if pts["cluster"].nunique() <= 12 else 7.0
        fig, axes = plt.subplots(1, len(models), figsize=(side * len(models), side), sharex=True, sharey=True,
                                 squeeze=False)
        for k, (ax, model) in enumerate(zip(axes[0], models)):
            g = pts[pts["model"] == model]
            ax.axhline(0, color="black", lw=0.6)
            ax.axvline(0, color="black", lw=0.6)
            ax.scatter(g["eng_eng"], g["eng_rep"], marker=MARKERS[k % len(MARKERS)], s=34, facecolor=FILLS[k % 2],
                       edgecolor="black", linewidth=0.8, zorder=3)
            ax.set_title(f"model: {_txt(model)}")
            ax.margins(x=0.12, y=0.08)
            ax.set_xlabel("gap against Standard English, G_eng(eng, C) (%)")
            ax.grid(lw=0.3, color="#999999")
        axes[0][0].set_ylabel("gap within the cluster, G_eng(v̄, C) (%)")
        fig.suptitle(f"{task}: dialect gaps of zero-shot transfer from English{shown}\n"
                     "one point per cluster; closer to 0 is better")
        _tight(fig)
        renderer = _settled(fig)  # after the layout is fixed, so label boxes are where they land
        for ax, model in zip(axes[0], models):
            g = pts[pts["model"] == model]
            _label_points(ax, g["eng_eng"].to_numpy(), g["eng_rep"].to_numpy(), g["cluster"].tolist(), renderer)
        return _save(fig, out_dir, f"fig4_gaps_{task}")


# Label positions tried around a point (offset in points, horizontal alignment), nearest first, on rings
# further and further out: every (ring, spot) in the order tried, as arrays.
_SPOTS = [((4, 2), "left"), ((4, -8), "left"), ((-4, 2), "right"), ((-4, -8), "right"), ((0, 6), "center"),
          ((0, -13), "center"), ((6, -3), "left"), ((-6, -3), "right")]
_RINGS = (1.0, 2.0, 3.2, 4.6, 6.2, 8.0)
_RING = np.repeat(_RINGS, len(_SPOTS))
_OFFSET = np.array([(dx * ring, dy * ring + (ring - 1) * 2 * np.sign(dy))
                    for ring in _RINGS for (dx, dy), _ in _SPOTS], dtype=float)
_HA = [ha for _ in _RINGS for _, ha in _SPOTS]
_ALIGN = np.array([{"left": 0.0, "center": -0.5, "right": -1.0}[ha] for ha in _HA])  # x shift, in widths


def _tight(fig) -> None:
    """fig.tight_layout()'s subplot spacing, without leaving a layout engine on the figure: with one,
    every savefig draws the whole figure an extra time first."""
    TightLayoutEngine().execute(fig)


def _settled(fig):
    """The (lazily autoscaled) view limits fixed, so data -> pixel positions are final, without drawing
    the figure (a full draw of a wide figure cost seconds); the renderer to measure text with."""
    for ax in fig.axes:
        ax.get_xlim(), ax.get_ylim()
    return fig.canvas.get_renderer()


def _overlaps(boxes: np.ndarray, others: np.ndarray) -> np.ndarray:
    """How many of `others` each of `boxes` overlaps (rows x0, y0, x1, y1; touching counts, as Bbox.overlaps)."""
    if not len(others):
        return np.zeros(len(boxes))
    b, o = boxes[:, None, :], others[None, :, :]
    return np.sum((b[..., 0] <= o[..., 2]) & (o[..., 0] <= b[..., 2]) & (b[..., 1] <= o[..., 3])
                  & (o[..., 1] <= b[..., 3]), axis=1)


def _label_points(ax, xs, ys, labels, renderer) -> None:
    """Name each point, avoiding other labels and markers: of the spots around it, nearest first and then
    further out (with a leader line), the first free one - or, when none is free, the least bad (cost:
    labels hit x 10, markers hit x 3, outside the axes x 5, plus the ring). Each label is measured once;
    every candidate spot is that box moved, all scored at once."""
    px = ax.figure.dpi / 72.0  # pixels per point
    r = 4.0 * px  # marker half-size
    centres = ax.transData.transform(np.column_stack([xs, ys]).astype(float)).reshape(-1, 2)
    markers = np.hstack([centres - r, centres + r])
    inside = ax.get_window_extent(renderer)
    taken = np.empty((0, 4))
    for i in sorted(range(len(xs)), key=lambda j: (-ys[j], xs[j])):
        probe = ax.annotate(_txt(labels[i]), (xs[i], ys[i]), xytext=(0, 0), textcoords="offset points",
                            fontsize=6.5, ha="left")
        probe.update_positions(renderer)
        base = Text.get_window_extent(probe, renderer)  # the text's own box at the point, left-aligned
        probe.remove()
        dx = _OFFSET[:, 0] * px + _ALIGN * base.width
        dy = _OFFSET[:, 1] * px
        boxes = np.column_stack([base.x0 + dx - 2.5, base.y0 + dy - 2.5, base.x1 + dx + 2.5, base.y1 + dy + 2.5])
        outside = ~((boxes[:, 0] >= inside.x0) & (boxes[:, 2] <= inside.x1) & (boxes[:, 1] >= inside.y0)
                    & (boxes[:, 3] <= inside.y1))
        cost = (10 * _overlaps(boxes, taken) + 3 * _overlaps(boxes, np.delete(markers, i, axis=0))
                + 5 * outside + _RING)
        k = int(np.argmin(cost))  # the first of the cheapest: a free spot costs its ring, so the nearest
        ax.annotate(_txt(labels[i]), (xs[i], ys[i]), xytext=tuple(_OFFSET[k]), textcoords="offset points",
                    fontsize=6.5, ha=_HA[k],
                    arrowprops={"arrowstyle": "-", "lw": 0.4, "color": "#555555"} if _RING[k] > 1 else None)
        taken = np.vstack([taken, boxes[k]])


def sdqa_scatter(sdqa: dict, out_dir: Path) -> dict[str, Path] | None:
    df = sdqa["dialects"]
    if not {"wer", "f1"} <= set(df.columns) or df[["wer", "f1"]].dropna().empty:
        return None
    if "lang" in df.columns:  # one series per language and model; points carry the paper's labels
        df = df.assign(model=df["lang"].astype(str) + " " + df["model"].astype(str))
    with plt.rc_context(RC):
        fig, ax = plt.subplots(figsize=(6.5, 5.0))
        for k, (model, g) in enumerate(df.dropna(subset=["wer", "f1"]).groupby("model", sort=True)):
            ax.scatter(g["wer"], g["f1"], marker=MARKERS[k % len(MARKERS)], s=36, facecolor=FILLS[k % 2],
                       edgecolor="black", label=_txt(model), zorder=3)
        ax.set_xlabel("ASR word error rate (%)")
        ax.set_ylabel("downstream QA F1 (%)")
        ax.set_title("SD-QA: WER vs F1 per dialect")
        ax.grid(lw=0.3, color="#999999")
        ax.legend(title="model", fontsize=7)
        _tight(fig)
        renderer = _settled(fig)
        for _, g in df.dropna(subset=["wer", "f1"]).groupby("model", sort=True):
            _label_points(ax, g["wer"].to_numpy(dtype=float), g["f1"].to_numpy(dtype=float),
                          g["dialect"].astype(str).tolist(), renderer)
        return _save(fig, out_dir, "fig_sdqa_wer_f1")


def all_figures(data: ReportData, out_dir: Path) -> dict[str, dict[str, Path]]:
    """Every figure the data supports, keyed by a name ('fig3_dep', 'fig4_dep', 'sdqa')."""
    out: dict[str, dict[str, Path]] = {}
    for task in data.tasks:
        for name, fn in (("fig3", max_score_figure), ("fig4", gap_scatter)):
            paths = fn(data, task, out_dir)
            if paths:
                out[f"{name}_{task}"] = paths
    if data.sdqa:
        paths = sdqa_scatter(data.sdqa, out_dir)
        if paths:
            out["sdqa"] = paths
    return out


__all__ = ["all_figures", "gap_scatter", "max_score_figure", "sdqa_scatter"]
