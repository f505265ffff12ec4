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

And the same numbers (without the ablation) for a small DistilBertForMaskedLM written here with seeded random
weights (tests/reference/models/distilbert_mlm): its head is vocab_transform, gelu, vocab_layer_norm and
vocab_projector, the projector stored untied (its own weight, not the word embeddings).

Run with /usr/bin/python3 (torch); writes tests/reference/mlm_reference.json and models/distilbert_mlm/.
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


def distilbert_weights(seed, vocab_size, d, layers, positions, inner):
    gen = torch.Generator().manual_seed(seed)
    r = lambda *shape, std=0.2, mean=0.0: hf.rand(gen, *shape, std=std, mean=mean)
    w = {'distilbert.embeddings.word_embeddings.weight': r(vocab_size, d, std=0.5),
         'distilbert.embeddings.position_embeddings.weight': r(positions, d, std=0.3),
         'distilbert.embeddings.LayerNorm.weight': r(d, std=0.1, mean=1.0),
         'distilbert.embeddings.LayerNorm.bias': r(d, std=0.1),
         'vocab_transform.weight': r(d, d, std=0.4), 'vocab_transform.bias': r(d),
         'vocab_layer_norm.weight': r(d, std=0.1, mean=1.0), 'vocab_layer_norm.bias': r(d, std=0.1),
         'vocab_projector.weight': r(vocab_size, d, std=0.5), 'vocab_projector.bias': r(vocab_size, std=0.5)}
    for l in range(layers):
        p = f'distilbert.transformer.layer.{l}.'
        for name in ('attention.q_lin', 'attention.k_lin', 'attention.v_lin', 'attention.out_lin'):
            w[p + name + '.weight'], w[p + name + '.bias'] = r(d, d, std=0.4), r(d)
        for name in ('sa_layer_norm', 'output_layer_norm'):
            w[p + name + '.weight'], w[p + name + '.bias'] = r(d, std=0.1, mean=1.0), r(d, std=0.1)
        w[p + 'ffn.lin1.weight'], w[p + 'ffn.lin1.bias'] = r(inner, d), r(inner)
        w[p + 'ffn.lin2.weight'], w[p + 'ffn.lin2.bias'] = r(d, inner, std=0.1), r(d)
    return w


def distilbert_logits(w, cfg, ids):
    """DistilBertForMaskedLM: post-LayerNorm blocks without token types, then its MLM head → [n, vocab]."""
    d, heads, eps = cfg['dim'], cfg['n_heads'], 1e-12
    lin = lambda x, name: x @ w[name + '.weight'].T + w[name + '.bias']
    ln = lambda x, name: F.layer_norm(x, (d,), w[name + '.weight'], w[name + '.bias'], eps)
    e = 'distilbert.embeddings.'
    x = ln(w[e + 'word_embeddings.weight'][ids] + w[e + 'position_embeddings.weight'][:len(ids)], e + 'LayerNorm')
    for l in range(cfg['n_layers']):
        p = f'distilbert.transformer.layer.{l}.'
        q, k, v = (lin(x, p + 'attention.' + n) for n in ('q_lin', 'k_lin', 'v_lin'))
        dh = d // heads
        out = [torch.softmax((q[:, h * dh:(h + 1) * dh] / dh ** 0.5) @ k[:, h * dh:(h + 1) * dh].T, -1)
               @ v[:, h * dh:(h + 1) * dh] for h in range(heads)]
        x = ln(lin(torch.cat(out, 1), p + 'attention.out_lin') + x, p + 'sa_layer_norm')
        x = ln(lin(F.gelu(lin(x, p + 'ffn.lin1')), p + 'ffn.lin2') + x, p + 'output_layer_norm')
    return lin(ln(F.gelu(lin(x, 'vocab_transform')), 'vocab_layer_norm'), 'vocab_projector')


def distilbert_case():
    folder = os.path.join(HERE, 'models', 'distilbert_mlm')
    os.makedirs(folder, exist_ok=True)
    vocab_list = hf.make_bert_vocab()
    vocab = {t: i for i, t in enumerate(vocab_list)}
    cfg = {'architectures': ['DistilBertForMaskedLM'], 'model_type': 'distilbert', 'dim': 32, 'n_heads': 4,
           'n_layers': 2, 'hidden_dim': 64, 'max_position_embeddings': 40, 'activation': 'gelu',
           'vocab_size': len(vocab), 'pad_token_id': 0}
    hf.write_json(os.path.join(folder, 'config.json'), cfg)
    with open(os.path.join(folder, 'vocab.txt'), 'w', encoding='utf-8') as f:
        f.write(''.join(t + '\n' for t in vocab_list))
    hf.write_json(os.path.join(folder, 'tokenizer_config.json'),
                  {'tokenizer_class': 'DistilBertTokenizer', 'do_lower_case': True, 'unk_token': '[UNK]',
                   'sep_token': '[SEP]', 'pad_token': '[PAD]', 'cls_token': '[CLS]', 'mask_token': '[MASK]'})
    w = distilbert_weights(5, len(vocab), 32, 2, 40, 64)
    hf.write_safetensors(os.path.join(folder, 'model.safetensors'), w)
    w = hf.rounded(w, 'F32')
    text = 'the cat [MASK] on the street'
    ids = tokenize(text, vocab)
    mask = ids.index(vocab['[MASK]'])
    logits = distilbert_logits(w, cfg, ids)[mask]
    probs = torch.softmax(logits, -1)
    order = torch.argsort(probs, descending=True)
    return {'model': 'reference/models/distilbert_mlm', 'text': text, 'token_ids': ids, 'mask': mask,
            'top': order[:5].tolist(), 'logits': logits.tolist(), 'probs': probs.tolist()}


def main():
    torch.set_num_threads(1)
    folder = os.path.join(hf.FIXTURES, 'bert_tiniest')
    cfg = json.load(open(os.path.join(folder, 'config.json')))
    assert cfg['hidden_act'] == 'gelu'
    w = hf.read_safetensors(os.path.join(folder, 'model.safetensors'))
    vocab = {l.rstrip('\n'): i for i, l in enumerate(open(os.path.join(folder, 'vocab.txt'), encoding='utf-8'))}
    hf.write_json(os.path.join(HERE, 'mlm_reference.json'),
                  {'generator': 'tests/reference/make_mlm_reference.py', 'model': 'fixtures/lm-buddy/bert_tiniest',
                   'ablated_head': list(ABLATED), 'cases': [case(w, cfg, vocab, s) for s in SENTENCES],
                   'distilbert': distilbert_case()})


if __name__ == '__main__':
    main()
