"""Speed of the vectorised analysis code against straightforward loops, measured in the same run.

1. Bootstrap CI of a mean: 10,000 resamples x 10,000 examples.
   - ours: dialectbench.analysis.bootstrap_ci (chunked (chunk, n) index matrices, no loop per resample);
   - baseline A, pure Python: random.randrange per draw, sum per resample. Its cost is linear in the
     number of resamples, so by default it runs `--loop-resamples` of them and the full time is
     extrapolated (printed as such); `--full` runs all 10,000 (minutes);
   - baseline B, a Python loop over resamples with numpy inside each (fully run).
2. Generalized entropy with its within/between decomposition on 100,000 values in 20 groups:
   - ours: dialectbench.analysis.generalized_entropy; baseline: pure-Python two-pass loop with dicts
     (best of 5 runs each; the figures are checked to agree).

3. Scale: `analyze` (max scores, task and cluster summaries, gaps) on a scores table and `report` on a result
   store, at 10,000 and 100,000 score rows (registry varieties x tasks x settings x synthetic models), in
   the same run; the ratio of the two times should stay near 10 (linear growth; <= 12 is the target).

Run:  .venv/bin/python benchmarks/bench_analysis.py [--full] [--loop-resamples N] [--only scale|speed]
      [--scale-rows 10000,100000]
"""

from __future__ import annotations

import argparse
import random
import time

import numpy as np

from dialectbench.analysis import bootstrap_ci, generalized_entropy

N_EXAMPLES, N_RESAMPLES, N_GE = 10_000, 10_000, 100_000


def timed(fn, *args, repeat: int = 1, **kwargs):
    """Best wall time of `repeat` runs (the machine may be shared) and the last result."""
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        out = fn(*args, **kwargs)
        best = min(best, time.perf_counter() - start)
    return best, out


def bootstrap_pure_python(values: list[float], n_resamples: int, seed: int = 0) -> tuple[float, float]:
    rng = random.Random(seed)
    n = len(values)
    means = []
    for _ in range(n_resamples):
        total = 0.0
        for _ in range(n):
            total += values[rng.randrange(n)]
        means.append(total / n)
    means.sort()
    return means[int(0.025 * n_resamples)], means[int(0.975 * n_resamples) - 1]


def bootstrap_numpy_loop(values: np.ndarray, n_resamples: int, seed: int = 0) -> tuple[float, float]:
    rng = np.random.default_rng(seed)
    n = values.size
    means = np.empty(n_resamples)
    for i in range(n_resamples):
        means[i] = values[rng.integers(0, n, n)].mean()
    lo, hi = np.quantile(means, [0.025, 0.975])
    return float(lo), float(hi)


def ge_pure_python(values: list[float], groups: list[int], alpha: float = 2.0) -> tuple[float, float, float]:
    n = len(values)
    mu = sum(values) / n
    sums: dict[int, float] = {}
    counts: dict[int, int] = {}
    for v, g in zip(values, groups):
        sums[g] = sums.get(g, 0.0) + v
        counts[g] = counts.get(g, 0) + 1
    k = alpha * (alpha - 1)
    total = sum((v / mu) ** alpha - 1 for v in values) / (n * k)
    within_terms: dict[int, float] = {}
    for v, g in zip(values, groups):
        mu_g = sums[g] / counts[g]
        within_terms[g] = within_terms.get(g, 0.0) + (v / mu_g) ** alpha - 1
    within = between = 0.0
    for g, c in counts.items():
        mu_g = sums[g] / c
        ge_g = within_terms[g] / (c * k)
        within += (c / n) * (mu_g / mu) ** alpha * ge_g
        between += (c / (n * k)) * ((mu_g / mu) ** alpha - 1)
    return total, within, between


def bench_bootstrap(loop_resamples: int) -> None:
    values = np.random.default_rng(0).random(N_EXAMPLES)
    t_ours, res = timed(bootstrap_ci, values, n_resamples=N_RESAMPLES, seed=0)
    t_np, (lo_np, hi_np) = timed(bootstrap_numpy_loop, values, N_RESAMPLES)
    t_py_part, _ = timed(bootstrap_pure_python, values.tolist(), loop_resamples)
    t_py = t_py_part * N_RESAMPLES / loop_resamples
    how = "measured" if loop_resamples == N_RESAMPLES else f"extrapolated from {loop_resamples} resamples"
    print(f"bootstrap {N_RESAMPLES:,} resamples x {N_EXAMPLES:,} examples")
    print(f"  vectorised (ours)            {t_ours:8.2f} s   CI [{res.low:.4f}, {res.high:.4f}]")
    print(f"  numpy loop per resample      {t_np:8.2f} s   CI [{lo_np:.4f}, {hi_np:.4f}]")
    print(f"  pure-Python loop             {t_py:8.2f} s   ({how}: {t_py_part:.2f} s)")
    print(f"  speed-up vs pure Python      {t_py / t_ours:8.1f} x")
    print(f"  speed-up vs numpy loop       {t_np / t_ours:8.1f} x")


def bench_ge() -> None:
    rng = np.random.default_rng(1)
    groups = rng.integers(0, 20, N_GE)
    values = np.clip(rng.normal(0.6 + 0.01 * groups, 0.2), 0.0, 1.0)
    t_ours, res = timed(generalized_entropy, values, groups, alpha=2.0, repeat=5)
    t_py, (total, within, between) = timed(ge_pure_python, values.tolist(), groups.tolist(), repeat=5)
    assert abs(total - res.total) < 1e-9 and abs(within - res.within) < 1e-9 and abs(between - res.between) < 1e-9
    print(f"generalized entropy + decomposition, {N_GE:,} values in 20 groups")
    print(f"  vectorised (ours)            {t_ours:8.3f} s   total {res.total:.6f} = {res.within:.6f} + "
          f"{res.between:.6f}")
    print(f"  pure-Python loop             {t_py:8.3f} s   (same figures)")
    print(f"  speed-up vs pure Python      {t_py / t_ours:8.1f} x")


def scores_table(n_rows: int, seed: int = 0):
    """`n_rows` plausible score rows: every (task, registered variety) with the task's settings, for as
    many synthetic models as it takes, scores drawn at random (the shape, not the values, matters here)."""
    import pandas as pd

    from dialectbench.data.catalogue import TASK_IDS
    from dialectbench.tasks import get_task
    from dialectbench.varieties import registry

    rng = np.random.default_rng(seed)
    cells = [(t, v.name, v.cluster, s) for t in TASK_IDS for v in registry().varieties(task=t)
             for s in [x for x in get_task(t).settings if x != "icl"][:2]]
    rows = []
    model = 0
    while len(rows) < n_rows:
        for task, variety, cluster, setting in cells[: n_rows - len(rows)]:
            rows.append({"task": task, "cluster": cluster, "variety": variety, "model": f"model-{model}",
                         "setting": setting, "train_on": variety if setting == "in-variety" else "english",
                         "metric": "score", "score": float(rng.uniform(5, 95)), "n": 100})
        model += 1
    return pd.DataFrame(rows)


def _store_from(df, path) -> None:
    """A result store holding `df` as finished jobs (written in one transaction: building it is not timed)."""
    from dialectbench.runner.store import Store

    with Store(path) as db:
        db.start_run("bench", seed=0, config={}, package_version="bench", library_versions={}, git_hash=None)
        with db.transaction() as c:
            keys = [f"{r.task}|{r.variety}|{r.model}|{r.setting}|{r.train_on}" for r in df.itertuples()]
            c.executemany("INSERT INTO jobs (job_key, task, variety, cluster, model, setting, train_on, status,"
                          " run_id, finished_at) VALUES (?, ?, ?, ?, ?, ?, ?, 'done', 'bench', ?)",
                          [(k, r.task, r.variety, r.cluster, r.model, r.setting, r.train_on, f"{i:09d}")
                           for i, (k, r) in enumerate(zip(keys, df.itertuples()))])
            c.executemany("INSERT INTO scores (job_key, run_id, task, cluster, variety, model, setting, train_on,"
                          " metric, score, n, signature, extra) VALUES (?, 'bench', ?, ?, ?, ?, ?, ?, ?, ?, ?, '', '{}')",
                          [(k, r.task, r.cluster, r.variety, r.model, r.setting, r.train_on, r.metric, r.score, r.n)
                           for k, r in zip(keys, df.itertuples())])
        db.finish_run("bench", "finished", {})


def _analyze(df) -> None:
    from dialectbench import analysis

    analysis.max_scores(df)
    analysis.task_summary(df)
    analysis.cluster_summary(df)
    analysis.gaps(df)


def bench_scale(sizes: list[int], report: bool = True) -> None:
    """analyze at every size first (fast), then report (figures make its fixed cost large)."""
    import tempfile
    import warnings
    from pathlib import Path

    from dialectbench.analysis import validate_scores
    from dialectbench.report import build_report

    small, large = min(sizes), max(sizes)
    factor = large / small

    def ratio(what: str, times: dict[int, float]) -> None:
        if small != large:
            print(f"  {factor:.0f}x the rows: {what} took {times[large] / times[small]:5.1f}x the time "
                  f"(linear = {factor:.0f}x; target <= {1.2 * factor:.0f}x)", flush=True)

    print("scale: analyze (a scores table) and report (a result store), same run", flush=True)
    frames = {}
    with tempfile.TemporaryDirectory() as tmp, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t_analyze, t_report = {}, {}
        for n in sizes:
            frames[n] = validate_scores(scores_table(n), "bench")
            t_analyze[n], _ = timed(_analyze, frames[n])
            print(f"  {n:>9,} rows   analyze {t_analyze[n]:8.2f} s", flush=True)
        ratio("analyze", t_analyze)
        if not report:
            return
        for n in sizes:
            store = Path(tmp) / f"s{n}.sqlite"
            _store_from(frames[n], store)
            t_report[n], _ = timed(build_report, store, Path(tmp) / f"report{n}", n_resamples=200)
            print(f"  {n:>9,} rows   report  {t_report[n]:8.2f} s", flush=True)
        ratio("report", t_report)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--full", action="store_true", help="run the pure-Python bootstrap for all resamples")
    parser.add_argument("--loop-resamples", type=int, default=200)
    parser.add_argument("--only", choices=["scale", "speed"], help="run one part only")
    parser.add_argument("--scale-rows", default="10000,100000", help="comma-separated row counts")
    parser.add_argument("--no-report", action="store_true", help="scale: time analyze only")
    args = parser.parse_args()
    generalized_entropy([0.5, 0.6], [0, 1])  # warm imports
    if args.only != "scale":
        bench_bootstrap(N_RESAMPLES if args.full else args.loop_resamples)
        bench_ge()
    if args.only != "speed":
        bench_scale([int(x) for x in args.scale_rows.split(",")], report=not args.no_report)


if __name__ == "__main__":
    main()
