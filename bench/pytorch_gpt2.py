#!/usr/bin/python3
"""The PyTorch side of the GPT-2-small comparison: the same checkpoint (written by bench_gpt2), the same
64 tokens, the same thread count, every attention map and hidden state kept (as output_attentions=True and
output_hidden_states=True would), float32, no autograd.

    OPENBLAS_NUM_THREADS=2 /usr/bin/python3 bench/pytorch_gpt2.py [--dir DIR] [--tokens 64] [--threads 2] [--runs 20]

Debian's python3-torch does its matrix products through the system BLAS: install libopenblas0-pthread so that
is OpenBLAS. Plain torch, no transformers package: the forward pass below is GPT-2's, written out.
"""
import argparse
import json
import os
import statistics
import struct
import time

import numpy as np
import torch
import torch.nn.functional as F


def load_safetensors(path):
    """Zero-copy views of an F32 safetensors file (numpy memmap), as torch tensors."""
    with open(path, 'rb') as f:
        n = struct.unpack('<Q', f.read(8))[0]
        header = json.loads(f.read(n))
    data = np.memmap(path, dtype=np.uint8, mode='c', offset=8 + n)  # copy-on-write: writable, still no copy
    out = {}
    for name, info in header.items():
        if name == '__metadata__':
            continue
        assert info['dtype'] == 'F32', name
        b, e = info['data_offsets']
        out[name] = torch.from_numpy(np.frombuffer(data[b:e], dtype=np.float32).reshape(info['shape']))
    return out


def forward(w, cfg, ids):
    d, h = cfg['n_embd'], cfg['n_head']
    dh, n, eps = d // h, ids.shape[0], cfg.get('layer_norm_epsilon', 1e-5)
    mask = torch.triu(torch.ones(n, n, dtype=torch.bool), 1)
    x = w['wte.weight'][ids] + w['wpe.weight'][:n]
    hidden, attentions = [x], []
    for l in range(cfg['n_layer']):
        p = f'h.{l}.'
        a = F.layer_norm(x, (d,), w[p + 'ln_1.weight'], w[p + 'ln_1.bias'], eps)
        qkv = torch.addmm(w[p + 'attn.c_attn.bias'], a, w[p + 'attn.c_attn.weight'])       # [n, 3d]
        q, k, v = (t.reshape(n, h, dh).transpose(0, 1) for t in qkv.split(d, dim=1))    # [h, n, dh]
        scores = torch.matmul(q, k.transpose(1, 2)) / dh ** 0.5                         # [h, n, n]
        att = torch.softmax(scores.masked_fill(mask, float('-inf')), dim=-1)
        attentions.append(att)
        y = torch.matmul(att, v).transpose(0, 1).reshape(n, d)
        x = x + torch.addmm(w[p + 'attn.c_proj.bias'], y, w[p + 'attn.c_proj.weight'])
        m = F.layer_norm(x, (d,), w[p + 'ln_2.weight'], w[p + 'ln_2.bias'], eps)
        m = F.gelu(torch.addmm(w[p + 'mlp.c_fc.bias'], m, w[p + 'mlp.c_fc.weight']), approximate='tanh')
        x = x + torch.addmm(w[p + 'mlp.c_proj.bias'], m, w[p + 'mlp.c_proj.weight'])
        hidden.append(x)
    return hidden, attentions


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--dir', default='/tmp/attnlab-bench-gpt2-small')
    ap.add_argument('--tokens', type=int, default=64)
    ap.add_argument('--threads', type=int, default=2)
    ap.add_argument('--runs', type=int, default=20)
    ap.add_argument('--intra-op-threads', type=int, default=None,
                    help="torch's own threads (default: --threads); the products use OPENBLAS_NUM_THREADS")
    args = ap.parse_args()
    torch.set_num_threads(args.intra_op_threads or args.threads)
    cfg = json.load(open(os.path.join(args.dir, 'config.json')))
    w = load_safetensors(os.path.join(args.dir, 'model.safetensors'))
    w = {k[len('transformer.'):] if k.startswith('transformer.') else k: v for k, v in w.items()}
    ids = torch.arange(args.tokens) * 97 % cfg['vocab_size']
    times = []
    with torch.inference_mode():
        for r in range(args.runs + 3):
            t0 = time.perf_counter()
            hidden, att = forward(w, cfg, ids)
            if r >= 3:
                times.append((time.perf_counter() - t0) * 1000)
    blas = 'OpenBLAS' if os.path.realpath('/usr/lib/x86_64-linux-gnu/libblas.so.3').find('openblas') >= 0 else 'system BLAS'
    blas_threads = os.environ.get('OPENBLAS_NUM_THREADS', '?')
    print(f'pytorch  GPT-2 small, {args.tokens} tokens, {torch.get_num_threads()} intra-op / {blas_threads} BLAS threads '
          f'({torch.__version__}, {blas}): '
          f'median {statistics.median(times):.1f} ms, min {min(times):.1f} ms over {args.runs} runs')


if __name__ == '__main__':
    main()
