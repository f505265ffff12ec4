#!/usr/bin/python3
"""PyTorch timing of the same forward pass as bench_forward (d 64, 4 heads, 2 layers, pre-LN block,
GELU MLP 4d), float32, in eager mode with no autograd: the fair counterpart of our core.

Run with Debian's python3-torch and libopenblas0-pthread installed (otherwise torch falls back to the
reference BLAS), with the same thread count as the C++ bench:  /usr/bin/python3 bench/torch_forward.py
"""
import sys
import time

import torch

threads = int(sys.argv[1]) if len(sys.argv) > 1 else 2
torch.set_num_threads(threads)
torch.manual_seed(0)
D, H, L = 64, 4, 2
DH = D // H


def layer_weights():
    g = lambda *s: torch.randn(*s) / s[0] ** 0.5
    return dict(wq=g(D, D), wk=g(D, D), wv=g(D, D), wo=g(D, D), w1=g(D, 4 * D), b1=torch.zeros(4 * D),
                w2=g(4 * D, D), b2=torch.zeros(D), g1=torch.ones(D), be1=torch.zeros(D), g2=torch.ones(D),
                be2=torch.zeros(D))


W = [layer_weights() for _ in range(L)]


def forward(x):
    trace = []
    for w in W:
        h = torch.nn.functional.layer_norm(x, (D,), w["g1"], w["be1"], 1e-5)
        q = (h @ w["wq"]).view(-1, H, DH).transpose(0, 1)
        k = (h @ w["wk"]).view(-1, H, DH).transpose(0, 1)
        v = (h @ w["wv"]).view(-1, H, DH).transpose(0, 1)
        scores = q @ k.transpose(1, 2) / DH ** 0.5
        a = torch.softmax(scores, dim=-1)
        o = (a @ v).transpose(0, 1).reshape(-1, D)
        x = x + o @ w["wo"]
        m = torch.nn.functional.gelu(torch.nn.functional.layer_norm(x, (D,), w["g2"], w["be2"], 1e-5) @ w["w1"] + w["b1"],
                                     approximate="tanh") @ w["w2"] + w["b2"]
        x = x + m
        trace.append((q, k, v, scores, a, o, x))
    return trace


def median_ms(fn, seconds=0.5, reps=20):
    for _ in range(3):
        fn()
    times, start = [], time.perf_counter()
    while len(times) < reps or time.perf_counter() - start < seconds:
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1e3)
    times.sort()
    return times[len(times) // 2]


print(f"torch {torch.__version__}, threads {torch.get_num_threads()}, BLAS: "
      f"{'openblas' if 'openblas' in torch.__config__.show().lower() else 'see torch.__config__.show()'}")
with torch.inference_mode():
    for n in (6, 16, 64, 256):
        x = torch.randn(n, D)
        print(f"torch forward, {n:4d} tokens: {median_ms(lambda: forward(x)):.4f} ms")
