#!/usr/bin/python3
"""The PyTorch side of bench_encdec: the random opus-mt-en-de (Marian), t5-small (T5 v1.0) or bart-base (BART)
checkpoint bench_encdec wrote, the same ids, the same thread count, the same three measurements:

    edit       forward of the 30-token source and the 31-token decoder input, every map kept (each head's softmax
               matrix of the encoder, the decoder's self-attention and its cross-attention), no logits
    steps      start (encoder + each layer's cross K/V once) + 30 greedy steps on the KV cache (self K/V appended)
    translate  steps + the edit's forward over source + translation for the maps

    OPENBLAS_NUM_THREADS=2 OMP_NUM_THREADS=2 /usr/bin/python3 bench/pytorch_encdec.py --dir DIR [--threads 2]

Plain torch, no transformers package: the passes are written from modeling_marian.py / modeling_bart.py /
modeling_t5.py (post-LN LayerNorm blocks for Marian and BART, pre-RMSNorm blocks with the bucketed relative position
bias for T5), float32, no autograd; q|k|v of self-attention and k|v of cross-attention concatenated once at load, as
the C++ side packs them.
"""
import argparse
import json
import math
import os
import statistics
import sys
import time

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pytorch_decoder import read_checkpoint  # noqa: E402


class Model:
    def __init__(self, w, cfg):
        self.cfg, self.w = cfg, w
        self.t5 = cfg['model_type'] == 't5'
        self.bart = cfg['model_type'] == 'bart'
        d = cfg['d_model']
        self.d = d
        if self.t5:
            self.heads, self.layers = cfg['num_heads'], cfg['num_layers']
            self.table = w['shared.weight']
        else:
            self.heads, self.layers = cfg['encoder_attention_heads'], cfg['encoder_layers']
            self.table = w['model.shared.weight']
        self.dh = cfg.get('d_kv') or d // self.heads
        self.enc, self.dec = [], []
        for stack, out in (('encoder', self.enc), ('decoder', self.dec)):
            for l in range(self.layers):
                out.append(self.t5_layer(stack, l) if self.t5 else self.bart_layer(stack, l))
        if not self.t5:
            self.bias = w['final_logits_bias'][0]

    def bart_layer(self, stack, l):
        w, p = self.w, f'model.{stack}.layers.{l}.'
        L = {}
        for a in ['self_attn'] + (['encoder_attn'] if stack == 'decoder' else []):
            q = a + '.'
            L[a] = {
                'qkv': torch.cat([w[p + q + t + '_proj.weight'] for t in 'qkv']).contiguous(),
                'qkv_b': torch.cat([w[p + q + t + '_proj.bias'] for t in 'qkv']),
                'o': w[p + q + 'out_proj.weight'], 'o_b': w[p + q + 'out_proj.bias'],
                'ln': (w[p + a + '_layer_norm.weight'], w[p + a + '_layer_norm.bias'])}
        L['fc1'], L['fc1_b'], L['fc2'], L['fc2_b'] = (w[p + 'fc1.weight'], w[p + 'fc1.bias'], w[p + 'fc2.weight'],
                                                      w[p + 'fc2.bias'])
        L['ln'] = (w[p + 'final_layer_norm.weight'], w[p + 'final_layer_norm.bias'])
        return L

    def t5_layer(self, stack, b):
        w, p = self.w, f'{stack}.block.{b}.layer.'
        L = {'self_attn': {'qkv': torch.cat([w[p + '0.SelfAttention.' + t + '.weight'] for t in 'qkv']).contiguous(),
                           'qkv_b': None, 'o': w[p + '0.SelfAttention.o.weight'], 'o_b': None,
                           'ln': w[p + '0.layer_norm.weight']}}
        if stack == 'decoder':
            L['encoder_attn'] = {
                'qkv': torch.cat([w[p + '1.EncDecAttention.' + t + '.weight'] for t in 'qkv']).contiguous(),
                'qkv_b': None, 'o': w[p + '1.EncDecAttention.o.weight'], 'o_b': None,
                'ln': w[p + '1.layer_norm.weight']}
        f = p + ('2' if stack == 'decoder' else '1')
        L['fc1'], L['fc2'], L['ln'] = (w[f + '.DenseReluDense.wi.weight'], w[f + '.DenseReluDense.wo.weight'],
                                       w[f + '.layer_norm.weight'])
        return L

    # --- pieces ---
    def norm(self, x, ln):
        if self.t5:
            return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.cfg.get('layer_norm_epsilon', 1e-6)) * ln
        return F.layer_norm(x, (self.d,), ln[0], ln[1], 1e-5)

    def act(self, x):
        if self.t5:
            return torch.relu(x)
        return F.silu(x) if self.cfg['activation_function'] == 'swish' else F.gelu(x)

    def positions(self, first, n, stack):
        if self.bart:
            return self.w[f'model.{stack}.embed_positions.weight'][first + 2:first + 2 + n]
        pos = torch.arange(first, first + n, dtype=torch.float32)[:, None]
        j = torch.arange(self.d)[None, :]
        enc = pos / torch.pow(10000.0, 2 * (j // 2) / self.d)
        half = self.d // 2
        return torch.cat([torch.sin(enc[:, 0::2]), torch.cos(enc[:, 1::2])], dim=1)[:, :self.d] if half else enc

    def embed(self, ids, first, stack):
        x = self.table[ids]
        if self.t5:
            return x
        if self.cfg.get('scale_embedding'):
            x = x * math.sqrt(self.d)
        x = x + self.positions(first, len(ids), stack)
        if self.bart:
            x = F.layer_norm(x, (self.d,), self.w[f'model.{stack}.layernorm_embedding.weight'],
                             self.w[f'model.{stack}.layernorm_embedding.bias'], 1e-5)
        return x

    def bucket(self, rel, bidirectional):
        nb, md = self.cfg['relative_attention_num_buckets'], self.cfg['relative_attention_max_distance']
        out = torch.zeros_like(rel)
        if bidirectional:
            nb //= 2
            out += (rel > 0).long() * nb
            rel = rel.abs()
        else:
            rel = -torch.min(rel, torch.zeros_like(rel))
        exact = nb // 2
        large = exact + (torch.log(rel.float() / exact) / math.log(md / exact) * (nb - exact)).long()
        large = torch.min(large, torch.full_like(large, nb - 1))
        return out + torch.where(rel < exact, rel, large)

    def position_bias(self, stack, first, nq, nk):
        if not self.t5:
            return None
        rel = torch.arange(nk)[None, :] - torch.arange(first, first + nq)[:, None]
        table = self.w[f'{stack}.block.0.layer.0.SelfAttention.relative_attention_bias.weight']
        return table[self.bucket(rel, stack == 'encoder')].permute(2, 0, 1)  # [H, nq, nk]

    def attend(self, q, k, v, bias, mask, maps):
        """q [nq, a], k/v [nk, a] → [nq, a]; the softmax matrices [H, nq, nk] appended to maps."""
        H, dh = self.heads, self.dh
        q = q.view(-1, H, dh).transpose(0, 1)
        k = k.view(-1, H, dh).transpose(0, 1)
        v = v.view(-1, H, dh).transpose(0, 1)
        s = torch.matmul(q, k.transpose(1, 2))
        if not self.t5:
            s = s / math.sqrt(dh)
        if bias is not None:
            s = s + bias
        if mask is not None:
            s = s + mask
        a = torch.softmax(s, dim=-1)
        if maps is not None:
            maps.append(a)
        return torch.matmul(a, v).transpose(0, 1).reshape(q.shape[1], H * dh)

    def block(self, x, f, ln):
        """Post-LN x ← LN(x + f(x)) (Marian, BART) or pre-RMSNorm x ← x + f(RMSNorm(x)) (T5)."""
        return x + f(self.norm(x, ln)) if self.t5 else self.norm(x + f(x), ln)

    def ff(self, x, L):
        return F.linear(self.act(F.linear(x, L['fc1'], L.get('fc1_b'))), L['fc2'], L.get('fc2_b'))

    def stack_out(self, x, stack):
        return self.norm(x, self.w[f'{stack}.final_layer_norm.weight']) if self.t5 else x

    # --- passes ---
    def encode(self, src, maps=None):
        n, a = len(src), self.heads * self.dh
        x = self.embed(src, 0, 'encoder')
        bias = self.position_bias('encoder', 0, n, n)
        for L in self.enc:
            A = L['self_attn']

            def sa(h, A=A):
                qkv = F.linear(h, A['qkv'], A['qkv_b'])
                return F.linear(self.attend(qkv[:, :a], qkv[:, a:2 * a], qkv[:, 2 * a:], bias, None, maps), A['o'],
                                A['o_b'])
            x = self.block(x, sa, A['ln'])
            x = self.block(x, lambda h, L=L: self.ff(h, L), L['ln'])
        return self.stack_out(x, 'encoder')

    def forward(self, src, tgt):
        """Every map kept (encoder, decoder self, cross), no logits: the dump's pass."""
        maps = []
        enc = self.encode(src, maps)
        n, a = len(tgt), self.heads * self.dh
        y = self.embed(tgt, 0, 'decoder')
        bias = self.position_bias('decoder', 0, n, n)
        mask = torch.triu(torch.full((n, n), float('-inf')), 1)
        for L in self.dec:
            S, C = L['self_attn'], L['encoder_attn']

            def sa(h, S=S):
                qkv = F.linear(h, S['qkv'], S['qkv_b'])
                return F.linear(self.attend(qkv[:, :a], qkv[:, a:2 * a], qkv[:, 2 * a:], bias, mask, maps), S['o'],
                                S['o_b'])

            def ca(h, C=C):
                q = F.linear(h, C['qkv'][:a], None if C['qkv_b'] is None else C['qkv_b'][:a])
                kv = F.linear(enc, C['qkv'][a:], None if C['qkv_b'] is None else C['qkv_b'][a:])
                return F.linear(self.attend(q, kv[:, :a], kv[:, a:], None, None, maps), C['o'], C['o_b'])
            y = self.block(y, sa, S['ln'])
            y = self.block(y, ca, C['ln'])
            y = self.block(y, lambda h, L=L: self.ff(h, L), L['ln'])
        return self.stack_out(y, 'decoder'), maps

    def logits(self, y):
        if self.t5:
            return F.linear(y * self.d ** -0.5, self.table)
        return F.linear(y, self.table, self.bias)

    def greedy(self, src, start, steps):
        """KV-cached greedy decoding: cross K/V once per layer, self K/V appended per step."""
        a = self.heads * self.dh
        enc = self.encode(src)
        cross = []
        for L in self.dec:
            C = L['encoder_attn']
            kv = F.linear(enc, C['qkv'][a:], None if C['qkv_b'] is None else C['qkv_b'][a:])
            cross.append((kv[:, :a], kv[:, a:]))
        cache = [(torch.empty(0, a), torch.empty(0, a)) for _ in self.dec]
        out = [start]
        for pos in range(steps):
            y = self.embed(torch.tensor([out[-1]]), pos, 'decoder')
            bias = self.position_bias('decoder', pos, 1, pos + 1)
            for i, L in enumerate(self.dec):
                S, C = L['self_attn'], L['encoder_attn']

                def sa(h, S=S, i=i):
                    qkv = F.linear(h, S['qkv'], S['qkv_b'])
                    k = torch.cat([cache[i][0], qkv[:, a:2 * a]])
                    v = torch.cat([cache[i][1], qkv[:, 2 * a:]])
                    cache[i] = (k, v)
                    return F.linear(self.attend(qkv[:, :a], k, v, bias, None, None), S['o'], S['o_b'])

                def ca(h, C=C, i=i):
                    q = F.linear(h, C['qkv'][:a], None if C['qkv_b'] is None else C['qkv_b'][:a])
                    return F.linear(self.attend(q, cross[i][0], cross[i][1], None, None, None), C['o'], C['o_b'])
                y = self.block(y, sa, S['ln'])
                y = self.block(y, ca, C['ln'])
                y = self.block(y, lambda h, L=L: self.ff(h, L), L['ln'])
            out.append(int(self.logits(self.stack_out(y, 'decoder'))[0].argmax()))
        return out


def median_ms(runs, fn):
    ms = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        ms.append((time.perf_counter() - t0) * 1000)
    return statistics.median(ms)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--dir', required=True)
    ap.add_argument('--threads', type=int, default=2)
    ap.add_argument('--intra-op-threads', type=int, default=None)
    ap.add_argument('--runs', type=int, default=5)
    args = ap.parse_args()
    torch.set_num_threads(args.intra_op_threads or args.threads)
    cfg = json.load(open(os.path.join(args.dir, 'config.json')))
    m = Model(read_checkpoint(args.dir), cfg)
    vocab = cfg['vocab_size']
    src = torch.tensor([(i * 7919 + 13) % vocab for i in range(30)])
    start = cfg['decoder_start_token_id']
    tgt = torch.tensor([start] + [(i * 104729 + 5) % vocab for i in range(30)])
    state = {}
    with torch.inference_mode():
        m.forward(src, tgt)  # warm-up

        def edit():
            y, maps = m.forward(src, tgt)
            state['mean'] = y.abs().mean().item()

        def steps():
            state['translation'] = m.greedy(src, start, 30)

        def translate():
            steps()
            m.forward(src, torch.tensor(state['translation']))
        edit_ms, steps_ms, translate_ms = (median_ms(args.runs, f) for f in (edit, steps, translate))
    name = os.path.basename(args.dir.rstrip('/'))
    label = f'pytorch  {name}, {torch.get_num_threads()} intra-op / {os.environ.get("OPENBLAS_NUM_THREADS", "?")} ' \
            f'BLAS threads ({torch.__version__}), medians of {args.runs} runs:'
    print(label)
    print(f'pytorch    edit       every map, 30 + 31 tokens         {edit_ms:8.1f} ms')
    print(f'pytorch    translate  30 steps + forward for the maps   {translate_ms:8.1f} ms')
    print(f'pytorch    steps      start + 30 cached steps alone     {steps_ms:8.1f} ms  ({steps_ms / 30:.1f} ms a step)')
    print(f'pytorch    check      mean |decoder output| {state["mean"]:.6f}; translation starts',
          ' '.join(str(t) for t in state['translation'][:6]))


if __name__ == '__main__':
    main()
