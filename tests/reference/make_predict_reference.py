#!/usr/bin/env python3
"""Reference numbers for core/predict (issue 16): next-token logits and probabilities, head ablation and
activation patching, from an independent float64 PyTorch forward pass written from the model definitions
(make_hf_reference.gpt2_forward, decoder_forward.forward) plus the final norm and the unembedding.

For gpt2_tiny and the llama-gqa and qwen2-bias decoders, on one sentence, at the last position:
  logits, probs           the plain run
  ablated_zero/_mean      logits with head (0, 1)'s output (before the output projection) set to zero, or to
                          its mean over positions
For gpt2_tiny also a patching effect: clean and corrupted sentences of the same token length; head (1, 2)'s
output copied from the clean run into the corrupted one; effect = (patched − corrupt) / (clean − corrupt) of
logit(target) − logit(versus) at the last position.

Run with /usr/bin/python3 (torch); writes tests/reference/predict_reference.json.
"""
import json
import os
import sys

import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import make_hf_reference as hf  # noqa: E402
import decoder_forward as dec  # noqa: E402

ABLATED = (0, 1)
PATCHED = (1, 2)
GPT2_TEXT = 'The cat sat on the mat'
# The two differ in one token (position 11); the tiny vocabulary has no names, so the target is a word.
CLEAN, CORRUPT = 'The cat sat on the mat and the cat gave a', 'The cat sat on the mat and a cat gave a'


class HeadHook:
    """Changes a layer's concatenated head outputs [n, H·dh] before the output projection."""

    def __init__(self, dh):
        self.dh, self.layer, self.ablate, self.mode, self.patch, self.record = dh, 0, None, None, None, []

    def __call__(self, concat):
        concat = concat.clone()
        self.record.append(concat.clone())
        for target, source in ((self.ablate, None), (self.patch, 'clean')):
            if target is None or target[0] != self.layer:
                continue
            cols = slice(target[1] * self.dh, (target[1] + 1) * self.dh)
            if source == 'clean':
                concat[:, cols] = self.clean[self.layer][:, cols]
            elif self.mode == 'zero':
                concat[:, cols] = 0
            else:
                concat[:, cols] = concat[:, cols].mean(dim=0, keepdim=True)
        self.layer += 1
        return concat


def gpt2_logits(w, cfg, ids, hook):
    original = hf.attention

    def attention(*args):
        per_head, concat = original(*args)
        return per_head, hook(concat)

    hf.attention, hook.layer = attention, 0
    try:
        x = hf.gpt2_forward(w, cfg, ids, '')['layers'][-1]['residual_out']
    finally:
        hf.attention = original
    d = cfg['n_embd']
    normed = F.layer_norm(x, (d,), w['ln_f.weight'], w['ln_f.bias'], cfg['layer_norm_epsilon'])
    return normed @ w.get('lm_head.weight', w['wte.weight']).T


def decoder_logits(w, cfg, ids, hook):
    original = dec.attention

    def attention(w_, p, cfg_, s, x, layer, perturb):
        trace, _ = original(w_, p, cfg_, s, x, layer, perturb)
        n, H, Hkv = x.shape[0], s['heads'], s['kv_heads']
        heads_out = torch.stack([trace['attention'][h] @ trace['v'][h // (H // Hkv)] for h in range(H)])
        concat = hook(heads_out.transpose(0, 1).reshape(n, H * s['dh']))
        out = concat @ w_[p + 'o_proj.weight'].T + (w_[p + 'o_proj.bias'] if s['o_bias'] else 0)
        return trace, out

    dec.attention, hook.layer = attention, 0
    try:
        return dec.forward(w, cfg, ids, torch.float32)['logits']
    finally:
        dec.attention = original


def runs(logits_of, dh):
    """The plain and the two ablated runs' last-position logits and probabilities."""
    out = {}
    for name, ablate, mode in (('logits', None, None), ('ablated_zero', ABLATED, 'zero'), ('ablated_mean', ABLATED, 'mean')):
        hook = HeadHook(dh)
        hook.ablate, hook.mode = ablate, mode
        z = logits_of(hook)[-1]
        out[name] = z.tolist()
        if name == 'logits':
            out['probs'] = torch.softmax(z, -1).tolist()
    return out


def gpt2_case():
    folder = os.path.join(HERE, 'models', 'gpt2_tiny')
    cfg = json.load(open(os.path.join(folder, 'config.json')))
    w = {k.removeprefix('transformer.'): v for k, v in hf.read_safetensors(os.path.join(folder, 'model.safetensors')).items()}
    vocab, merges = hf.read_gpt2_tokenizer(folder)
    dh = cfg['n_embd'] // cfg['n_head']
    _, ids = hf.gpt2_tokenize(GPT2_TEXT, vocab, merges)
    case = {'model': 'models/gpt2_tiny', 'text': GPT2_TEXT, 'token_ids': ids,
            **runs(lambda hook: gpt2_logits(w, cfg, ids, hook), dh)}
    _, clean = hf.gpt2_tokenize(CLEAN, vocab, merges)
    _, corrupt = hf.gpt2_tokenize(CORRUPT, vocab, merges)
    assert len(clean) == len(corrupt)
    target, versus = vocab['Ġcat'], vocab['Ġthe']
    recorder = HeadHook(dh)
    clean_logits = gpt2_logits(w, cfg, clean, recorder)[-1]
    corrupt_logits = gpt2_logits(w, cfg, corrupt, HeadHook(dh))[-1]
    hook = HeadHook(dh)
    hook.patch, hook.clean = PATCHED, recorder.record
    patched_logits = gpt2_logits(w, cfg, corrupt, hook)[-1]
    diff = lambda z: (z[target] - z[versus]).item()
    case['patching'] = {'clean': CLEAN, 'corrupt': CORRUPT, 'clean_ids': clean, 'corrupt_ids': corrupt,
                        'target': target, 'versus': versus, 'head': list(PATCHED), 'clean_diff': diff(clean_logits),
                        'corrupt_diff': diff(corrupt_logits),
                        'effect': (diff(patched_logits) - diff(corrupt_logits)) / (diff(clean_logits) - diff(corrupt_logits))}
    return case


def decoder_case(name):
    folder = os.path.join(HERE, 'decoders', name)
    cfg = json.load(open(os.path.join(folder, 'config.json')))
    w = hf.read_safetensors(os.path.join(folder, 'model.safetensors'))
    run = json.load(open(os.path.join(folder, 'reference.json')))['runs'][0]
    dh = cfg.get('head_dim') or cfg['hidden_size'] // cfg['num_attention_heads']
    ids = run['token_ids']
    return {'model': 'decoders/' + name, 'text': run['text'], 'token_ids': ids,
            **runs(lambda hook: decoder_logits(w, cfg, ids, hook), dh)}


def main():
    torch.set_num_threads(1)
    cases = [gpt2_case(), decoder_case('llama-gqa'), decoder_case('qwen2-bias')]
    hf.write_json(os.path.join(HERE, 'predict_reference.json'),
                  {'generator': 'tests/reference/make_predict_reference.py', 'ablated_head': list(ABLATED),
                   'cases': cases})


if __name__ == '__main__':
    main()
