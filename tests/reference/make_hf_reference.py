#!/usr/bin/python3
"""Generates the multi-layer, multi-head reference checkpoints and outputs the C++ tests compare against.

Run with Debian's python3-torch:   /usr/bin/python3 tests/reference/make_hf_reference.py
Writes, under tests/reference/:
  models/<name>/   tiny checkpoints in the exact Hugging Face layout: config.json, model.safetensors and real-format
                   tokenizer files, plus reference.json with the outputs of the independent forward pass below
  lm-buddy-<name>.json   the same outputs for the real 1-layer checkpoints in tests/fixtures/lm-buddy/

Everything here is written from the architecture descriptions, independently of the C++ code: the tokenizers are
straightforward (slow, list-based) implementations, the forward passes use torch.nn.functional in float64.
Deterministic: fixed seeds, so re-running gives the same files.
"""
import json
import os
import re
import struct
import sys
import unicodedata

import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(HERE, '..', 'fixtures', 'lm-buddy')

SENTENCES = [
    'the cat walks on the street',
    'Mary gave roses to Susan, and she smiled.',
    "Attention isn't all you need: 42 heads later...",
]
CORPUS = SENTENCES + [
    'the quick brown fox jumps over the lazy dog',
    'a transformer is a stack of attention and feed forward layers',
    'queries keys and values are projections of the same tokens',
    'the street was quiet when the cat walked home',
    'she gave him the roses and they walked on',
]

# ---------------------------------------------------------------------------------------------- safetensors


def write_safetensors(path, tensors, dtype='F32'):
    """tensors: dict name -> float64/32 torch tensor. dtype F32, F16 or BF16 for every tensor."""
    torch_dtype = {'F32': torch.float32, 'F16': torch.float16, 'BF16': torch.bfloat16}[dtype]
    header, blobs, offset = {'__metadata__': {'format': 'pt'}}, [], 0
    for name in sorted(tensors):
        t = tensors[name].to(torch_dtype).contiguous()
        raw = t.view(torch.int16).numpy().tobytes() if dtype != 'F32' else t.numpy().tobytes()
        header[name] = {'dtype': dtype, 'shape': list(t.shape), 'data_offsets': [offset, offset + len(raw)]}
        blobs.append(raw)
        offset += len(raw)
    text = json.dumps(header, separators=(',', ':')).encode()
    text += b' ' * ((8 - len(text) % 8) % 8)  # the data area starts 8-byte aligned, as Hugging Face writes it
    with open(path, 'wb') as f:
        f.write(struct.pack('<Q', len(text)) + text + b''.join(blobs))


def read_safetensors(path):
    dt = {'F32': torch.float32, 'F16': torch.float16, 'BF16': torch.bfloat16}
    data = open(path, 'rb').read()
    n = struct.unpack('<Q', data[:8])[0]
    header = json.loads(data[8:8 + n])
    out = {}
    for name, info in header.items():
        if name == '__metadata__':
            continue
        b, e = info['data_offsets']
        buf = bytearray(data[8 + n + b:8 + n + e])
        t = torch.frombuffer(buf, dtype=torch.int16 if info['dtype'] != 'F32' else torch.float32)
        if info['dtype'] != 'F32':
            t = t.view(dt[info['dtype']])
        out[name] = t.reshape(info['shape']).to(torch.float64)
    return out


def rounded(tensors, dtype):
    """The weights as the checkpoint stores them (F16/BF16 rounding), in float64 for the reference."""
    td = {'F32': torch.float32, 'F16': torch.float16, 'BF16': torch.bfloat16}[dtype]
    return {k: v.to(td).to(torch.float64) for k, v in tensors.items()}

# ------------------------------------------------------------------------------------------------ GPT-2 BPE


def bytes_to_unicode():
    bs = list(range(ord('!'), ord('~') + 1)) + list(range(ord('¡'), ord('¬') + 1)) + list(range(ord('®'), ord('ÿ') + 1))
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return {b: chr(c) for b, c in zip(bs, cs)}


BYTE = bytes_to_unicode()
# ASCII stand-ins for \p{L} and \p{N}: the reference sentences are ASCII.
GPT2_SPLIT = re.compile(r"""'s|'t|'re|'ve|'m|'ll|'d| ?[A-Za-z]+| ?[0-9]+| ?[^\sA-Za-z0-9]+|\s+(?!\S)|\s+""")


def gpt2_words(text):
    return [''.join(BYTE[b] for b in w.encode()) for w in GPT2_SPLIT.findall(text)]


def train_merges(corpus, count):
    words = {}
    for line in corpus:
        for w in gpt2_words(line):
            words[tuple(w)] = words.get(tuple(w), 0) + 1
    merges = []
    for _ in range(count):
        pairs = {}
        for w, c in words.items():
            for a, b in zip(w, w[1:]):
                pairs[(a, b)] = pairs.get((a, b), 0) + c
        if not pairs:
            break
        best = max(sorted(pairs), key=lambda p: pairs[p])  # ties: the alphabetically first pair
        merges.append(best)
        merged = {}
        for w, c in words.items():
            out, i = [], 0
            while i < len(w):
                if i + 1 < len(w) and (w[i], w[i + 1]) == best:
                    out.append(w[i] + w[i + 1])
                    i += 2
                else:
                    out.append(w[i])
                    i += 1
            merged[tuple(out)] = c
        words = merged
    return merges


def bpe_word(word, ranks):
    parts = list(word)
    while len(parts) > 1:
        pairs = [(ranks.get((a, b), 1 << 30), i) for i, (a, b) in enumerate(zip(parts, parts[1:]))]
        rank, i = min(pairs)
        if rank == 1 << 30:
            break
        parts[i:i + 2] = [parts[i] + parts[i + 1]]
    return parts


def gpt2_tokenize(text, vocab, merges, unk=None):
    ranks = {m: r for r, m in enumerate(merges)}
    tokens = [t for w in gpt2_words(text) for t in bpe_word(w, ranks)]
    ids = [vocab[t] if t in vocab else vocab[unk] for t in tokens]
    return [t if t in vocab else unk for t in tokens], ids


def read_gpt2_tokenizer(folder):
    vocab = json.load(open(os.path.join(folder, 'vocab.json'), encoding='utf-8'))
    lines = open(os.path.join(folder, 'merges.txt'), encoding='utf-8').read().split('\n')
    merges = [tuple(l.split(' ')) for l in lines if l and not l.startswith('#version')]
    return vocab, merges

# ------------------------------------------------------------------------------------------ BERT WordPiece


def bert_tokenize(text, vocab, lowercase=True):
    if lowercase:
        text = ''.join(c for c in unicodedata.normalize('NFD', text) if unicodedata.category(c) != 'Mn').lower()
    words = []
    for w in text.split():
        cur = ''
        for c in w:
            if unicodedata.category(c).startswith('P') or (c.isascii() and not c.isalnum()):
                if cur:
                    words.append(cur)
                words.append(c)
                cur = ''
            else:
                cur += c
        if cur:
            words.append(cur)
    tokens = ['[CLS]']
    for w in words:
        pieces, start = [], 0
        while start < len(w):
            end = len(w)
            while end > start and (('##' if start else '') + w[start:end]) not in vocab:
                end -= 1
            if end == start:
                pieces = ['[UNK]']
                break
            pieces.append(('##' if start else '') + w[start:end])
            start = end
        tokens += pieces
    tokens.append('[SEP]')
    return tokens, [vocab[t] for t in tokens]


def make_bert_vocab():
    words = sorted({w for s in CORPUS for w in re.findall(r"[a-z]+", s.lower())})
    chars = sorted({c for s in CORPUS for c in s.lower() if not c.isspace()})
    vocab = ['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]'] + chars + ['##' + c for c in chars if c.isalnum()]
    # Keep some words whole and leave the rest to word pieces, so both paths are exercised.
    vocab += [w for i, w in enumerate(words) if i % 3 != 0] + ['##ing', '##ed', '##s', '##ly', '##er']
    return list(dict.fromkeys(vocab))

# --------------------------------------------------------------------------------------- reference forwards


def attention(x, wq, bq, wk, bk, wv, bv, heads, causal, scale):
    """x [n, d]; w* [d, d] as x·W. Returns per-head dicts and the concatenated output [n, d]."""
    n, d = x.shape
    dh = d // heads
    q, k, v = x @ wq + bq, x @ wk + bk, x @ wv + bv
    out, per_head = [], []
    for h in range(heads):
        sl = slice(h * dh, (h + 1) * dh)
        scores = (q[:, sl] @ k[:, sl].T) * scale
        masked = scores.masked_fill(torch.triu(torch.ones(n, n, dtype=torch.bool), 1), float('-inf')) if causal else scores
        a = torch.softmax(masked, dim=-1)
        o = a @ v[:, sl]
        per_head.append({'q': q[:, sl], 'k': k[:, sl], 'v': v[:, sl], 'scores': scores, 'attention': a, 'output': o})
        out.append(o)
    return per_head, torch.cat(out, dim=1)


def gpt2_forward(w, cfg, ids, prefix):
    d, heads, eps = cfg['n_embd'], cfg['n_head'], cfg['layer_norm_epsilon']
    g = lambda name: w[prefix + name]
    x = g('wte.weight')[ids] + g('wpe.weight')[:len(ids)]
    result = {'embeddings': x, 'layers': []}
    for l in range(cfg['n_layer']):
        p = f'h.{l}.'
        a = F.layer_norm(x, (d,), g(p + 'ln_1.weight'), g(p + 'ln_1.bias'), eps)
        wa, ba = g(p + 'attn.c_attn.weight'), g(p + 'attn.c_attn.bias')
        per_head, concat = attention(a, wa[:, :d], ba[:d], wa[:, d:2 * d], ba[d:2 * d], wa[:, 2 * d:], ba[2 * d:], heads,
                                     True, (d // heads) ** -0.5)
        attn_out = concat @ g(p + 'attn.c_proj.weight') + g(p + 'attn.c_proj.bias')
        h = x + attn_out
        m = F.layer_norm(h, (d,), g(p + 'ln_2.weight'), g(p + 'ln_2.bias'), eps)
        m = F.gelu(m @ g(p + 'mlp.c_fc.weight') + g(p + 'mlp.c_fc.bias'), approximate='tanh')
        mlp_out = m @ g(p + 'mlp.c_proj.weight') + g(p + 'mlp.c_proj.bias')
        x = h + mlp_out
        result['layers'].append({'heads': per_head, 'concat': concat, 'attention_out': attn_out, 'mlp_out': mlp_out,
                                 'residual_out': x})
    return result


def bert_forward(w, cfg, ids, prefix):
    d, heads, eps = cfg['hidden_size'], cfg['num_attention_heads'], cfg['layer_norm_eps']
    g = lambda name: w[prefix + name]
    lin = lambda x, name: x @ g(name + '.weight').T + g(name + '.bias')  # nn.Linear: W is [out, in]
    e = g('embeddings.word_embeddings.weight')[ids] + g('embeddings.position_embeddings.weight')[:len(ids)]
    e = e + g('embeddings.token_type_embeddings.weight')[0]
    x = F.layer_norm(e, (d,), g('embeddings.LayerNorm.weight'), g('embeddings.LayerNorm.bias'), eps)
    result = {'embeddings': x, 'layers': []}
    for l in range(cfg['num_hidden_layers']):
        p = f'encoder.layer.{l}.'
        s = p + 'attention.self.'
        t = lambda name: g(s + name + '.weight').T
        per_head, concat = attention(x, t('query'), g(s + 'query.bias'), t('key'), g(s + 'key.bias'), t('value'),
                                     g(s + 'value.bias'), heads, False, (d // heads) ** -0.5)
        attn_out = lin(concat, p + 'attention.output.dense')
        h = F.layer_norm(x + attn_out, (d,), g(p + 'attention.output.LayerNorm.weight'),
                         g(p + 'attention.output.LayerNorm.bias'), eps)
        mlp_out = lin(F.gelu(lin(h, p + 'intermediate.dense')), p + 'output.dense')
        x = F.layer_norm(h + mlp_out, (d,), g(p + 'output.LayerNorm.weight'), g(p + 'output.LayerNorm.bias'), eps)
        result['layers'].append({'heads': per_head, 'concat': concat, 'attention_out': attn_out, 'mlp_out': mlp_out,
                                 'residual_out': x})
    return result

# ---------------------------------------------------------------------------------------------- checkpoints


def rand(gen, *shape, std=0.2, mean=0.0):
    return torch.randn(*shape, generator=gen, dtype=torch.float64) * std + mean


def gpt2_weights(seed, vocab_size, d, layers, positions):
    gen = torch.Generator().manual_seed(seed)
    w = {'wte.weight': rand(gen, vocab_size, d, std=0.5), 'wpe.weight': rand(gen, positions, d, std=0.3),
         'ln_f.weight': rand(gen, d, std=0.1, mean=1.0), 'ln_f.bias': rand(gen, d, std=0.1)}
    for l in range(layers):
        p = f'h.{l}.'
        w.update({p + 'ln_1.weight': rand(gen, d, std=0.1, mean=1.0), p + 'ln_1.bias': rand(gen, d, std=0.1),
                  p + 'attn.c_attn.weight': rand(gen, d, 3 * d, std=0.4), p + 'attn.c_attn.bias': rand(gen, 3 * d),
                  p + 'attn.c_proj.weight': rand(gen, d, d), p + 'attn.c_proj.bias': rand(gen, d),
                  p + 'ln_2.weight': rand(gen, d, std=0.1, mean=1.0), p + 'ln_2.bias': rand(gen, d, std=0.1),
                  p + 'mlp.c_fc.weight': rand(gen, d, 4 * d), p + 'mlp.c_fc.bias': rand(gen, 4 * d),
                  p + 'mlp.c_proj.weight': rand(gen, 4 * d, d, std=0.1), p + 'mlp.c_proj.bias': rand(gen, d)})
    return w


def bert_weights(seed, vocab_size, d, layers, positions, inner):
    gen = torch.Generator().manual_seed(seed)
    w = {'embeddings.word_embeddings.weight': rand(gen, vocab_size, d, std=0.5),
         'embeddings.position_embeddings.weight': rand(gen, positions, d, std=0.3),
         'embeddings.token_type_embeddings.weight': rand(gen, 2, d, std=0.3),
         'embeddings.LayerNorm.weight': rand(gen, d, std=0.1, mean=1.0), 'embeddings.LayerNorm.bias': rand(gen, d, std=0.1),
         'pooler.dense.weight': rand(gen, d, d), 'pooler.dense.bias': rand(gen, d)}
    for l in range(layers):
        p = f'encoder.layer.{l}.'
        for name in ('attention.self.query', 'attention.self.key', 'attention.self.value', 'attention.output.dense'):
            w[p + name + '.weight'] = rand(gen, d, d, std=0.4 if 'self' in name else 0.2)
            w[p + name + '.bias'] = rand(gen, d)
        for name in ('attention.output.LayerNorm', 'output.LayerNorm'):
            w[p + name + '.weight'] = rand(gen, d, std=0.1, mean=1.0)
            w[p + name + '.bias'] = rand(gen, d, std=0.1)
        w[p + 'intermediate.dense.weight'] = rand(gen, inner, d)
        w[p + 'intermediate.dense.bias'] = rand(gen, inner)
        w[p + 'output.dense.weight'] = rand(gen, d, inner, std=0.1)
        w[p + 'output.dense.bias'] = rand(gen, d)
    return w

# ------------------------------------------------------------------------------------------------- output


def as_list(t):
    return [[float('%.8g' % v) for v in row] for row in t.tolist()]


def dump_reference(path, runs):
    """runs: list of (text, tokens, ids, forward result)."""
    out = []
    for text, tokens, ids, r in runs:
        layers = [{'heads': [{k: as_list(v) for k, v in h.items()} for h in L['heads']],
                   **{k: as_list(L[k]) for k in ('concat', 'attention_out', 'mlp_out', 'residual_out')}}
                  for L in r['layers']]
        out.append({'text': text, 'tokens': tokens, 'ids': ids, 'embeddings': as_list(r['embeddings']), 'layers': layers})
    with open(path, 'w', encoding='utf-8') as f:
        json.dump({'generator': 'tests/reference/make_hf_reference.py', 'sentences': out}, f, ensure_ascii=False)


def write_json(path, obj):
    with open(path, 'w', encoding='utf-8') as f:
        json.dump(obj, f, indent=2, ensure_ascii=False)
        f.write('\n')


def make_gpt2(name, dtype, prefix, tokenizer_json, seed):
    folder = os.path.join(HERE, 'models', name)
    os.makedirs(folder, exist_ok=True)
    merges = train_merges(CORPUS, 120)
    tokens = [BYTE[b] for b in range(256)] + [a + b for a, b in merges] + ['<|endoftext|>']
    vocab = {t: i for i, t in enumerate(dict.fromkeys(tokens))}
    cfg = {'architectures': ['GPT2LMHeadModel'], 'model_type': 'gpt2', 'activation_function': 'gelu_new',
           'n_embd': 32, 'n_head': 4, 'n_layer': 2, 'n_positions': 48, 'n_ctx': 48, 'n_inner': None,
           'layer_norm_epsilon': 1e-5, 'vocab_size': len(vocab), 'bos_token_id': vocab['<|endoftext|>'],
           'eos_token_id': vocab['<|endoftext|>'], 'scale_attn_weights': True, 'torch_dtype': 'float32'}
    write_json(os.path.join(folder, 'config.json'), cfg)
    if tokenizer_json:  # the fast-tokenizer file, merges written as pairs
        write_json(os.path.join(folder, 'tokenizer.json'), {
            'version': '1.0', 'added_tokens': [{'id': vocab['<|endoftext|>'], 'content': '<|endoftext|>', 'special': True}],
            'normalizer': None, 'pre_tokenizer': {'type': 'ByteLevel', 'add_prefix_space': False, 'use_regex': True},
            'post_processor': {'type': 'ByteLevel'}, 'decoder': {'type': 'ByteLevel'},
            'model': {'type': 'BPE', 'vocab': vocab, 'merges': [list(m) for m in merges]}})
    else:
        write_json(os.path.join(folder, 'vocab.json'), vocab)
        with open(os.path.join(folder, 'merges.txt'), 'w', encoding='utf-8') as f:
            f.write('#version: 0.2\n' + ''.join(f'{a} {b}\n' for a, b in merges))
        write_json(os.path.join(folder, 'tokenizer_config.json'),
                   {'tokenizer_class': 'GPT2Tokenizer', 'bos_token': '<|endoftext|>', 'eos_token': '<|endoftext|>',
                    'unk_token': '<|endoftext|>', 'add_prefix_space': False})
    w = gpt2_weights(seed, len(vocab), 32, 2, 48)
    write_safetensors(os.path.join(folder, 'model.safetensors'), {prefix + k: v for k, v in w.items()}, dtype)
    w = rounded(w, dtype)
    runs = []
    for s in SENTENCES:
        toks, ids = gpt2_tokenize(s, vocab, merges)
        runs.append((s, toks, ids, gpt2_forward(w, cfg, ids, '')))
    dump_reference(os.path.join(folder, 'reference.json'), runs)


def make_bert(name, dtype, prefix, seed):
    folder = os.path.join(HERE, 'models', name)
    os.makedirs(folder, exist_ok=True)
    vocab_list = make_bert_vocab()
    vocab = {t: i for i, t in enumerate(vocab_list)}
    cfg = {'architectures': ['BertModel'], 'model_type': 'bert', 'hidden_size': 32, 'num_attention_heads': 4,
           'num_hidden_layers': 2, 'intermediate_size': 64, 'max_position_embeddings': 40, 'type_vocab_size': 2,
           'layer_norm_eps': 1e-12, 'hidden_act': 'gelu', 'vocab_size': len(vocab), 'pad_token_id': 0,
           'position_embedding_type': 'absolute', 'torch_dtype': 'float32'}
    write_json(os.path.join(folder, 'config.json'), cfg)
    with open(os.path.join(folder, 'vocab.txt'), 'w', encoding='utf-8') as f:
        f.write(''.join(t + '\n' for t in vocab_list))
    write_json(os.path.join(folder, 'tokenizer_config.json'),
               {'tokenizer_class': 'BertTokenizer', 'do_lower_case': True, 'strip_accents': None,
                'tokenize_chinese_chars': True, 'unk_token': '[UNK]', 'sep_token': '[SEP]', 'pad_token': '[PAD]',
                'cls_token': '[CLS]', 'mask_token': '[MASK]'})
    w = bert_weights(seed, len(vocab), 32, 2, 40, 64)
    write_safetensors(os.path.join(folder, 'model.safetensors'), {prefix + k: v for k, v in w.items()}, dtype)
    w = rounded(w, dtype)
    runs = []
    for s in SENTENCES:
        toks, ids = bert_tokenize(s, vocab)
        runs.append((s, toks, ids, bert_forward(w, cfg, ids, '')))
    dump_reference(os.path.join(folder, 'reference.json'), runs)


def lm_buddy_references():
    """The real 1-layer checkpoints written by Hugging Face's tools."""
    for name in ('tiny_gpt2', 'fake_gpt2'):
        folder = os.path.join(FIXTURES, name)
        cfg = json.load(open(os.path.join(folder, 'config.json')))
        w = read_safetensors(os.path.join(folder, 'model.safetensors'))
        prefix = 'transformer.' if 'transformer.wte.weight' in w else ''
        vocab, merges = read_gpt2_tokenizer(folder)
        runs = []
        for s in (' lower newer', ' lowest wider lower') if name == 'tiny_gpt2' else SENTENCES:
            toks, ids = gpt2_tokenize(s, vocab, merges, unk='<unk>')
            runs.append((s, toks, ids, gpt2_forward(w, cfg, ids, prefix)))
        dump_reference(os.path.join(HERE, f'lm-buddy-{name}.json'), runs)
    folder = os.path.join(FIXTURES, 'bert_tiniest')
    cfg = json.load(open(os.path.join(folder, 'config.json')))
    w = read_safetensors(os.path.join(folder, 'model.safetensors'))
    vocab = {l.rstrip('\n'): i for i, l in enumerate(open(os.path.join(folder, 'vocab.txt'), encoding='utf-8'))}
    runs = []
    for s in SENTENCES:
        toks, ids = bert_tokenize(s, vocab)
        runs.append((s, toks, ids, bert_forward(w, cfg, ids, 'bert.')))
    dump_reference(os.path.join(HERE, 'lm-buddy-bert_tiniest.json'), runs)


def main():
    torch.set_num_threads(1)
    make_gpt2('gpt2_tiny', 'F32', 'transformer.', tokenizer_json=False, seed=1)
    make_gpt2('gpt2_tiny_f16', 'F16', '', tokenizer_json=True, seed=2)
    make_bert('bert_tiny', 'F32', '', seed=3)
    make_bert('bert_tiny_bf16', 'BF16', 'bert.', seed=4)
    lm_buddy_references()
    print('wrote', os.path.join(HERE, 'models'), 'and the lm-buddy references', file=sys.stderr)


if __name__ == '__main__':
    main()
