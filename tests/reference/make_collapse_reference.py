#!/usr/bin/python3
"""Independent PyTorch reference for the rank-collapse deep stacks (core/deep_stack.h).

Writes tests/reference/collapse_reference.json, read by tests/test_collapse_reference.cpp.
Run with Debian's interpreter (it has python3-torch):  /usr/bin/python3 tests/reference/make_collapse_reference.py

Written from the definitions of the seven configurations (core/collapse_settings.h), not from the C++
code, with torch's own operators, all in float64:

  SA(x)   = concat_h softmax((x·Wq_h)(x·Wk_h)ᵀ/√d_head)·(x·Wv_h) · Wo      (head h: columns h·d_head …)
  MLP(x)  = gelu_tanh(x·W1 + b1)·W2 + b2                                    (hidden width 4·d)
  LN(x)   = torch.nn.functional.layer_norm(x, eps=1e-5)·γ + β
  san           x ← SA(x)
  san-skip      x ← x + SA(x)
  san-mlp       x ← MLP(SA(x))
  san-skip-mlp  x ← x + SA(x);      x ← x + MLP(x)
  post-ln       x ← LN(x + SA(x));  x ← LN(x + MLP(x))
  pre-ln        x ← x + SA(LN(x));  x ← x + MLP(LN(x))
  san-ln        x ← LN(SA(x))

  res(X) = X − 1·mean_tokens(X)ᵀ (the plain mean), composite ‖M‖ = √(max col abs-sum · max row abs-sum),
  relative residual ‖res(X_l)‖/‖X_l‖ in the composite and the Frobenius norm, for l = 0 … depth.

X and the weights are drawn from a fixed torch seed (the C++ generator is deliberately not
reproduced), rounded to 6 significant digits and written as decimals: both sides parse the same
decimal into the same double. Biases and LayerNorm parameters are random too, so that each is
exercised. Expected values are written with 17 significant digits.
"""

import json
import math
import os

import torch
import torch.nn.functional as F

CONFIGS = ["san", "san-skip", "san-mlp", "san-skip-mlp", "post-ln", "pre-ln", "san-ln"]
EPS = 1e-5
N, D, HEADS, DEPTH = 6, 8, 2, 5


def rounded(t):
    """Round to 6 significant digits, the precision the file stores inputs with."""
    return torch.tensor([[float(f"{v:.6g}") for v in row] for row in t.reshape(-1, t.shape[-1]).tolist()],
                        dtype=torch.float64).reshape(t.shape)


def draw(gen, *shape, std=1.0):
    return rounded(torch.randn(*shape, generator=gen, dtype=torch.float64) * std)


def make_layer(gen):
    s = 1.0 / math.sqrt(D)
    return {
        "wq": draw(gen, D, D, std=s), "wk": draw(gen, D, D, std=s), "wv": draw(gen, D, D, std=s),
        "wo": draw(gen, D, D, std=s),
        "w1": draw(gen, D, 4 * D, std=s), "b1": draw(gen, 1, 4 * D, std=0.1)[0],
        "w2": draw(gen, 4 * D, D, std=0.5 * s), "b2": draw(gen, 1, D, std=0.1)[0],
        "ln1_gamma": 1 + draw(gen, 1, D, std=0.1)[0], "ln1_beta": draw(gen, 1, D, std=0.1)[0],
        "ln2_gamma": 1 + draw(gen, 1, D, std=0.1)[0], "ln2_beta": draw(gen, 1, D, std=0.1)[0],
    }


def sa(x, w):
    dh = D // HEADS
    outs = []
    for h in range(HEADS):
        cols = slice(h * dh, (h + 1) * dh)
        q, k, v = x @ w["wq"][:, cols], x @ w["wk"][:, cols], x @ w["wv"][:, cols]
        a = torch.softmax(q @ k.T / math.sqrt(dh), dim=-1)
        outs.append(a @ v)
    return torch.cat(outs, dim=1) @ w["wo"]


def mlp(x, w):
    return F.gelu(x @ w["w1"] + w["b1"], approximate="tanh") @ w["w2"] + w["b2"]


def ln(x, gamma, beta):
    return F.layer_norm(x, (D,), gamma, beta, EPS)


def layer(config, x, w):
    ln1 = lambda t: ln(t, w["ln1_gamma"], w["ln1_beta"])
    ln2 = lambda t: ln(t, w["ln2_gamma"], w["ln2_beta"])
    if config == "san":
        return sa(x, w)
    if config == "san-skip":
        return x + sa(x, w)
    if config == "san-mlp":
        return mlp(sa(x, w), w)
    if config == "san-skip-mlp":
        h = x + sa(x, w)
        return h + mlp(h, w)
    if config == "post-ln":
        h = ln1(x + sa(x, w))
        return ln2(h + mlp(h, w))
    if config == "pre-ln":
        h = x + sa(ln1(x), w)
        return h + mlp(ln2(h), w)
    if config == "san-ln":
        return ln1(sa(x, w))
    raise ValueError(config)


def composite(m):
    return math.sqrt(m.abs().sum(dim=0).max().item() * m.abs().sum(dim=1).max().item())


def relative(x):
    r = x - x.mean(dim=0, keepdim=True)
    return composite(r) / composite(x), (torch.linalg.norm(r) / torch.linalg.norm(x)).item()


def matrix(t):
    return [[float(v) for v in row] for row in t.tolist()]


def main():
    gen = torch.Generator().manual_seed(20210305)
    x0 = draw(gen, N, D)
    layers = [make_layer(gen) for _ in range(DEPTH)]
    expected = {}
    for config in CONFIGS:
        x = x0.clone()
        comp, fro = [], []
        for l in range(DEPTH + 1):
            if l > 0:
                x = layer(config, x, layers[l - 1])
            c, f = relative(x)
            comp.append(c)
            fro.append(f)
        expected[config] = {"composite": comp, "fro": fro, "final": matrix(x)}
        print(f"{config:13s} composite " + " ".join(f"{v:.3g}" for v in comp))
    out = {
        "source": "tests/reference/make_collapse_reference.py (PyTorch " + torch.__version__ + ", float64)",
        "tokens": N, "d_model": D, "heads": HEADS, "depth": DEPTH, "layer_norm_eps": EPS,
        "x0": matrix(x0),
        "layers": [{k: (matrix(v) if v.dim() == 2 else [float(e) for e in v.tolist()]) for k, v in w.items()}
                   for w in layers],
        "expected": expected,
    }
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "collapse_reference.json")
    with open(path, "w") as f:
        json.dump(out, f, indent=1, default=lambda v: float(f"{v:.17g}"))
        f.write("\n")
    print("wrote", path)


if __name__ == "__main__":
    main()
