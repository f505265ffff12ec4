#!/usr/bin/python3
"""Independent PyTorch reference for the built-in transformer's forward pass.

Writes tests/reference/builtin_forward_reference.json, read by tests/core/model/test_reference_builtin.cpp ("cases")
and tests/core/model/test_reference_builtin_encdec.cpp ("encdec_cases", rung 7).
Run with Debian's interpreter (it has python3-torch):  /usr/bin/python3 tests/reference/make_builtin_reference.py

The forward pass below is written from the definitions of the teaching ladder (see the rung list
in core/model_config.h), not from the C++ code, and uses torch's own operators:

  basic      Q = K = V = X (no parameters, one head of width d); A = softmax(X·Xᵀ); y = A·X
  qkv        + Q = X·Wq, K = X·Wk, V = X·Wv (one head of width d, no scaling yet)
  scaled     + scores·1/√d_head, when the `scale` switch is on
  multihead  + `heads` heads of width d/heads (head h reads columns h·d_head …), outputs
               concatenated and unified by Wo
  causal     + causal mask (always on at this rung; the `causal` switch adds it at any rung)
  block      + residual (`skip`), LayerNorm (`norm` pre / post / none) and the MLP
               (`mlp`: x·W1 + b1 → GELU-tanh or ReLU → ·W2 + b2, hidden width 4·d).
               pre:  x ← x + attn(LN1(x));  x ← x + mlp(LN2(x))
               post: x ← LN1(x + attn(x));  x ← LN2(x + mlp(x))
               none: x ← x + attn(x);       x ← x + mlp(x)     (without skip the "x +" goes away)

Rung 7, encdec (ENCDEC_CASES, "encdec_cases"): the block stack as an encoder–decoder with the same weights.
  encoder:  the block rung on the source Xs [n_src, d], no mask (the `causal` switch is ignored)
  decoder:  on the target Xt [n_tgt, d], per layer with that layer's weights:
              self-attention with a causal mask, placed as in the block;
              cross-attention: Q = c_in·Wq (c_in the target stream, LN1'd when pre), K = E·Wk, V = E·Wv with E the
              encoder's final output, no mask, ·Wo, placed like self-attention with LN1's weights
                pre:  y ← y + cross(LN1(y), E)     post: y ← LN1(y + cross(y, E))     none / no skip likewise;
            then the MLP sub-block as in the block.

Weights are stored [in, out] and applied as x·W. Every case draws its own X [n, d] and weights from
a fixed torch seed; the C++ random generator is deliberately not reproduced. X and the weights are
rounded to float32 *before* the float64 forward pass, so the C++ engine (which runs in float) gets
exactly the numbers the reference used and the comparison measures only the engine's own rounding.
To keep the file small the inputs are first rounded to 4 significant decimal digits (they are
arbitrary random numbers anyway) and written that way: a reader gets the exact values by parsing
the decimal as a double and rounding it to float, which is what both this script and the C++ test
do. The expected trace is float64, written with 12 significant digits (a rounding error of 5e-13
relative, far below the test's 1e-5 tolerance).
"""

import json
import math
import os
import sys

import torch
import torch.nn.functional as F

LAYER_NORM_EPS = 1e-5
RUNGS = ["basic", "qkv", "scaled", "multihead", "causal", "block"]

# The defaults of a ModelConfig (core/model_config.h), as core/params_json.cpp names them.
DEFAULT_CONFIG = {
    "d_model": 64,
    "heads": 4,
    "layers": 2,
    "seed": 42,
    "mode": "block",
    "position": "sinusoidal",
    "scale": True,
    "causal": False,
    "skip": True,
    "mlp": True,
    "norm": "pre",
    "activation": "gelu",
}

# name, config overrides, tokens n, std of X. Rungs below `block` keep the default skip/norm/mlp
# switches on purpose: they must be ignored there, as must `scale` below `scaled` and `heads` below
# `multihead`. X's std is chosen so that no softmax row is trivially one-hot (printed at the end).
CASES = [
    ("basic", dict(mode="basic", d_model=8, heads=2, layers=1, position="none"), 5, 0.5),
    ("basic_2_layers", dict(mode="basic", d_model=8, heads=1, layers=2), 4, 0.5),
    ("basic_causal_switch", dict(mode="basic", d_model=8, heads=1, layers=1, causal=True), 5, 0.5),
    ("qkv", dict(mode="qkv", d_model=16, heads=4, layers=1), 5, 0.6),
    ("qkv_2_layers", dict(mode="qkv", d_model=16, heads=4, layers=2), 5, 0.6),
    ("scaled", dict(mode="scaled", d_model=16, heads=4, layers=2), 5, 1.0),
    ("scaled_scale_off", dict(mode="scaled", d_model=16, heads=4, layers=1, scale=False), 5, 0.6),
    ("multihead", dict(mode="multihead", d_model=16, heads=4, layers=2), 6, 1.0),
    ("multihead_scale_off", dict(mode="multihead", d_model=16, heads=4, layers=2, scale=False), 6, 0.7),
    ("multihead_causal_switch", dict(mode="multihead", d_model=16, heads=2, layers=1, causal=True), 6, 1.0),
    ("causal", dict(mode="causal", d_model=16, heads=2, layers=2, causal=False), 6, 1.0),
    ("block_pre", dict(mode="block", d_model=16, heads=2, layers=2, norm="pre"), 5, 1.0),
    ("block_post", dict(mode="block", d_model=16, heads=2, layers=2, norm="post"), 5, 1.0),
    ("block_norm_none", dict(mode="block", d_model=16, heads=2, layers=2, norm="none"), 5, 1.0),
    ("block_no_skip", dict(mode="block", d_model=16, heads=2, layers=2, skip=False), 5, 1.0),
    ("block_post_no_skip", dict(mode="block", d_model=16, heads=2, layers=2, norm="post", skip=False), 5, 1.0),
    ("block_no_mlp", dict(mode="block", d_model=16, heads=2, layers=2, mlp=False), 5, 1.0),
    ("block_post_no_mlp", dict(mode="block", d_model=16, heads=2, layers=2, norm="post", mlp=False), 5, 1.0),
    ("block_relu", dict(mode="block", d_model=16, heads=2, layers=2, activation="relu"), 5, 1.0),
    ("block_scale_off", dict(mode="block", d_model=16, heads=4, layers=1, scale=False), 5, 0.7),
    ("block_causal_switch", dict(mode="block", d_model=16, heads=2, layers=2, causal=True), 6, 1.0),
    # Rows of std 0.01: LayerNorm's variance (~1e-4) is then comparable to eps, so eps counts.
    ("block_small_inputs", dict(mode="block", d_model=16, heads=2, layers=1, norm="pre"), 5, 0.01),
    ("block_one_head", dict(mode="block", d_model=12, heads=1, layers=1, norm="post", activation="relu"), 4, 1.0),
    ("default_shape", dict(), 6, 1.0),
    ("n33", dict(mode="block", d_model=16, heads=2, layers=2, causal=True), 33, 1.0),
]


# Rung 7 (encdec): name, config overrides, n_src, n_tgt, std of X (n_src ≠ n_tgt so a transposed map shows).
ENCDEC_CASES = [
    ("encdec_pre", dict(mode="encdec", d_model=16, heads=4, layers=2, norm="pre"), 5, 4, 1.0),
    ("encdec_post", dict(mode="encdec", d_model=16, heads=4, layers=2, norm="post"), 5, 4, 1.0),
    ("encdec_norm_none", dict(mode="encdec", d_model=16, heads=2, layers=2, norm="none"), 4, 6, 0.7),
    ("encdec_post_no_skip", dict(mode="encdec", d_model=16, heads=2, layers=2, norm="post", skip=False), 5, 3, 1.0),
    ("encdec_pre_no_mlp_relu", dict(mode="encdec", d_model=12, heads=3, layers=2, mlp=False), 6, 5, 1.0),
    ("encdec_causal_switch_ignored", dict(mode="encdec", d_model=16, heads=4, layers=2, causal=True, activation="relu"),
     5, 5, 1.0),
    ("encdec_one_target_token", dict(mode="encdec", d_model=16, heads=4, layers=1, norm="post"), 5, 1, 1.0),
]


# ---------------------------------------------------------------------------------------------------
# The ladder, from the definitions


def structure(cfg):
    """What a config means once its rung is applied."""
    if cfg["mode"] == "encdec":  # the encoder: the block rung without a mask
        return dict(structure(dict(cfg, mode="block")), causal=False)
    rung = RUNGS.index(cfg["mode"])
    d = cfg["d_model"]
    heads = cfg["heads"] if rung >= RUNGS.index("multihead") else 1
    block = cfg["mode"] == "block"
    return dict(
        projections=rung >= RUNGS.index("qkv"),
        heads=heads,
        d_head=d // heads,
        wo=rung >= RUNGS.index("multihead"),
        scale=rung >= RUNGS.index("scaled") and cfg["scale"],
        causal=cfg["causal"] or cfg["mode"] == "causal",
        skip=block and cfg["skip"],
        mlp=block and cfg["mlp"],
        norm=cfg["norm"] if block else "none",
    )


def attention(x, w, s):
    """Attention sub-block on x [n, d]: returns (per-head records, concat [n, d], output [n, d])."""
    n, d = x.shape
    if s["projections"]:
        q, k, v = x @ w["wq"], x @ w["wk"], x @ w["wv"]
    else:
        q = k = v = x
    factor = 1.0 / math.sqrt(s["d_head"]) if s["scale"] else 1.0
    future = torch.triu(torch.ones(n, n, dtype=torch.bool), diagonal=1)  # key j > query i
    heads = []
    for h in range(s["heads"]):
        cols = slice(h * s["d_head"], (h + 1) * s["d_head"])
        qh, kh, vh = q[:, cols], k[:, cols], v[:, cols]
        scores = (qh @ kh.T) * factor  # [n, n], recorded before the mask
        logits = scores.masked_fill(future, float("-inf")) if s["causal"] else scores
        a = torch.softmax(logits, dim=-1)
        heads.append(dict(q=qh, k=kh, v=vh, scores=scores, attention=a, output=a @ vh))
    concat = torch.cat([h["output"] for h in heads], dim=1)
    out = concat @ w["wo"] if s["wo"] else concat
    return heads, concat, out


def cross_attention(y, enc, w, s):
    """Cross-attention of target rows y [n_tgt, d] over the encoder's output enc [n_src, d], no mask."""
    q, k, v = y @ w["wq"], enc @ w["wk"], enc @ w["wv"]
    factor = 1.0 / math.sqrt(s["d_head"]) if s["scale"] else 1.0
    heads = []
    for h in range(s["heads"]):
        cols = slice(h * s["d_head"], (h + 1) * s["d_head"])
        qh, kh, vh = q[:, cols], k[:, cols], v[:, cols]
        scores = (qh @ kh.T) * factor  # [n_tgt, n_src]
        a = torch.softmax(scores, dim=-1)
        heads.append(dict(q=qh, k=kh, v=vh, scores=scores, attention=a, output=a @ vh))
    concat = torch.cat([h["output"] for h in heads], dim=1)
    return heads, concat, concat @ w["wo"]


def layer_norm(x, gamma, beta):
    return F.layer_norm(x, (x.shape[1],), weight=gamma, bias=beta, eps=LAYER_NORM_EPS)


def mlp(x, w, activation):
    hidden = x @ w["w1"] + w["b1"]  # [n, 4d]
    hidden = F.gelu(hidden, approximate="tanh") if activation == "gelu" else F.relu(hidden)
    return hidden @ w["w2"] + w["b2"]  # [n, d]


def forward(cfg, x, weights):
    s = structure(cfg)
    layers = []
    for w in weights:
        rec = {}
        pre, post = s["norm"] == "pre", s["norm"] == "post"
        a_in = layer_norm(x, w["ln1_gamma"], w["ln1_beta"]) if pre else x
        rec["heads"], rec["concat"], rec["attention_out"] = attention(a_in, w, s)
        h = x + rec["attention_out"] if s["skip"] else rec["attention_out"]
        if post:
            h = layer_norm(h, w["ln1_gamma"], w["ln1_beta"])
        if s["mlp"]:
            m_in = layer_norm(h, w["ln2_gamma"], w["ln2_beta"]) if pre else h
            rec["mlp_out"] = mlp(m_in, w, cfg["activation"])
            h = h + rec["mlp_out"] if s["skip"] else rec["mlp_out"]
            if post:
                h = layer_norm(h, w["ln2_gamma"], w["ln2_beta"])
        rec["residual_out"] = h
        layers.append(rec)
        x = h
    return layers


def forward_encdec(cfg, xs, xt, weights):
    """Rung 7: (encoder layers, decoder layers, cross records, encoder output, decoder output)."""
    s = structure(cfg)
    encoder = forward(cfg, xs, weights)
    enc = encoder[-1]["residual_out"]
    dec_s = dict(s, causal=True)
    pre, post = s["norm"] == "pre", s["norm"] == "post"
    decoder, cross = [], []
    y = xt
    for w in weights:
        ln1 = lambda t: layer_norm(t, w["ln1_gamma"], w["ln1_beta"])  # noqa: E731
        rec, crec = {}, {}
        a_in = ln1(y) if pre else y
        rec["heads"], rec["concat"], rec["attention_out"] = attention(a_in, w, dec_s)
        h = y + rec["attention_out"] if s["skip"] else rec["attention_out"]
        if post:
            h = ln1(h)
        c_in = ln1(h) if pre else h
        crec["heads"], crec["concat"], crec["attention_out"] = cross_attention(c_in, enc, w, s)
        h = h + crec["attention_out"] if s["skip"] else crec["attention_out"]
        if post:
            h = ln1(h)
        crec["residual_out"] = h
        if s["mlp"]:
            m_in = layer_norm(h, w["ln2_gamma"], w["ln2_beta"]) if pre else h
            rec["mlp_out"] = mlp(m_in, w, cfg["activation"])
            h = h + rec["mlp_out"] if s["skip"] else rec["mlp_out"]
            if post:
                h = layer_norm(h, w["ln2_gamma"], w["ln2_beta"])
        rec["residual_out"] = h
        decoder.append(rec)
        cross.append(crec)
        y = h
    return encoder, decoder, cross, enc, y


# ---------------------------------------------------------------------------------------------------
# Random inputs


def decimal4(t):
    """t rounded to 4 significant decimal digits (float64): what the JSON file holds."""
    return torch.tensor([float(f"{v:.4g}") for v in t.flatten().tolist()], dtype=torch.float64).reshape(t.shape)


def to_f32_exact(t):
    """The float32 values of t, held in float64: what the C++ engine and the reference compute with."""
    return t.to(torch.float32).to(torch.float64)


def draw_case(cfg, n, x_std, gen):
    d = cfg["d_model"]

    def normal(shape, std, mean=0.0):
        return decimal4(mean + std * torch.randn(*shape, generator=gen, dtype=torch.float64))

    x = normal((n, d), x_std)
    weights = []
    for _ in range(cfg["layers"]):
        # Fan-in init like the C++ engine's (std 1/√fan_in), plus biases and LayerNorm affine
        # parameters that are clearly not 0 / 1, so that a dropped or misplaced one shows.
        weights.append(
            dict(
                wq=normal((d, d), 1 / math.sqrt(d)),
                wk=normal((d, d), 1 / math.sqrt(d)),
                wv=normal((d, d), 1 / math.sqrt(d)),
                wo=normal((d, d), 1 / math.sqrt(d)),
                w1=normal((d, 4 * d), 1 / math.sqrt(d)),
                b1=normal((4 * d,), 0.2),
                w2=normal((4 * d, d), 1 / math.sqrt(4 * d)),
                b2=normal((d,), 0.2),
                ln1_gamma=normal((d,), 0.2, mean=1.0),
                ln1_beta=normal((d,), 0.2),
                ln2_gamma=normal((d,), 0.2, mean=1.0),
                ln2_beta=normal((d,), 0.2),
            )
        )
    return x, weights


# ---------------------------------------------------------------------------------------------------
# Compact JSON: nlohmann::json and Python's json read both number forms below.


class Inputs(list):
    """A tensor of 4-significant-digit decimals (see decimal4), written exactly as such."""


class Expected(list):
    """A float64 tensor, written with 12 significant digits."""


def _input_number(v):
    s = repr(v)
    assert float(s) == float(f"{v:.4g}"), (v, s)
    return s


def _expected_number(v):
    assert math.isfinite(v), v
    return f"{v:.12g}"


def _emit(obj, fmt=None):
    if isinstance(obj, (Inputs, Expected)):
        fmt = _input_number if isinstance(obj, Inputs) else _expected_number
        return "[" + ",".join(_emit(o, fmt) for o in obj) + "]"
    if isinstance(obj, list):
        return "[" + ",".join(_emit(o, fmt) for o in obj) + "]"
    if isinstance(obj, dict):
        return "{" + ",".join(json.dumps(k) + ":" + _emit(v, fmt) for k, v in obj.items()) + "}"
    if isinstance(obj, float) and fmt is not None:
        return fmt(obj)
    return json.dumps(obj)


def inputs(t):
    return Inputs(t.tolist())


def expected(t):
    return Expected(t.tolist())


def main():
    out_path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "builtin_forward_reference.json")
    cases = []
    print(f"{'case':26s} {'n':>3s} {'d':>3s}  max attention   min attention row max")
    for index, (name, overrides, n, x_std) in enumerate(CASES):
        cfg = dict(DEFAULT_CONFIG)
        cfg.update(overrides)
        cfg["seed"] = 1000 + index  # the torch seed of this case (the C++ RNG is not involved)
        gen = torch.Generator().manual_seed(cfg["seed"])
        x_dec, weights_dec = draw_case(cfg, n, x_std, gen)
        x = to_f32_exact(x_dec)
        weights = [{k: to_f32_exact(v) for k, v in w.items()} for w in weights_dec]
        layers = forward(cfg, x, weights)

        # Sanity of the case itself: finite, and attention neither uniform nor one-hot everywhere.
        att = torch.stack([h["attention"] for layer in layers for h in layer["heads"]])
        assert all(torch.isfinite(v).all() for layer in layers for k, v in layer.items() if k != "heads")
        print(f"{name:26s} {n:3d} {cfg['d_model']:3d}  {att.max().item():.4f}          "
              f"{att.max(dim=-1).values.min().item():.4f}")

        cases.append(
            {
                "name": name,
                "config": cfg,
                "x": inputs(x_dec),
                "weights": [{k: inputs(v) for k, v in w.items()} for w in weights_dec],
                "expected": [
                    {
                        "heads": [{k: expected(v) for k, v in h.items()} for h in layer["heads"]],
                        **{k: expected(layer[k]) for k in ("concat", "attention_out", "mlp_out", "residual_out")
                           if k in layer},
                    }
                    for layer in layers
                ],
            }
        )

    def expected_layers(layers):
        return [
            {
                "heads": [{k: expected(v) for k, v in h.items()} for h in layer["heads"]],
                **{k: expected(layer[k]) for k in ("concat", "attention_out", "mlp_out", "residual_out")
                   if k in layer},
            }
            for layer in layers
        ]

    encdec_cases = []
    for index, (name, overrides, n_src, n_tgt, x_std) in enumerate(ENCDEC_CASES):
        cfg = dict(DEFAULT_CONFIG)
        cfg.update(overrides)
        cfg["seed"] = 2000 + index
        gen = torch.Generator().manual_seed(cfg["seed"])
        xs_dec, weights_dec = draw_case(cfg, n_src, x_std, gen)
        xt_dec = decimal4(x_std * torch.randn(n_tgt, cfg["d_model"], generator=gen, dtype=torch.float64))
        weights = [{k: to_f32_exact(v) for k, v in w.items()} for w in weights_dec]
        encoder, decoder, cross, enc, dec = forward_encdec(cfg, to_f32_exact(xs_dec), to_f32_exact(xt_dec), weights)
        att = torch.stack([h["attention"].max(dim=-1).values.min() for layer in cross for h in layer["heads"]])
        print(f"{name:30s} src {n_src} tgt {n_tgt} d {cfg['d_model']:3d}  cross min row max {att.min().item():.4f}")
        encdec_cases.append(
            {
                "name": name,
                "config": cfg,
                "x_source": inputs(xs_dec),
                "x_target": inputs(xt_dec),
                "weights": [{k: inputs(v) for k, v in w.items()} for w in weights_dec],
                "expected": {
                    "encoder": expected_layers(encoder),
                    "decoder": expected_layers(decoder),
                    "cross": [
                        {
                            "heads": [{k: expected(v) for k, v in h.items()} for h in c["heads"]],
                            **{k: expected(c[k]) for k in ("concat", "attention_out", "residual_out")},
                        }
                        for c in cross
                    ],
                    "encoder_out": expected(enc),
                    "decoder_out": expected(dec),
                },
            }
        )

    doc = {
        "schema": "attnlab.builtin_reference/1",
        "generator": "tests/reference/make_builtin_reference.py (PyTorch " + torch.__version__ + ", float64)",
        "note": "x and weights are decimals whose float32 roundings (parse as double, round to float) are the "
                "exact inputs of the reference; weights are [in, out], applied as x·W; expected is the float64 "
                "forward pass on those float32 values (12 significant digits); scores are Q·Kᵀ·scale before the "
                "causal mask; mlp_out is absent when the layer has no MLP.",
        "cases": cases,
        "encdec_cases": encdec_cases,
    }
    # One case per line, so that a regenerated file gives a readable git diff.
    text = _emit(doc).replace(',{"name":', ',\n{"name":').replace('"cases":[{', '"cases":[\n{') + "\n"
    json.loads(text)  # well-formed
    with open(out_path, "w", encoding="utf-8") as f:
        f.write(text)
    print(f"wrote {out_path}: {len(cases)} + {len(encdec_cases)} cases, {len(text) / 1e6:.2f} MB")


if __name__ == "__main__":
    sys.exit(main())
