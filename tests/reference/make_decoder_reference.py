#!/usr/bin/python3
"""Tiny random checkpoints of today's decoder families in the exact Hugging Face layout, with reference outputs.

Run with Debian's python3-torch, from anywhere:
    /usr/bin/python3 tests/reference/make_decoder_reference.py              # writes the folders below
    /usr/bin/python3 tests/reference/make_decoder_reference.py --self-check # only checks that the references bite
Generating needs Hugging Face's tokenizers through npm (the ids come from HF's own code, not ours):
    mkdir -p /tmp/tokref2 && cd /tmp/tokref2 && npm install tokenizers    (or set TOKENIZERS_NODE_MODULES)

Writes tests/reference/decoders/<name>/ for each checkpoint of checkpoints(): config.json (fields as transformers
writes them for the model_type), model.safetensors or model-0000k-of-00002.safetensors + model.safetensors.index.json,
tokenizer.json + tokenizer_config.json (real HF format, vocab = config vocab_size), and reference.json:
  {"family", "generator", "dtype", "runs": [{"text", "token_ids", "embeddings" [n][d] (after Gemma's scaling),
   "layers": [{"q" [H][n][dh] after q_norm and RoPE, "k"/"v" [H_kv][n][dh], "scores" [H][n][n] scaled (and
   soft-capped), unmasked, "attention" [H][n][n] masked softmax (masked entries exactly 0), "attention_out" [n][d]
   after o_proj, "mlp_out" [n][d], (Gemma 2/3 only: "attention_out_normed", "mlp_out_normed" after the post norms),
   "residual_out" [n][d]}], "final_norm" [n][d], "logits" [n][vocab] (after final soft-capping)}]}
Floats carry 8 significant digits. The forward pass (decoder_forward.py) runs in float64 on the weights rounded to
the checkpoint's dtype. Deterministic: fixed seeds.

--self-check re-runs each checkpoint's long input with deliberate mistakes (decoder_forward.PERTURBATIONS) and
prints how far each moves the logits and the attention maps; it fails if a mistake moves them too little.
"""
import json
import os
import subprocess
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from make_hf_reference import write_json, write_safetensors, rounded  # noqa: E402
import decoder_tokenizers  # noqa: E402
from decoder_forward import forward, PERTURBATIONS  # noqa: E402

OUT = os.path.join(HERE, 'decoders')
NODE_MODULES = os.environ.get('TOKENIZERS_NODE_MODULES', '/tmp/tokref2/node_modules')
TEXTS = ['The cat sat on the mat.',
         'The cat gave the café 12345 roses; every token attends to the tokens before it.']
TORCH_DTYPE = {'F32': torch.float32, 'F16': torch.float16, 'BF16': torch.bfloat16}
DTYPE_NAME = {'F32': 'float32', 'F16': 'float16', 'BF16': 'bfloat16'}
VERSION = '4.51.3'


def llama_config(arch, model_type, d, layers, heads, kv, inter, vocab, dtype, **extra):
    cfg = {'architectures': [arch], 'attention_bias': False, 'attention_dropout': 0.0, 'bos_token_id': None,
           'eos_token_id': None, 'hidden_act': 'silu', 'hidden_size': d, 'initializer_range': 0.02,
           'intermediate_size': inter, 'max_position_embeddings': 2048, 'mlp_bias': False, 'model_type': model_type,
           'num_attention_heads': heads, 'num_hidden_layers': layers, 'num_key_value_heads': kv,
           'pretraining_tp': 1, 'rms_norm_eps': 1e-05, 'rope_scaling': None, 'rope_theta': 10000.0,
           'tie_word_embeddings': False, 'torch_dtype': DTYPE_NAME[dtype], 'transformers_version': VERSION,
           'use_cache': True, 'vocab_size': vocab}
    if model_type != 'llama':  # mistral/qwen configs have no pretraining_tp or mlp_bias
        del cfg['pretraining_tp'], cfg['mlp_bias']
    if model_type == 'qwen2':
        del cfg['attention_bias']
    cfg.update(extra)
    return dict(sorted(cfg.items()))


def gemma_config(arch, model_type, d, layers, heads, kv, dh, inter, vocab, dtype, **extra):
    cfg = {'architectures': [arch], 'attention_bias': False, 'attention_dropout': 0.0, 'bos_token_id': 2,
           'eos_token_id': 1, 'head_dim': dh, 'hidden_act': 'gelu_pytorch_tanh', 'hidden_activation': 'gelu_pytorch_tanh',
           'hidden_size': d, 'initializer_range': 0.02, 'intermediate_size': inter, 'max_position_embeddings': 8192,
           'model_type': model_type, 'num_attention_heads': heads, 'num_hidden_layers': layers,
           'num_key_value_heads': kv, 'pad_token_id': 0, 'rms_norm_eps': 1e-06, 'rope_theta': 10000.0,
           'torch_dtype': DTYPE_NAME[dtype], 'transformers_version': VERSION, 'use_cache': True, 'vocab_size': vocab}
    if model_type == 'gemma':
        cfg['rope_scaling'] = None
    if model_type == 'gemma3_text':  # Gemma3TextConfig has hidden_activation only
        del cfg['hidden_act']
    cfg.update(extra)
    return dict(sorted(cfg.items()))


def checkpoints(vocabs):
    """name -> (config, dtype, tokenizer flavour, shards, seed). vocabs: flavour -> (vocab size, specials)."""
    L3, QW, MI, GE = (vocabs[f] for f in ('llama3', 'qwen', 'mistral', 'gemma'))
    llama_ids = {'bos_token_id': L3[1]['<|begin_of_text|>'], 'eos_token_id': L3[1]['<|end_of_text|>']}
    qwen_ids = {'bos_token_id': QW[1]['<|endoftext|>'], 'eos_token_id': QW[1]['<|endoftext|>']}
    mistral_ids = {'bos_token_id': 1, 'eos_token_id': 2}
    c = {}
    c['llama-gqa'] = (llama_config('LlamaForCausalLM', 'llama', 32, 2, 4, 2, 64, L3[0], 'F32', **llama_ids),
                      'F32', 'llama3', 1, 11)
    c['llama3-scaled'] = (llama_config(
        'LlamaForCausalLM', 'llama', 64, 2, 4, 2, 96, L3[0], 'BF16', head_dim=16, tie_word_embeddings=True,
        rope_theta=10000.0, max_position_embeddings=512,
        rope_scaling={'factor': 8.0, 'high_freq_factor': 4.0, 'low_freq_factor': 1.0,
                      'original_max_position_embeddings': 64, 'rope_type': 'llama3'}, **llama_ids),
        'BF16', 'llama3', 2, 12)
    c['llama-linear-bias'] = (llama_config(
        'LlamaForCausalLM', 'llama', 32, 2, 4, 4, 64, L3[0], 'F16', head_dim=12, attention_bias=True, mlp_bias=True,
        rope_scaling={'factor': 4.0, 'rope_type': 'linear', 'type': 'linear'}, **llama_ids), 'F16', 'llama3', 1, 13)
    c['llama-dynamic'] = (llama_config(
        'LlamaForCausalLM', 'llama', 32, 2, 4, 2, 64, MI[0], 'F32', max_position_embeddings=16,
        rope_scaling={'factor': 4.0, 'type': 'dynamic'}, **mistral_ids), 'F32', 'mistral', 1, 14)
    c['mistral-window'] = (llama_config(
        'MistralForCausalLM', 'mistral', 32, 2, 4, 2, 64, MI[0], 'F32', head_dim=None, sliding_window=4,
        max_position_embeddings=32768, **mistral_ids), 'F32', 'mistral', 1, 15)
    c['qwen2-bias'] = (llama_config(
        'Qwen2ForCausalLM', 'qwen2', 32, 2, 4, 2, 64, QW[0], 'F32', rms_norm_eps=1e-06, rope_theta=1000000.0,
        max_position_embeddings=32768, tie_word_embeddings=True, use_sliding_window=True, sliding_window=5,
        max_window_layers=1, use_mrope=False, **qwen_ids), 'F32', 'qwen', 1, 16)
    c['qwen3-norms'] = (llama_config(
        'Qwen3ForCausalLM', 'qwen3', 32, 2, 4, 2, 64, QW[0], 'F32', head_dim=16, rms_norm_eps=1e-06,
        rope_theta=1000000.0, max_position_embeddings=40960, use_sliding_window=False, sliding_window=None,
        max_window_layers=2, **qwen_ids), 'F32', 'qwen', 1, 17)
    c['gemma-mqa'] = (gemma_config('GemmaForCausalLM', 'gemma', 40, 2, 4, 1, 16, 80, GE[0], 'BF16'),
                      'BF16', 'gemma', 1, 18)
    c['gemma2-softcap'] = (gemma_config(
        'Gemma2ForCausalLM', 'gemma2', 32, 3, 4, 2, 16, 64, GE[0], 'F32', attn_logit_softcapping=5.0,
        final_logit_softcapping=3.0, query_pre_attn_scalar=8, sliding_window=4, cache_implementation='hybrid'),
        'F32', 'gemma', 1, 19)
    gemma3 = dict(attn_logit_softcapping=None, query_pre_attn_scalar=8, sliding_window=4,
                  rope_local_base_freq=10000.0, rope_theta=1000000.0, cache_implementation='hybrid')
    c['gemma3-pattern'] = (gemma_config(
        'Gemma3ForCausalLM', 'gemma3_text', 32, 3, 4, 2, 16, 64, GE[0], 'BF16', final_logit_softcapping=None,
        rope_scaling=None, sliding_window_pattern=2, **gemma3), 'BF16', 'gemma', 1, 20)
    c['gemma3-layer-types'] = (gemma_config(
        'Gemma3ForCausalLM', 'gemma3_text', 32, 3, 4, 2, 16, 64, GE[0], 'F32', final_logit_softcapping=5.0,
        rope_scaling={'factor': 8.0, 'rope_type': 'linear'}, sliding_window_pattern=2,
        layer_types=['full_attention', 'sliding_attention', 'sliding_attention'], **gemma3), 'F32', 'gemma', 1, 21)
    return c


def rand(gen, *shape, std=0.2, mean=0.0):
    return torch.randn(*shape, generator=gen, dtype=torch.float64) * std + mean


def weights(cfg, seed):
    """HF tensor names and [out, in] shapes. q/k weights have a large std so attention is peaky."""
    gen = torch.Generator().manual_seed(seed)
    d, H, Hkv, family = cfg['hidden_size'], cfg['num_attention_heads'], cfg['num_key_value_heads'], cfg['model_type']
    dh = cfg.get('head_dim') or d // H
    gemma = family.startswith('gemma')
    norm = lambda n: rand(gen, n, std=0.1) if gemma else rand(gen, n, std=0.1, mean=1.0)  # Gemma stores w of (1 + w)
    w = {'model.embed_tokens.weight': rand(gen, cfg['vocab_size'], d, std=1.0), 'model.norm.weight': norm(d)}
    if not cfg.get('tie_word_embeddings', gemma):
        w['lm_head.weight'] = rand(gen, cfg['vocab_size'], d, std=0.3)
    qk_std = (0.25 if family in ('qwen3', 'gemma3_text') else 0.4) * (32 / d) ** 0.5  # scores of ~10-40
    for i in range(cfg['num_hidden_layers']):
        p = f'model.layers.{i}.'
        a = p + 'self_attn.'
        w[a + 'q_proj.weight'] = rand(gen, H * dh, d, std=qk_std)
        w[a + 'k_proj.weight'] = rand(gen, Hkv * dh, d, std=qk_std)
        w[a + 'v_proj.weight'] = rand(gen, Hkv * dh, d, std=0.3)
        w[a + 'o_proj.weight'] = rand(gen, d, H * dh, std=0.3)
        if family == 'qwen2' or cfg.get('attention_bias'):
            for name, n in (('q_proj', H * dh), ('k_proj', Hkv * dh), ('v_proj', Hkv * dh)):
                w[a + name + '.bias'] = rand(gen, n, std=0.5)
        if cfg.get('attention_bias') and family != 'qwen2':
            w[a + 'o_proj.bias'] = rand(gen, d, std=0.3)
        if family in ('qwen3', 'gemma3_text'):  # large q/k norm gains: the normed q, k must still give peaky scores
            w[a + 'q_norm.weight'] = rand(gen, dh, std=0.3, mean=1.0 if gemma else 2.5)
            w[a + 'k_norm.weight'] = rand(gen, dh, std=0.3, mean=1.0 if gemma else 2.5)
        inter = cfg['intermediate_size']
        w[p + 'mlp.gate_proj.weight'] = rand(gen, inter, d, std=0.3)
        w[p + 'mlp.up_proj.weight'] = rand(gen, inter, d, std=0.3)
        w[p + 'mlp.down_proj.weight'] = rand(gen, d, inter, std=0.2)
        if cfg.get('mlp_bias'):
            for name, n in (('gate_proj', inter), ('up_proj', inter), ('down_proj', d)):
                w[p + 'mlp.' + name + '.bias'] = rand(gen, n, std=0.3)
        names = ['input_layernorm', 'post_attention_layernorm']
        if family in ('gemma2', 'gemma3_text'):
            names += ['pre_feedforward_layernorm', 'post_feedforward_layernorm']
        for name in names:
            w[p + name + '.weight'] = norm(d)
    return w


def write_weights(folder, w, dtype, shards):
    """One model.safetensors, or `shards` files split by layer plus model.safetensors.index.json as HF writes it."""
    if shards == 1:
        write_safetensors(os.path.join(folder, 'model.safetensors'), w, dtype)
        return
    names = sorted(w)
    layer_of = lambda n: int(n.split('.')[2]) if n.startswith('model.layers.') else -1
    first = {n for n in names if layer_of(n) == 0 or n == 'model.embed_tokens.weight'}
    parts = [{n: w[n] for n in names if n in first}, {n: w[n] for n in names if n not in first}]
    weight_map = {}
    for k, part in enumerate(parts):
        file = f'model-{k + 1:05d}-of-{len(parts):05d}.safetensors'
        write_safetensors(os.path.join(folder, file), part, dtype)
        weight_map.update({n: file for n in part})
    size = sum(t.numel() * torch.tensor([], dtype=TORCH_DTYPE[dtype]).element_size() for t in w.values())
    with open(os.path.join(folder, 'model.safetensors.index.json'), 'w') as f:
        f.write(json.dumps({'metadata': {'total_size': size}, 'weight_map': weight_map}, indent=2, sort_keys=True) + '\n')


def hf_token_ids(tokenizer_path, texts):
    script = os.path.join(HERE, 'encode_with_hf_tokenizers.js')
    env = dict(os.environ, NODE_PATH=NODE_MODULES)
    out = subprocess.run(['node', script, tokenizer_path], input=json.dumps(texts), capture_output=True, text=True,
                         env=env, check=True)
    return json.loads(out.stdout)


def as_list(t):
    if t.dim() == 1:
        return [float('%.8g' % v) for v in t.tolist()]
    return [as_list(r) for r in t]


def dump(result):
    layers = [{k: as_list(v) for k, v in L.items()} for L in result['layers']]
    return {'embeddings': as_list(result['embeddings']), 'layers': layers, 'final_norm': as_list(result['final_norm']),
            'logits': as_list(result['logits'])}


TOKENIZERS = {'llama3': lambda: decoder_tokenizers.byte_level('llama3'), 'qwen': lambda: decoder_tokenizers.byte_level('qwen'),
              'mistral': lambda: decoder_tokenizers.sentencepiece('mistral'),
              'gemma': lambda: decoder_tokenizers.sentencepiece('gemma')}

CHECKS = {  # checkpoint -> the mistakes its references must expose
    'llama-gqa': ['wrong_kv_head', 'rope_interleaved'],
    'llama3-scaled': ['no_rope_scaling', 'llama3_no_smooth', 'wrong_kv_head'],
    'llama-linear-bias': ['no_rope_scaling', 'no_bias', 'rope_interleaved'],
    'llama-dynamic': ['no_rope_scaling', 'wrong_kv_head'],
    'mistral-window': ['window_off_by_one', 'no_window', 'wrong_kv_head'],
    'qwen2-bias': ['window_off_by_one', 'no_window', 'no_bias', 'wrong_kv_head'],
    'qwen3-norms': ['no_qk_norm', 'wrong_kv_head'],
    'gemma-mqa': ['no_one_plus_w', 'no_sqrt_rounding'],
    'gemma2-softcap': ['no_attn_softcap', 'no_final_softcap', 'window_off_by_one', 'scale_head_dim', 'no_sandwich',
                       'wrong_kv_head'],
    'gemma3-pattern': ['window_off_by_one', 'no_qk_norm', 'global_rope_on_local', 'scale_head_dim', 'no_one_plus_w'],
    'gemma3-layer-types': ['default_pattern', 'no_rope_scaling', 'global_rope_on_local', 'no_final_softcap',
                           'window_off_by_one'],
}
# The sqrt(d) rounding is a 0.19 % change of the embeddings' scale that the RMSNorms mostly cancel: it can only
# move the outputs by about 1e-3, still 10x the tests' 1e-4 tolerance.
THRESHOLD = {'no_sqrt_rounding': 1e-4}


def relative_move(a, b):
    """max |a - b| / max |a| over logits, and max |a - b| over the attention maps (already in [0, 1])."""
    logits = ((a['logits'] - b['logits']).abs().max() / a['logits'].abs().max()).item()
    attn = max((x['attention'] - y['attention']).abs().max().item() for x, y in zip(a['layers'], b['layers']))
    return logits, attn


def self_check(name, cfg, dtype, w, ids):
    base = forward(w, cfg, ids, TORCH_DTYPE[dtype])
    ok = True
    for p in CHECKS[name]:
        logits, attn = relative_move(base, forward(w, cfg, ids, TORCH_DTYPE[dtype], {p}))
        need = THRESHOLD.get(p, 1e-2)
        passed = logits > need
        ok &= passed
        print(f'  {name:20s} {p:22s} logits move {logits:9.3e} (need > {need:.0e}), attention moves {attn:.3f}'
              f'  {"ok" if passed else "TOO SMALL"}')
    return ok


def main():
    torch.set_num_threads(1)
    check_only = '--self-check' in sys.argv
    toks = {f: make() for f, make in TOKENIZERS.items()}
    specs = checkpoints({f: (t[2], t[3]) for f, t in toks.items()})
    ids_of, ok = {}, True
    for name, (cfg, dtype, flavour, shards, seed) in specs.items():
        folder = os.path.join(OUT, name)
        os.makedirs(folder, exist_ok=True)
        tok_json, tok_config, vocab, _ = toks[flavour]
        assert vocab == cfg['vocab_size']
        write_json(os.path.join(folder, 'tokenizer.json'), tok_json)
        write_json(os.path.join(folder, 'tokenizer_config.json'), tok_config)
        if flavour not in ids_of:
            ids_of[flavour] = hf_token_ids(os.path.join(folder, 'tokenizer.json'), TEXTS)
        ids = ids_of[flavour]
        assert len(ids[1]) >= 24, (name, len(ids[1]))
        w = weights(cfg, seed)
        wr = rounded(w, dtype)
        if check_only:
            ok &= self_check(name, cfg, dtype, wr, ids[1])
            continue
        write_json(os.path.join(folder, 'config.json'), cfg)
        write_weights(folder, w, dtype, shards)
        runs = [{'text': t, 'token_ids': i, **dump(forward(wr, cfg, i, TORCH_DTYPE[dtype]))} for t, i in zip(TEXTS, ids)]
        with open(os.path.join(folder, 'reference.json'), 'w', encoding='utf-8') as f:
            json.dump({'family': cfg['model_type'], 'generator': 'tests/reference/make_decoder_reference.py',
                       'dtype': dtype, 'runs': runs}, f, ensure_ascii=False, separators=(',', ':'))
        print('wrote', folder, [len(i) for i in ids], file=sys.stderr)
    if check_only:
        print('self-check', 'passed' if ok else 'FAILED')
        sys.exit(0 if ok else 1)


if __name__ == '__main__':
    main()
