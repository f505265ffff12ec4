#!/usr/bin/python3
"""The PyTorch side of the decoder comparison: the checkpoint bench_decoder wrote (llama or qwen2 config,
F32 or BF16, one file or shards), the same token ids, the same thread count, every attention map and hidden
state kept (as output_attentions=True and output_hidden_states=True would), float32, no autograd.

    OPENBLAS_NUM_THREADS=2 OMP_NUM_THREADS=1 /usr/bin/python3 bench/pytorch_decoder.py --dir DIR \
        [--tokens 64] [--threads 2] [--intra-op-threads 1] [--runs 20]

Plain torch, no transformers package: the forward pass below is written from Hugging Face's
modeling_llama.py / modeling_qwen2.py (RMSNorm in float32, rotate_half RoPE with the llama3 frequency
scaling, grouped-query attention by repeating k/v, eager attention with the weights materialised for every
head, SwiGLU MLP). BF16 files are widened to float32 at load, as the C++ side does. Like the C++ side, q|k|v
and gate|up are concatenated once at load so each is one product (what HF runs as 3 and 2 products).
"""
import argparse
import json
import math
import os
import statistics
import struct
import time

import numpy as np
import torch
import torch.nn.functional as F


def read_safetensors(path):
    """{name: float32 tensor}; F32 as zero-copy memmap views, BF16 widened (bits << 16)."""
    with open(path, 'rb') as f:
        n = struct.unpack('<Q', f.read(8))[0]
        header = json.loads(f.read(n))
    data = np.memmap(path, dtype=np.uint8, mode='c', offset=8 + n)
    out = {}
    for name, info in header.items():
        if name == '__metadata__':
            continue
        b, e = info['data_offsets']
        if info['dtype'] == 'F32':
            a = np.frombuffer(data[b:e], dtype=np.float32)
        elif info['dtype'] == 'BF16':
            a = (np.frombuffer(data[b:e], dtype=np.uint16).astype(np.uint32) << 16).view(np.float32)
        else:
            raise ValueError(f'{path}: {name} has dtype {info["dtype"]}')
        out[name] = torch.from_numpy(a.reshape(info['shape']))
    return out


def read_checkpoint(folder):
    index = os.path.join(folder, 'model.safetensors.index.json')
    if not os.path.exists(index):
        return read_safetensors(os.path.join(folder, 'model.safetensors'))
    w = {}
    for shard in sorted(set(json.load(open(index))['weight_map'].values())):
        w.update(read_safetensors(os.path.join(folder, shard)))
    return w


def inv_frequencies(cfg, dh):
    """HF's rope init: default, or rope_type llama3 (_compute_llama3_parameters)."""
    inv = 1.0 / (cfg.get('rope_theta', 10000.0) ** (torch.arange(0, dh, 2, dtype=torch.int64).float() / dh))
    s = cfg.get('rope_scaling')
    if not s:
        return inv
    assert s.get('rope_type', s.get('type')) == 'llama3', s
    factor, low, high, old = s['factor'], s['low_freq_factor'], s['high_freq_factor'], s['original_max_position_embeddings']
    wavelen = 2 * math.pi / inv
    scaled = torch.where(wavelen > old / low, inv / factor, inv)
    smooth = (old / wavelen - low) / (high - low)
    smoothed = (1 - smooth) * scaled / factor + smooth * scaled
    medium = ~(wavelen < old / high) * ~(wavelen > old / low)
    return torch.where(medium, smoothed, scaled)


def prepare(w, cfg):
    """Per layer: q|k|v [(H + 2·H_kv)·dh, d] and gate|up [2·inner, d] concatenated once."""
    layers = []
    for l in range(cfg['num_hidden_layers']):
        p = f'model.layers.{l}.'
        a, m = p + 'self_attn.', p + 'mlp.'
        qkv_b = None
        if a + 'q_proj.bias' in w:
            qkv_b = torch.cat([w[a + t + '_proj.bias'] for t in 'qkv'])
        layers.append({
            'in': w[p + 'input_layernorm.weight'], 'post': w[p + 'post_attention_layernorm.weight'],
            'qkv': torch.cat([w[a + t + '_proj.weight'] for t in 'qkv']).contiguous(), 'qkv_b': qkv_b,
            'o': w[a + 'o_proj.weight'],
            'gate_up': torch.cat([w[m + 'gate_proj.weight'], w[m + 'up_proj.weight']]).contiguous(),
            'down': w[m + 'down_proj.weight']})
    return layers


def rms_norm(x, g, eps):
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * g


def rotate_half(x):
    h = x.shape[-1] // 2
    return torch.cat((-x[..., h:], x[..., :h]), dim=-1)


def forward(w, layers, cfg, ids):
    d, heads, kv = cfg['hidden_size'], cfg['num_attention_heads'], cfg['num_key_value_heads']
    dh = cfg.get('head_dim') or d // heads
    n, eps, inner = ids.shape[0], cfg['rms_norm_eps'], cfg['intermediate_size']
    freqs = torch.outer(torch.arange(n, dtype=torch.float32), inv_frequencies(cfg, dh))
    emb = torch.cat((freqs, freqs), dim=-1)
    cos, sin = emb.cos(), emb.sin()                                          # [n, dh]
    mask = torch.triu(torch.full((n, n), float('-inf')), 1)
    x = w['model.embed_tokens.weight'][ids]
    hidden, attentions = [x], []
    for L in layers:
        qkv = F.linear(rms_norm(x, L['in'], eps), L['qkv'], L['qkv_b'])       # [n, (H + 2·H_kv)·dh]
        q, k, v = qkv.split([heads * dh, kv * dh, kv * dh], dim=1)
        q = q.view(n, heads, dh).transpose(0, 1)                             # [H, n, dh]
        k = k.view(n, kv, dh).transpose(0, 1)
        v = v.view(n, kv, dh).transpose(0, 1)
        q, k = q * cos + rotate_half(q) * sin, k * cos + rotate_half(k) * sin
        k = k.repeat_interleave(heads // kv, dim=0)                          # HF's repeat_kv
        v = v.repeat_interleave(heads // kv, dim=0)
        att = torch.softmax(torch.matmul(q, k.transpose(1, 2)) / math.sqrt(dh) + mask, dim=-1)
        attentions.append(att)                                               # [H, n, n]
        y = torch.matmul(att, v).transpose(0, 1).reshape(n, heads * dh)
        x = x + F.linear(y, L['o'])
        gu = F.linear(rms_norm(x, L['post'], eps), L['gate_up'])
        x = x + F.linear(F.silu(gu[:, :inner]) * gu[:, inner:], L['down'])
        hidden.append(x)
    return hidden, attentions


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--dir', required=True)
    ap.add_argument('--tokens', type=int, default=64)
    ap.add_argument('--threads', type=int, default=2)
    ap.add_argument('--runs', type=int, default=20)
    ap.add_argument('--intra-op-threads', type=int, default=None,
                    help="torch's own threads (default: --threads); the products use OPENBLAS_NUM_THREADS")
    args = ap.parse_args()
    torch.set_num_threads(args.intra_op_threads or args.threads)
    cfg = json.load(open(os.path.join(args.dir, 'config.json')))
    t0 = time.perf_counter()
    w = read_checkpoint(args.dir)
    layers = prepare(w, cfg)
    open_ms = (time.perf_counter() - t0) * 1000
    ids = torch.arange(args.tokens) * 97 % cfg['vocab_size']
    times = []
    with torch.inference_mode():
        for r in range(args.runs + 3):
            t0 = time.perf_counter()
            hidden, att = forward(w, layers, cfg, ids)
            if r >= 3:
                times.append((time.perf_counter() - t0) * 1000)
    blas = 'OpenBLAS' if 'openblas' in os.path.realpath('/usr/lib/x86_64-linux-gnu/libblas.so.3') else 'system BLAS'
    print(f'pytorch  {os.path.basename(args.dir.rstrip("/"))}, {args.tokens} tokens, {torch.get_num_threads()} '
          f'intra-op / {os.environ.get("OPENBLAS_NUM_THREADS", "?")} BLAS threads ({torch.__version__}, {blas}): '
          f'median {statistics.median(times):.1f} ms, min {min(times):.1f} ms over {args.runs} runs; '
          f'load + concatenate {open_ms:.0f} ms; mean |last residual| {hidden[-1].abs().mean().item():.6f}')


if __name__ == '__main__':
    main()
