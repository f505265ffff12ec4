#!/usr/bin/env python3
"""Reference numbers for the head atlas (issue 17), computed independently in float64 from the safetensors:

copying   for every head, the eigenvalues of the explicit vocab × vocab OV circuit W_E·W_V^h·W_O^h·W_U (x·W
          convention, no norms, no biases; W_U the tied wte or lm_head transposed; GQA: query head h reads kv
          head h // (H / H_kv)) and Σ Re λ / Σ |λ|, for fixtures/lm-buddy/tiny_gpt2 (vocab 21), models/gpt2_tiny
          (vocab 377) and decoders/llama-gqa (vocab 409).
probe     models/gpt2_tiny on a fixed probe [<|endoftext|>] r₁…r_T r₁…r_T (T = 8): the attention of every head
          from make_hf_reference.gpt2_forward and the six pattern scores, as defined in core/atlas/probe_scores.h.

Run with /usr/bin/python3 (torch, numpy); writes tests/reference/atlas_reference.json.
"""
import json
import os
import sys

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import make_hf_reference as hf  # noqa: E402

PROBE_T = 8
PROBE_TOKENS = [17, 3, 250, 42, 99, 5, 311, 128]


def copying(we, wu, wvs, wos, heads, kv_heads, dh):
    """we [V, d], wu [d, V]; wvs[l] [d, H_kv·dh], wos[l] [H·dh, d]. Scores per layer and head."""
    out = []
    for wv, wo in zip(wvs, wos):
        row = []
        for h in range(heads):
            g = h // (heads // kv_heads)
            ov = we @ wv[:, g * dh:(g + 1) * dh] @ wo[h * dh:(h + 1) * dh, :] @ wu  # [V, V]
            lam = np.linalg.eigvals(ov.numpy())
            row.append(float(lam.real.sum() / np.abs(lam).sum()))
        out.append(row)
    return out


def gpt2_copying(folder):
    cfg = json.load(open(os.path.join(folder, 'config.json')))
    w = {k.removeprefix('transformer.'): v for k, v in hf.read_safetensors(os.path.join(folder, 'model.safetensors')).items()}
    d, heads = cfg['n_embd'], cfg['n_head']
    we = w['wte.weight']
    wu = (w['lm_head.weight'] if 'lm_head.weight' in w else we).T
    wvs = [w[f'h.{l}.attn.c_attn.weight'][:, 2 * d:] for l in range(cfg['n_layer'])]
    wos = [w[f'h.{l}.attn.c_proj.weight'] for l in range(cfg['n_layer'])]
    return copying(we, wu, wvs, wos, heads, heads, d // heads)


def llama_copying(folder):
    cfg = json.load(open(os.path.join(folder, 'config.json')))
    w = hf.read_safetensors(os.path.join(folder, 'model.safetensors'))
    heads, kv = cfg['num_attention_heads'], cfg['num_key_value_heads']
    dh = cfg.get('head_dim') or cfg['hidden_size'] // heads
    we = w['model.embed_tokens.weight']
    wu = (w['lm_head.weight'] if 'lm_head.weight' in w else we).T
    p = 'model.layers.{}.self_attn.'
    wvs = [w[p.format(l) + 'v_proj.weight'].T for l in range(cfg['num_hidden_layers'])]  # nn.Linear [out, in]
    wos = [w[p.format(l) + 'o_proj.weight'].T for l in range(cfg['num_hidden_layers'])]
    return copying(we, wu, wvs, wos, heads, kv, dh)


def probe_scores(attention, offset, t):
    """attention [n, n] float64 of one head on the probe; the scores of core/atlas/probe_scores.h."""
    a = attention.numpy()
    n = a.shape[0]
    rows = np.arange(n)
    second = np.arange(offset + t, offset + 2 * t)
    with np.errstate(divide='ignore', invalid='ignore'):
        plogp = np.where(a > 0, a * np.log(a), 0.0)
    return {
        'previous_token': float(a[rows[1:], rows[1:] - 1].mean()),
        'induction': float(a[second, second - t + 1].mean()),
        'duplicate_token': float(a[second, second - t].mean()),
        'bos': float(a[:, 0].mean()),
        'entropy': float(-plogp.sum(axis=1).mean()),
        'mean_distance': float((a * np.abs(rows[:, None] - rows[None, :])).sum(axis=1).mean()),
    }


def probe_case():
    folder = os.path.join(HERE, 'models', 'gpt2_tiny')
    cfg = json.load(open(os.path.join(folder, 'config.json')))
    w = {k.removeprefix('transformer.'): v for k, v in hf.read_safetensors(os.path.join(folder, 'model.safetensors')).items()}
    ids = [cfg['bos_token_id']] + PROBE_TOKENS + PROBE_TOKENS
    result = hf.gpt2_forward(w, cfg, torch.tensor(ids), '')
    scores = {}
    for l, layer in enumerate(result['layers']):
        for head in layer['heads']:
            for name, value in probe_scores(head['attention'], 1, PROBE_T).items():
                scores.setdefault(name, [[] for _ in result['layers']])
                scores[name][l].append(value)
    return {'model': 'models/gpt2_tiny', 'ids': ids, 'repeat': PROBE_T, 'offset': 1, 'scores': scores}


def main():
    out = {
        'source': 'tests/reference/make_atlas_reference.py (float64 numpy/torch from the safetensors)',
        'copying': [
            {'model': 'fixtures/lm-buddy/tiny_gpt2', 'scores': gpt2_copying(os.path.join(HERE, '..', 'fixtures', 'lm-buddy', 'tiny_gpt2'))},
            {'model': 'reference/models/gpt2_tiny', 'scores': gpt2_copying(os.path.join(HERE, 'models', 'gpt2_tiny'))},
            {'model': 'reference/decoders/llama-gqa', 'scores': llama_copying(os.path.join(HERE, 'decoders', 'llama-gqa'))},
        ],
        'probe': probe_case(),
    }
    with open(os.path.join(HERE, 'atlas_reference.json'), 'w') as f:
        json.dump(out, f, indent=1)
        f.write('\n')


if __name__ == '__main__':
    main()
