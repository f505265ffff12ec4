#!/usr/bin/python3
"""Tiny random encoder–decoder checkpoints (Marian, BART, T5 v1.0 and v1.1, T5 v1.1 with a SentencePiece vocabulary) in the exact Hugging Face layout, with float64 references.

Run with Debian's numpy:  /usr/bin/python3 tests/reference/make_encdec_reference.py
(float64 numpy: python3-torch is not installed on the build machine; the pass is small enough to write directly.)
Writes tests/reference/encdec/<name>/: config.json (transformers' field names for the model_type), model.safetensors
(HF's tensor names; tied tensors stored once under model.shared.weight, as save_pretrained de-duplicates them) and
reference.json:
  {"source_ids", "target_ids" (decoder input, starting with decoder_start_token_id),
   "encoder": {"embeddings" [n_src][d] (scaled embeddings + positions, after BART's layernorm_embedding),
               "layers": [{"q"/"k"/"v" [H][n][dh] (q not yet scaled), "scores" [H][n][n] (q·kᵀ/√dh),
                           "attention" [H][n][n], "attention_out" [n][d] (out_proj), "mlp_out" [n][d] (fc2),
                           "residual_out" [n][d]}]},
   "decoder": {"embeddings", "layers": [... as above, causal self-attention ...,
               "cross": {"q" [H][n_tgt][dh], "k"/"v" [H][n_src][dh], "scores"/"attention" [H][n_tgt][n_src],
                         "attention_out" [n_tgt][d]}]},
   T5 only: "output" [n][d] in each stack (after its final_layer_norm); T5's "scores" include the position bias,
   "logits" [n_tgt][vocab] (lm_head + final_logits_bias; T5: (output·d^-0.5 when tied)·lm_headᵀ),
   "greedy": {"max_new_tokens", "tokens"}: the ids a greedy loop appends after decoder_start_token_id (argmax of the
             last row of a full recomputation each step, after the config's generation rules as transformers'
             generate(max_new_tokens=…, num_beams=1) applies them — see generation_rules(); stops after
             eos_token_id)}
The forward pass is written from each family's definition (transformers' modeling_marian.py / modeling_bart.py),
not by importing transformers: post-LN blocks (x ← LN(x + sublayer(x))), q scaled by dh^-0.5, nn.LayerNorm ε 1e-5;
Marian: embeddings × √d (scale_embedding), sinusoidal positions computed (sin half, then cos half, positions from 0),
swish; BART: learned positions at index position + 2, layernorm_embedding after the sum, exact-erf GELU;
T5 (modeling_t5.py): pre-LN RMSNorm (no mean, ε layer_norm_epsilon), no biases, no 1/√d_kv, the first block's
bucketed relative_attention_bias added to every block's self-attention scores (bidirectional buckets in the encoder,
causal in the decoder, its logarithm in float32 as torch computes it), ReLU or gated gelu_new, final_layer_norm.
Floats carry 8 significant digits. Deterministic (fixed seeds).
"""
import json
import math
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))

OUT = os.path.join(HERE, 'encdec')
VERSION = '4.51.3'


def write_json(path, obj):
    with open(path, 'w', encoding='utf-8') as f:
        json.dump(obj, f, separators=(',', ':'))
        f.write('\n')


def write_safetensors(path, tensors):
    """Every tensor as F32, names sorted, the data area 8-byte aligned (as Hugging Face writes it)."""
    header, blobs, offset = {'__metadata__': {'format': 'pt'}}, [], 0
    for name in sorted(tensors):
        raw = np.ascontiguousarray(tensors[name], dtype='<f4').tobytes()
        header[name] = {'dtype': 'F32', 'shape': list(tensors[name].shape), 'data_offsets': [offset, offset + len(raw)]}
        blobs.append(raw)
        offset += len(raw)
    text = json.dumps(header, separators=(',', ':')).encode()
    text += b' ' * ((8 - len(text) % 8) % 8)
    with open(path, 'wb') as f:
        f.write(len(text).to_bytes(8, 'little'))
        f.write(text)
        for b in blobs:
            f.write(b)


def r8(x):
    if isinstance(x, np.ndarray):
        x = x.tolist()
    if isinstance(x, list):
        return [r8(v) for v in x]
    return float(f'{x:.8g}')


def marian_config(d, layers, heads, ffn, vocab, dec_vocab, share, tie):
    cfg = {'_name_or_path': 'tiny-marian', 'activation_dropout': 0.0, 'activation_function': 'swish',
           'add_bias_logits': False, 'add_final_layer_norm': False, 'architectures': ['MarianMTModel'],
           'attention_dropout': 0.0, 'bad_words_ids': [[dec_vocab - 1]], 'bos_token_id': 0, 'classif_dropout': 0.0,
           'classifier_dropout': 0.0, 'd_model': d, 'decoder_attention_heads': heads, 'decoder_ffn_dim': ffn,
           'decoder_layerdrop': 0.0, 'decoder_layers': layers, 'decoder_start_token_id': dec_vocab - 1,
           'decoder_vocab_size': dec_vocab, 'dropout': 0.1, 'encoder_attention_heads': heads,
           'encoder_ffn_dim': ffn, 'encoder_layerdrop': 0.0, 'encoder_layers': layers, 'eos_token_id': 0,
           'forced_eos_token_id': 0, 'init_std': 0.02, 'is_encoder_decoder': True, 'max_length': 512,
           'max_position_embeddings': 512, 'model_type': 'marian', 'normalize_before': False,
           'normalize_embedding': False, 'num_beams': 4, 'num_hidden_layers': layers, 'pad_token_id': dec_vocab - 1,
           'scale_embedding': True, 'share_encoder_decoder_embeddings': share, 'static_position_embeddings': True,
           'tie_word_embeddings': tie, 'torch_dtype': 'float32', 'transformers_version': VERSION, 'use_cache': True,
           'vocab_size': vocab}
    return cfg


def bart_config(d, layers, heads, ffn, vocab, max_pos):
    return {'_name_or_path': 'tiny-bart', 'activation_dropout': 0.1, 'activation_function': 'gelu',
            'add_bias_logits': False, 'add_final_layer_norm': False, 'architectures': ['BartForConditionalGeneration'],
            'attention_dropout': 0.1, 'bos_token_id': 0, 'classif_dropout': 0.1, 'classifier_dropout': 0.0,
            'd_model': d, 'decoder_attention_heads': heads, 'decoder_ffn_dim': ffn, 'decoder_layerdrop': 0.0,
            'decoder_layers': layers, 'decoder_start_token_id': 2, 'dropout': 0.1, 'early_stopping': True,
            'encoder_attention_heads': heads, 'encoder_ffn_dim': ffn, 'encoder_layerdrop': 0.0,
            'encoder_layers': layers, 'eos_token_id': 2, 'forced_bos_token_id': 0, 'forced_eos_token_id': 2,
            'init_std': 0.02, 'is_encoder_decoder': True, 'max_position_embeddings': max_pos, 'model_type': 'bart',
            'normalize_before': False, 'num_hidden_layers': layers, 'pad_token_id': 1, 'scale_embedding': False,
            'torch_dtype': 'float32', 'transformers_version': VERSION, 'use_cache': True, 'vocab_size': vocab}


def random_weights(cfg, gen, family):
    d, ffn = cfg['d_model'], cfg['encoder_ffn_dim']
    vocab = cfg['vocab_size']
    dec_vocab = cfg.get('decoder_vocab_size') or vocab
    share = cfg.get('share_encoder_decoder_embeddings', True)
    tie = cfg.get('tie_word_embeddings', True)
    t = {}

    def rnd(*shape, s=0.3):
        return gen.standard_normal(shape) * s

    def ln(name):
        t[name + '.weight'] = 1 + rnd(d, s=0.1)
        t[name + '.bias'] = rnd(d, s=0.1)

    def lin(name, out, inp):
        t[name + '.weight'] = rnd(out, inp, s=1 / math.sqrt(inp))
        t[name + '.bias'] = rnd(out, s=0.1)

    if share:
        t['model.shared.weight'] = rnd(vocab, d, s=1.0 if family == 'bart' else 0.3)
    else:
        t['model.encoder.embed_tokens.weight'] = rnd(vocab, d)
        t['model.decoder.embed_tokens.weight'] = rnd(dec_vocab, d)
    if not tie:
        t['lm_head.weight'] = rnd(dec_vocab, d)
    t['final_logits_bias'] = rnd(1, dec_vocab, s=0.5)
    for stack in ('encoder', 'decoder'):
        if family == 'bart':
            t[f'model.{stack}.embed_positions.weight'] = rnd(cfg['max_position_embeddings'] + 2, d)
            ln(f'model.{stack}.layernorm_embedding')
        for layer in range(cfg[f'{stack}_layers']):
            p = f'model.{stack}.layers.{layer}.'
            attns = ['self_attn'] + (['encoder_attn'] if stack == 'decoder' else [])
            for a in attns:
                for proj in ('q_proj', 'k_proj', 'v_proj', 'out_proj'):
                    lin(p + a + '.' + proj, d, d)
                ln(p + a + '_layer_norm')
            lin(p + 'fc1', ffn, d)
            lin(p + 'fc2', d, ffn)
            ln(p + 'final_layer_norm')
    return t


def sinusoids(n, d):
    """MarianSinusoidalPositionalEmbedding: angle pos / 10000^(2⌊j/2⌋/d); sin of the even j, then cos of the odd j."""
    pos = np.arange(n, dtype=np.float64)[:, None]
    j = np.arange(d)[None, :]
    enc = pos / np.power(10000.0, 2 * (j // 2) / d)
    out = np.zeros((n, d))
    half = d // 2 if d % 2 == 0 else d // 2 + 1
    out[:, :half] = np.sin(enc[:, 0::2])
    out[:, half:] = np.cos(enc[:, 1::2])
    return out


class Forward:
    def __init__(self, cfg, w, family):
        self.cfg, self.w, self.family = cfg, w, family
        self.d = cfg['d_model']
        share = cfg.get('share_encoder_decoder_embeddings', True)
        self.enc_embed = w['model.shared.weight'] if share else w['model.encoder.embed_tokens.weight']
        self.dec_embed = w['model.shared.weight'] if share else w['model.decoder.embed_tokens.weight']
        self.lm_head = w.get('lm_head.weight', self.dec_embed)
        self.scale = math.sqrt(self.d) if cfg['scale_embedding'] else 1.0

    def layer_norm(self, x, name):
        mean = x.mean(axis=-1, keepdims=True)
        var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
        return (x - mean) / np.sqrt(var + 1e-5) * self.w[name + '.weight'] + self.w[name + '.bias']

    def linear(self, x, name):
        return x @ self.w[name + '.weight'].T + self.w[name + '.bias']

    def act(self, x):
        if self.cfg['activation_function'] == 'swish':
            return x / (1 + np.exp(-x))
        return 0.5 * x * (1 + np.vectorize(math.erf)(x / math.sqrt(2)))

    def embed(self, stack, ids, table):
        n = len(ids)
        x = table[np.array(ids)] * self.scale
        if self.family == 'marian':
            x = x + sinusoids(n, self.d)
        else:
            x = x + self.w[f'model.{stack}.embed_positions.weight'][2:2 + n]
            x = self.layer_norm(x, f'model.{stack}.layernorm_embedding')
        return x

    def attention(self, xq, xkv, name, heads, causal):
        n, m = xq.shape[0], xkv.shape[0]
        dh = self.d // heads
        q = self.linear(xq, name + '.q_proj').reshape(n, heads, dh).transpose(1, 0, 2)
        k = self.linear(xkv, name + '.k_proj').reshape(m, heads, dh).transpose(1, 0, 2)
        v = self.linear(xkv, name + '.v_proj').reshape(m, heads, dh).transpose(1, 0, 2)
        scores = (q * dh ** -0.5) @ k.transpose(0, 2, 1)  # [H, n, m]
        masked = scores.copy()
        if causal:
            masked[:, np.triu(np.ones((n, m), dtype=bool), 1)] = -np.inf
        e = np.exp(masked - masked.max(axis=-1, keepdims=True))
        attn = e / e.sum(axis=-1, keepdims=True)
        concat = (attn @ v).transpose(1, 0, 2).reshape(n, self.d)
        out = self.linear(concat, name + '.out_proj')
        return out, {'q': r8(q), 'k': r8(k), 'v': r8(v), 'scores': r8(scores), 'attention': r8(attn),
                     'attention_out': r8(out)}

    def stack(self, stack, ids, enc_out=None):
        table = self.enc_embed if stack == 'encoder' else self.dec_embed
        heads = self.cfg[f'{stack}_attention_heads']
        x = self.embed(stack, ids, table)
        rec = {'embeddings': r8(x), 'layers': []}
        for layer in range(self.cfg[f'{stack}_layers']):
            p = f'model.{stack}.layers.{layer}.'
            a, lr = self.attention(x, x, p + 'self_attn', heads, stack == 'decoder')
            x = self.layer_norm(x + a, p + 'self_attn_layer_norm')
            if enc_out is not None:
                c, cr = self.attention(x, enc_out, p + 'encoder_attn', heads, False)
                x = self.layer_norm(x + c, p + 'encoder_attn_layer_norm')
                lr['cross'] = cr
            m = self.linear(self.act(self.linear(x, p + 'fc1')), p + 'fc2')
            x = self.layer_norm(x + m, p + 'final_layer_norm')
            lr['mlp_out'] = r8(m)
            lr['residual_out'] = r8(x)
            rec['layers'].append(lr)
        return x, rec

    def logits(self, src, tgt):
        enc, _ = self.stack('encoder', src)
        dec, _ = self.stack('decoder', tgt, enc)
        return dec @ self.lm_head.T + self.w['final_logits_bias'][0]

    def greedy(self, src, max_new):
        tgt = [self.cfg['decoder_start_token_id']]
        out = []
        # transformers: max_new_tokens makes max_length = decoder input length (1) + max_new_tokens.
        max_length = min(self.cfg.get('max_length') or (1 + max_new), 1 + max_new)
        for _ in range(max_new):
            scores = generation_rules(self.cfg, tgt, np.array(self.logits(src, tgt)[-1]), max_length)
            nxt = int(np.argmax(scores))
            out.append(nxt)
            tgt.append(nxt)
            if nxt == self.cfg['eos_token_id']:
                break
        return out


def generation_rules(cfg, input_ids, scores, max_length):
    """The logits processors transformers' generate() builds from a config for greedy decoding
    (generation/logits_process.py), in its order, on one row: MinLength (eos −inf while len(input_ids) < min_length),
    NoRepeatNGram (tokens completing an n-gram already in input_ids), NoBadWords (the last token of each sequence whose
    other tokens end input_ids; a sequence equal to [eos] is dropped), ForcedBOS (at len 1 every token but
    forced_bos_token_id −inf), ForcedEOS (at len max_length − 1, every token but forced_eos_token_id)."""
    cur = len(input_ids)
    eos = cfg.get('eos_token_id')
    if cfg.get('min_length', 0) and cur < cfg['min_length']:
        scores[eos] = -np.inf
    n = cfg.get('no_repeat_ngram_size', 0) or 0
    if n > 0 and cur + 1 >= n:
        seen = {}
        for i in range(cur - n + 1):
            seen.setdefault(tuple(input_ids[i:i + n - 1]), []).append(input_ids[i + n - 1])
        for t in seen.get(tuple(input_ids[cur - n + 1:]) if n > 1 else (), []):
            scores[t] = -np.inf
    for seq in cfg.get('bad_words_ids') or []:
        if seq == [eos]:
            continue
        if len(seq) == 1 or input_ids[-(len(seq) - 1):] == seq[:-1]:
            scores[seq[-1]] = -np.inf
    if cfg.get('forced_bos_token_id') is not None and cur == 1:
        keep = cfg['forced_bos_token_id']
        scores[:] = -np.inf
        scores[keep] = 0
    if cfg.get('forced_eos_token_id') is not None and cur == max_length - 1:
        keep = cfg['forced_eos_token_id']
        scores[:] = -np.inf
        scores[keep] = 0
    return scores


def t5_config(d, d_kv, ff, layers, dec_layers, heads, vocab, gated, tie):
    return {'architectures': ['T5ForConditionalGeneration'], 'classifier_dropout': 0.0, 'd_ff': ff, 'd_kv': d_kv,
            'd_model': d, 'decoder_start_token_id': 0, 'dense_act_fn': 'gelu_new' if gated else 'relu',
            'dropout_rate': 0.1, 'eos_token_id': 1, 'feed_forward_proj': 'gated-gelu' if gated else 'relu',
            'initializer_factor': 1.0, 'is_encoder_decoder': True, 'is_gated_act': gated,
            'layer_norm_epsilon': 1e-06, 'model_type': 't5', 'n_positions': 512, 'num_decoder_layers': dec_layers,
            'num_heads': heads, 'num_layers': layers, 'output_past': True, 'pad_token_id': 0,
            'relative_attention_max_distance': 20, 'relative_attention_num_buckets': 8, 'tie_word_embeddings': tie,
            'torch_dtype': 'float32', 'transformers_version': VERSION, 'use_cache': True, 'vocab_size': vocab}


def t5_weights(cfg, gen):
    d, dkv, h, ff = cfg['d_model'], cfg['d_kv'], cfg['num_heads'], cfg['d_ff']
    t = {'shared.weight': gen.standard_normal((cfg['vocab_size'], d)) * 1.0}
    if not cfg['tie_word_embeddings']:
        t['lm_head.weight'] = gen.standard_normal((cfg['vocab_size'], d)) * 0.3
    for stack, n in (('encoder', cfg['num_layers']), ('decoder', cfg['num_decoder_layers'])):
        t[f'{stack}.final_layer_norm.weight'] = 1 + gen.standard_normal(d) * 0.1
        for b in range(n):
            p = f'{stack}.block.{b}.layer.'
            attns = [('0.SelfAttention', 0)] + ([('1.EncDecAttention', 1)] if stack == 'decoder' else [])
            for a, i in attns:
                for m in 'qkv':
                    t[f'{p}{a}.{m}.weight'] = gen.standard_normal((h * dkv, d)) / math.sqrt(d)
                t[f'{p}{a}.o.weight'] = gen.standard_normal((d, h * dkv)) / math.sqrt(h * dkv)
                t[f'{p}{i}.layer_norm.weight'] = 1 + gen.standard_normal(d) * 0.1
            if b == 0:
                t[f'{p}0.SelfAttention.relative_attention_bias.weight'] = gen.standard_normal(
                    (cfg['relative_attention_num_buckets'], h))
            f = 2 if stack == 'decoder' else 1
            names = ['wi_0', 'wi_1'] if cfg['is_gated_act'] else ['wi']
            for nm in names:
                t[f'{p}{f}.DenseReluDense.{nm}.weight'] = gen.standard_normal((ff, d)) / math.sqrt(d)
            t[f'{p}{f}.DenseReluDense.wo.weight'] = gen.standard_normal((d, ff)) / math.sqrt(ff)
            t[f'{p}{f}.layer_norm.weight'] = 1 + gen.standard_normal(d) * 0.1
    return t


def t5_bucket(rel, bidirectional, num_buckets, max_distance):
    """T5Attention._relative_position_bucket, its logarithm in float32 as torch computes it (relative_position.float())."""
    b = 0
    if bidirectional:
        num_buckets //= 2
        b += num_buckets if rel > 0 else 0
        rel = abs(rel)
    else:
        rel = -min(rel, 0)
    max_exact = num_buckets // 2
    if rel < max_exact:
        return b + rel
    f32 = np.float32
    large = max_exact + int(np.log(f32(rel) / f32(max_exact)) / f32(math.log(max_distance / max_exact))
                            * f32(num_buckets - max_exact))
    return b + min(large, num_buckets - 1)


class T5Forward:
    def __init__(self, cfg, w):
        self.cfg, self.w = cfg, w
        self.d, self.h, self.dkv = cfg['d_model'], cfg['num_heads'], cfg['d_kv']
        self.lm_head = w.get('lm_head.weight', w['shared.weight'])

    def rms(self, x, name):
        return x / np.sqrt((x * x).mean(axis=-1, keepdims=True) + self.cfg['layer_norm_epsilon']) * self.w[name]

    def bias(self, prefix, n, m, bidirectional):
        table = self.w[prefix + '.block.0.layer.0.SelfAttention.relative_attention_bias.weight']
        out = np.zeros((self.h, n, m))
        for i in range(n):
            for j in range(m):
                out[:, i, j] = table[t5_bucket(j - i, bidirectional, self.cfg['relative_attention_num_buckets'],
                                               self.cfg['relative_attention_max_distance'])]
        return out

    def attention(self, xq, xkv, name, bias, causal):
        n, m, h, dkv = xq.shape[0], xkv.shape[0], self.h, self.dkv
        q = (xq @ self.w[name + '.q.weight'].T).reshape(n, h, dkv).transpose(1, 0, 2)
        k = (xkv @ self.w[name + '.k.weight'].T).reshape(m, h, dkv).transpose(1, 0, 2)
        v = (xkv @ self.w[name + '.v.weight'].T).reshape(m, h, dkv).transpose(1, 0, 2)
        scores = q @ k.transpose(0, 2, 1)  # no 1/sqrt(d_kv)
        if bias is not None:
            scores = scores + bias
        masked = scores.copy()
        if causal:
            masked[:, np.triu(np.ones((n, m), dtype=bool), 1)] = -np.inf
        e = np.exp(masked - masked.max(axis=-1, keepdims=True))
        attn = e / e.sum(axis=-1, keepdims=True)
        out = (attn @ v).transpose(1, 0, 2).reshape(n, h * dkv) @ self.w[name + '.o.weight'].T
        return out, {'q': r8(q), 'k': r8(k), 'v': r8(v), 'scores': r8(scores), 'attention': r8(attn),
                     'attention_out': r8(out)}

    def ff(self, x, p):
        if self.cfg['is_gated_act']:
            a = x @ self.w[p + '.wi_0.weight'].T
            g = 0.5 * a * (1 + np.tanh(math.sqrt(2 / math.pi) * (a + 0.044715 * a ** 3)))  # gelu_new
            hid = g * (x @ self.w[p + '.wi_1.weight'].T)
        else:
            hid = np.maximum(x @ self.w[p + '.wi.weight'].T, 0)
        return hid @ self.w[p + '.wo.weight'].T

    def stack(self, stack, ids, enc_out=None):
        x = self.w['shared.weight'][np.array(ids)]
        n = len(ids)
        dec = stack == 'decoder'
        bias = self.bias(stack, n, n, not dec)
        rec = {'embeddings': r8(x), 'layers': []}
        layers = self.cfg['num_decoder_layers' if dec else 'num_layers']
        for b in range(layers):
            p = f'{stack}.block.{b}.layer.'
            xn = self.rms(x, p + '0.layer_norm.weight')
            a, lr = self.attention(xn, xn, p + '0.SelfAttention', bias, dec)
            x = x + a
            f = 1
            if dec:
                c, cr = self.attention(self.rms(x, p + '1.layer_norm.weight'), enc_out, p + '1.EncDecAttention', None,
                                       False)
                x = x + c
                lr['cross'] = cr
                f = 2
            m = self.ff(self.rms(x, p + f'{f}.layer_norm.weight'), p + f'{f}.DenseReluDense')
            x = x + m
            lr['mlp_out'] = r8(m)
            lr['residual_out'] = r8(x)
            rec['layers'].append(lr)
        out = self.rms(x, stack + '.final_layer_norm.weight')
        rec['output'] = r8(out)
        return out, rec

    def head(self, dec):
        if self.cfg['tie_word_embeddings']:
            dec = dec * self.d ** -0.5
        return dec @ self.lm_head.T

    def logits(self, src, tgt):
        enc, _ = self.stack('encoder', src)
        dec, _ = self.stack('decoder', tgt, enc)
        return self.head(dec)

    greedy = Forward.greedy


def make_t5(name, cfg, seed, src, tgt_tail, greedy_steps=12, pieces=None):
    gen = np.random.default_rng(seed)
    w = t5_weights(cfg, gen)
    if pieces is not None:
        # lm_head rows of the ids past the tokenizer's pieces (the padding and the sentinels) shrunk tenfold: a trained
        # T5 never predicts them, and a random one that did would write no text.
        w['lm_head.weight'][pieces:] *= 0.1
    w = {k: v.astype(np.float32).astype(np.float64) for k, v in w.items()}
    folder = os.path.join(OUT, name)
    os.makedirs(folder, exist_ok=True)
    write_json(os.path.join(folder, 'config.json'), dict(sorted(cfg.items())))
    write_safetensors(os.path.join(folder, 'model.safetensors'), w)
    f = T5Forward(cfg, w)
    tgt = [cfg['decoder_start_token_id']] + tgt_tail
    enc, enc_rec = f.stack('encoder', src)
    dec, dec_rec = f.stack('decoder', tgt, enc)
    ref = {'family': 't5', 'generator': 'tests/reference/make_encdec_reference.py', 'source_ids': src,
           'target_ids': tgt, 'encoder': enc_rec, 'decoder': dec_rec, 'logits': r8(f.head(dec)),
           'greedy': {'max_new_tokens': greedy_steps, 'tokens': f.greedy(src, greedy_steps)}}
    write_json(os.path.join(folder, 'reference.json'), ref)
    print(name, 'greedy', ref['greedy']['tokens'])


def make(name, cfg, family, seed, src, tgt_tail):
    gen = np.random.default_rng(seed)
    w = random_weights(cfg, gen, family)
    w = {k: v.astype(np.float32).astype(np.float64) for k, v in w.items()}  # what the F32 checkpoint holds
    folder = os.path.join(OUT, name)
    os.makedirs(folder, exist_ok=True)
    write_json(os.path.join(folder, 'config.json'), dict(sorted(cfg.items())))
    write_safetensors(os.path.join(folder, 'model.safetensors'), w)
    f = Forward(cfg, w, family)
    tgt = [cfg['decoder_start_token_id']] + tgt_tail
    enc, enc_rec = f.stack('encoder', src)
    dec, dec_rec = f.stack('decoder', tgt, enc)
    logits = dec @ f.lm_head.T + w['final_logits_bias'][0]
    ref = {'family': family, 'generator': 'tests/reference/make_encdec_reference.py', 'source_ids': src,
           'target_ids': tgt, 'encoder': enc_rec, 'decoder': dec_rec, 'logits': r8(logits),
           'greedy': {'max_new_tokens': 10, 'tokens': f.greedy(src, 10)}}
    write_json(os.path.join(folder, 'reference.json'), ref)
    print(name, 'greedy', ref['greedy']['tokens'])


def main():
    make('marian-tied', marian_config(16, 2, 2, 32, 96, 96, True, True), 'marian', 1,
         [5, 17, 42, 8, 77, 3, 0], [12, 40, 7, 66])
    make('marian-separate', marian_config(16, 2, 4, 24, 96, 80, False, False), 'marian', 2,
         [9, 90, 31, 4, 55, 0], [14, 3, 61, 22, 70])
    make('bart', bart_config(16, 2, 2, 32, 96, 64), 'bart', 3, [0, 31, 8, 57, 93, 12, 2], [0, 44, 19, 80])
    # The vocabulary of tests/reference/tokenizers/spm/marian (396 pieces, eos 0, pad 395): the test puts that
    # folder's tokenizer files beside this checkpoint; the source ids are python sentencepiece's for its first text.
    spm = json.load(open(os.path.join(HERE, 'tokenizers', 'spm', 'reference.json'), encoding='utf-8'))
    make('marian-spm', dict(marian_config(16, 2, 2, 32, 396, 396, True, True), bad_words_ids=[[395]], eos_token_id=0),
         'marian', 6, spm['marian'][0]['ids'], [8, 14, 16])
    # Texts longer than max_exact so the logarithmic buckets are used (8 buckets, max distance 20).
    make_t5('t5-v1_0', t5_config(16, 6, 32, 2, 2, 2, 96, False, True), 4,
            [5, 17, 42, 8, 77, 3, 60, 21, 33, 12, 9, 1], [12, 40, 7, 66, 30, 2, 81, 15, 44])
    make_t5('t5-v1_1', t5_config(16, 4, 24, 2, 3, 4, 96, True, False), 5,
            [9, 90, 31, 4, 55, 70, 18, 26, 61, 1], [14, 3, 61, 22, 70, 5, 39])
    # T5 v1.1 (gated-GELU, untied) with the vocabulary of tests/reference/tokenizers/spm/t5like.model (400 pieces,
    # T5's ids: pad 0, eos 1, unk 2; read as spiece.model it gets T5's 100 <extra_id_N>, its tokenizer.json has 3) and
    # vocab_size padded past the tokenizer to a multiple of 8 as t5-small's 32128 > 32100: the window tests put
    # t5like.model beside it as spiece.model and t5like.json as tokenizer.json. The source ids are the tokenizer's for
    # its first text with </s>.
    make_t5('t5-spm', t5_config(16, 4, 24, 2, 2, 4, 504, True, False), 7, spm['hf']['t5like'][0]['ids'],
            [72, 48, 66], greedy_steps=40, pieces=400)


if __name__ == '__main__':
    main()
