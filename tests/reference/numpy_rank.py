#!/usr/bin/python3
"""Reference outputs for tests/test_spectrum.cpp: numpy's matrix_rank convention on literal matrices.

Run with Debian's python3 (numpy): /usr/bin/python3 tests/reference/numpy_rank.py
It writes numpy_rank.json next to this script; the test reads the matrices from there and checks that
attnlab's numericalRank equals np.linalg.matrix_rank and that the singular values agree with
np.linalg.svd to 1e-12·σ_max. It also records numpy's distribution of rank(exp(x·xᵀ)) for n = 100,
x = np.random.randn(n) (the seed's snippet), to compare with the range the seed reports (17–18).
"""
import json
import os

import numpy as np


def effective_rank(s):
    total = s.sum()
    if total <= 0:
        return 0.0
    p = s / total
    p = p[p > 0]
    return float(np.exp(-(p * np.log(p)).sum()))


def case(name, m, note):
    m = np.asarray(m, dtype=np.float64)
    s = np.linalg.svd(m, compute_uv=False)
    return {
        "name": name,
        "note": note,
        "matrix": m.tolist(),
        "numpy_rank": int(np.linalg.matrix_rank(m)),
        "threshold": float(s.max() * max(m.shape) * np.finfo(np.float64).eps) if s.size else 0.0,
        "singular_values": s.tolist(),
        "effective_rank": effective_rank(s),
    }


def main():
    cases = []
    z = np.zeros((2, 2))
    cases.append(case("zero 2x2", z, "the seed's example: rank 0"))
    cases.append(case("exp zero 2x2", np.exp(z), "the seed's example: rank 1"))
    m = np.array([[0, 1, 2], [3, 4, 5], [3, 4, 5]], dtype=np.float64)
    cases.append(case("counter-example", m, "the comment's counter-example: rank 2"))
    cases.append(case("exp counter-example", np.exp(m), "exp drops it to rank 1"))
    for seed, n, c in [(1, 100, 1.0), (2, 100, 1.0), (3, 50, 3.0)]:
        x = np.random.default_rng(seed).standard_normal(n)
        cases.append(case(f"exp(c x x^T) seed {seed} n {n} c {c}", np.exp(c * np.outer(x, x)),
                          "the seed's snippet with a fixed generator"))
    h = 1.0 / (np.arange(12)[:, None] + np.arange(12)[None, :] + 1.0)
    cases.append(case("hilbert 12", h, "classic ill-conditioned matrix"))
    rng = np.random.default_rng(7)
    cases.append(case("product 30x5 * 5x40", rng.standard_normal((30, 5)) @ rng.standard_normal((5, 40)),
                      "rectangular, rank 5 by construction"))
    q, k = rng.standard_normal((64, 8)), rng.standard_normal((64, 8))
    s = q @ k.T / np.sqrt(8.0)
    a = np.exp(s - s.max(axis=1, keepdims=True))
    a /= a.sum(axis=1, keepdims=True)
    cases.append(case("scores 64x64 d 8", s, "Q K^T / sqrt(d): rank <= 8"))
    cases.append(case("softmax 64x64 d 8", a, "row-stochastic attention"))
    cases.append(case("diag across threshold", np.diag([1.0, 1e-10, 1e-13, 5e-15, 1e-16]),
                      "threshold 5*eps = 1.1e-15: 5e-15 counts, 1e-16 does not"))

    ranks = []
    for seed in range(200):
        x = np.random.default_rng(seed).standard_normal(100)
        ranks.append(int(np.linalg.matrix_rank(np.exp(np.outer(x, x)))))
    out = {
        "generator": "tests/reference/numpy_rank.py",
        "numpy_version": np.__version__,
        "cases": cases,
        "exp_outer_n100_c1": {
            "seeds": 200,
            "median_rank": float(np.median(ranks)),
            "min_rank": min(ranks),
            "max_rank": max(ranks),
            "ranks": ranks,
        },
    }
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "numpy_rank.json")
    with open(path, "w") as f:
        json.dump(out, f, indent=None)
        f.write("\n")
    print(f"wrote {path}: {len(cases)} cases, numpy median rank(exp(x x^T)) = {out['exp_outer_n100_c1']['median_rank']}")
    for c in cases:
        print(f"  {c['name']}: rank {c['numpy_rank']}")


if __name__ == "__main__":
    main()
