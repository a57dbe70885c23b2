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

Run:  .venv/bin/python benchmarks/bench_analysis.py [--full] [--loop-resamples N]
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--full", action="store_true", help="run the pure-Python bootstrap for all resamples")
    parser.add_argument("--loop-resamples", type=int, default=200)
    args = parser.parse_args()
    generalized_entropy([0.5, 0.6], [0, 1])  # warm imports
    bench_bootstrap(N_RESAMPLES if args.full else args.loop_resamples)
    bench_ge()


if __name__ == "__main__":
    main()
