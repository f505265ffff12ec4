#!/usr/bin/env python3
"""Reference numbers for BERT's masked-token prediction (issue 16), from an independent float64 PyTorch
computation written from Hugging Face's BertForMaskedLM definition (not from the C++ code):

  x       = the encoder's output (make_hf_reference.bert_forward)          [n, d]
  h       = LayerNorm(gelu(x · W_Tᵀ + b_T))                                 cls.predictions.transform.{dense,LayerNorm}
  logits  = h · Eᵀ + b                                                      E = bert.embeddings.word_embeddings.weight
                                                                            (tied), b = cls.predictions.bias
gelu is the exact erf form (config hidden_act "gelu"); the LayerNorm's eps is config layer_norm_eps.

On the real checkpoint tests/fixtures/lm-buddy/bert_tiniest (it has cls.predictions.*), for sentences with
[MASK] (kept as one special token; the text around it is lower-cased and cut into word pieces):
  mask          the first [MASK]'s position
  top           the 5 most probable ids at the mask
  ids           the 20 most probable ids and every 1000th id: the vocabulary entries the numbers below are of
  logits, probs at the mask (probs: softmax over the whole vocabulary)
  ablated_zero  logits at the mask with head (0, 0)'s output set to zero before the output projection
  lens_top      the embeddings (the stream entering layer 0) decoded through the same head: its 5 top ids

Run with /usr/bin/python3 (torch); writes tests/reference/mlm_reference.json.
"""
import json
import os
import sys

import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import make_hf_reference as hf  # noqa: E402

SENTENCES = ['the [MASK] sat on the mat', 'Paris is the [MASK] of France.']
ABLATED = (0, 0)


def tokenize(text, vocab):
    """[CLS] pieces [SEP], with every "[MASK]" in the text one token (matched before lower-casing)."""
    ids = [vocab['[CLS]']]
    for i, part in enumerate(text.split('[MASK]')):
        if i > 0:
            ids.append(vocab['[MASK]'])
        ids += hf.bert_tokenize(part, vocab)[1][1:-1]
    return ids + [vocab['[SEP]']]


def mlm_head(w, cfg, x):
    """x [n, d] → logits [n, vocab] through cls.predictions."""
    d = cfg['hidden_size']
    t = x @ w['cls.predictions.transform.dense.weight'].T + w['cls.predictions.transform.dense.bias']
    t = F.gelu(t)  # exact erf GELU: hidden_act "gelu"
    t = F.layer_norm(t, (d,), w['cls.predictions.transform.LayerNorm.weight'],
                     w['cls.predictions.transform.LayerNorm.bias'], cfg['layer_norm_eps'])
    decoder = w.get('cls.predictions.decoder.weight', w['bert.embeddings.word_embeddings.weight'])
    return t @ decoder.T + w['cls.predictions.bias']


def ablated_forward(w, cfg, ids, head):
    """bert_forward with one head's output (before the output projection) set to zero in its layer."""
    original = hf.attention
    dh = cfg['hidden_size'] // cfg['num_attention_heads']
    layer = [0]

    def attention(*args):
        per_head, concat = original(*args)
        if layer[0] == head[0]:
            concat = concat.clone()
            concat[:, head[1] * dh:(head[1] + 1) * dh] = 0
        layer[0] += 1
        return per_head, concat

    hf.attention = attention
    try:
        return hf.bert_forward(w, cfg, ids, 'bert.')
    finally:
        hf.attention = original


def case(w, cfg, vocab, text):
    ids = tokenize(text, vocab)
    mask = ids.index(vocab['[MASK]'])
    run = hf.bert_forward(w, cfg, ids, 'bert.')
    logits = mlm_head(w, cfg, run['layers'][-1]['residual_out'])[mask]
    probs = torch.softmax(logits, -1)
    lens = torch.softmax(mlm_head(w, cfg, run['embeddings'])[mask], -1)
    ablated = mlm_head(w, cfg, ablated_forward(w, cfg, ids, ABLATED)['layers'][-1]['residual_out'])[mask]
    order = torch.argsort(probs, descending=True)
    kept = order[:20].tolist() + [i for i in range(0, len(probs), 1000) if i not in order[:20]]
    return {'text': text, 'token_ids': ids, 'mask': mask, 'top': order[:5].tolist(), 'ids': kept,
            'logits': logits[kept].tolist(), 'probs': probs[kept].tolist(), 'ablated_zero': ablated[kept].tolist(),
            'lens_top': torch.argsort(lens, descending=True)[:5].tolist()}


def main():
    torch.set_num_threads(1)
    folder = os.path.join(hf.FIXTURES, 'bert_tiniest')
    cfg = json.load(open(os.path.join(folder, 'config.json')))
    assert cfg['hidden_act'] == 'gelu'
    w = hf.read_safetensors(os.path.join(folder, 'model.safetensors'))
    vocab = {l.rstrip('\n'): i for i, l in enumerate(open(os.path.join(folder, 'vocab.txt'), encoding='utf-8'))}
    hf.write_json(os.path.join(HERE, 'mlm_reference.json'),
                  {'generator': 'tests/reference/make_mlm_reference.py', 'model': 'fixtures/lm-buddy/bert_tiniest',
                   'ablated_head': list(ABLATED), 'cases': [case(w, cfg, vocab, s) for s in SENTENCES]})


if __name__ == '__main__':
    main()
