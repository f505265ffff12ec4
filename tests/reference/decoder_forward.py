"""An independent float64 forward pass of the Hugging Face decoder families, written from the semantics of
transformers' modeling_llama / mistral / qwen2 / qwen3 / gemma / gemma2 / gemma3 (Gemma3ForCausalLM).

forward(w, cfg, ids, perturb) reads everything from the config dict exactly as found in config.json. `perturb` names
deliberate mistakes (see PERTURBATIONS) that the --self-check of make_decoder_reference.py uses to show that the
reference outputs tell a correct implementation from a wrong one.
"""
import math

import torch
import torch.nn.functional as F

PERTURBATIONS = {
    'window_off_by_one': 'sliding window lets i see j when i - W <= j (one key too many)',
    'no_window': 'sliding windows ignored',
    'wrong_kv_head': 'query head h reads kv head h % H_kv instead of h // (H / H_kv)',
    'no_attn_softcap': 'attention logits not soft-capped',
    'no_final_softcap': 'final logits not soft-capped',
    'no_one_plus_w': 'Gemma RMSNorm multiplies by w instead of (1 + w)',
    'no_sqrt_rounding': 'Gemma embedding normaliser sqrt(d) not rounded to the weights dtype',
    'no_rope_scaling': 'rope_scaling ignored',
    'llama3_no_smooth': 'llama3 scaling: the medium band left unscaled instead of smoothed',
    'rope_interleaved': 'RoPE rotates interleaved pairs (GPT-J) instead of split halves (rotate_half)',
    'no_qk_norm': 'q_norm / k_norm skipped',
    'scale_head_dim': 'scores scaled by head_dim^-0.5 instead of query_pre_attn_scalar^-0.5',
    'default_pattern': 'layer_types ignored, windows from sliding_window_pattern',
    'global_rope_on_local': 'local layers use rope_theta (and its scaling) instead of rope_local_base_freq',
    'no_sandwich': 'post-attention / post-feedforward norms skipped',
    'no_bias': 'projection biases dropped',
}


def rms_norm(x, w, eps, plus_one):
    """x [.., d]: x / sqrt(mean(x^2) + eps) * w, or * (1 + w) for the Gemma family."""
    y = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps)
    return y * ((1.0 + w) if plus_one else w)


def inv_freq(theta, dh, scaling, n, max_pos, perturb):
    """[dh/2] rotary frequencies theta^(-2i/dh), rescaled per rope_scaling ('type' or 'rope_type' key)."""
    exponent = torch.arange(0, dh, 2, dtype=torch.float64) / dh
    kind = (scaling or {}).get('rope_type', (scaling or {}).get('type', 'default'))
    if 'no_rope_scaling' in perturb:
        kind = 'default'
    if kind == 'dynamic':
        # HF dynamic NTK: base grows once the sequence (max position + 1 = n tokens) exceeds max_position_embeddings.
        seq = max(n, max_pos)
        factor = scaling['factor']
        theta = theta * ((factor * seq / max_pos) - (factor - 1)) ** (dh / (dh - 2))
    inv = 1.0 / theta ** exponent
    if kind == 'linear':
        inv = inv / scaling['factor']
    elif kind == 'llama3':
        factor, low, high = scaling['factor'], scaling['low_freq_factor'], scaling['high_freq_factor']
        old = scaling['original_max_position_embeddings']
        wavelen = 2 * math.pi / inv
        scaled = torch.where(wavelen > old / low, inv / factor, inv)
        smooth = (old / wavelen - low) / (high - low)
        smoothed = (1 - smooth) * scaled / factor + smooth * scaled
        medium = (wavelen >= old / high) & (wavelen <= old / low)
        if 'llama3_no_smooth' not in perturb:
            scaled = torch.where(medium, smoothed, scaled)
        inv = scaled
    return inv


def rope(x, inv, perturb):
    """x [heads, n, dh] at positions 0..n-1. HF rotate_half: pairs (x_i, x_{i+dh/2}) share frequency inv[i]."""
    n, dh = x.shape[1], x.shape[2]
    angle = torch.arange(n, dtype=torch.float64)[:, None] * inv[None, :]  # [n, dh/2]
    if 'rope_interleaved' in perturb:
        angle = angle.repeat_interleave(2, dim=1)
        rot = torch.stack((-x[..., 1::2], x[..., 0::2]), dim=-1).flatten(-2)
    else:
        angle = torch.cat((angle, angle), dim=1)
        rot = torch.cat((-x[..., dh // 2:], x[..., :dh // 2]), dim=-1)
    return x * angle.cos() + rot * angle.sin()


def layer_windows(cfg, perturb):
    """The sliding window of each layer (None = full causal attention), as HF decides it per model_type."""
    family, n_layers, window = cfg['model_type'], cfg['num_hidden_layers'], cfg.get('sliding_window')
    if 'no_window' in perturb or window is None:
        return [None] * n_layers
    if family == 'mistral':
        return [window] * n_layers
    if family in ('qwen2', 'qwen3'):
        if not cfg.get('use_sliding_window', False):
            return [None] * n_layers
        return [window if i >= cfg['max_window_layers'] else None for i in range(n_layers)]
    if family == 'gemma2':
        return [window if i % 2 == 0 else None for i in range(n_layers)]
    if family == 'gemma3_text':
        types = cfg.get('layer_types')
        if types is None or 'default_pattern' in perturb:
            pattern = cfg.get('sliding_window_pattern', 6)
            types = ['sliding_attention' if (i + 1) % pattern else 'full_attention' for i in range(n_layers)]
        return [window if t == 'sliding_attention' else None for t in types]
    return [None] * n_layers


def family_spec(cfg, perturb):
    family = cfg['model_type']
    gemma = family in ('gemma', 'gemma2', 'gemma3_text')
    heads = cfg['num_attention_heads']
    dh = cfg.get('head_dim') or cfg['hidden_size'] // heads
    scale = dh ** -0.5
    if family in ('gemma2', 'gemma3_text') and 'scale_head_dim' not in perturb:
        scale = cfg['query_pre_attn_scalar'] ** -0.5
    attn_bias = cfg.get('attention_bias', False)
    return {
        'gemma': gemma, 'plus_one': gemma and 'no_one_plus_w' not in perturb, 'heads': heads, 'dh': dh,
        'kv_heads': cfg.get('num_key_value_heads') or heads, 'scale': scale,
        'qkv_bias': (family == 'qwen2' or attn_bias) and 'no_bias' not in perturb,
        'o_bias': family != 'qwen2' and attn_bias and 'no_bias' not in perturb,
        'mlp_bias': cfg.get('mlp_bias', False) and 'no_bias' not in perturb,
        'qk_norm': family in ('qwen3', 'gemma3_text') and 'no_qk_norm' not in perturb,
        'sandwich': family in ('gemma2', 'gemma3_text') and 'no_sandwich' not in perturb,
        'attn_softcap': None if 'no_attn_softcap' in perturb else cfg.get('attn_logit_softcapping'),
        'final_softcap': None if 'no_final_softcap' in perturb else cfg.get('final_logit_softcapping'),
        'act': (lambda x: F.gelu(x, approximate='tanh')) if gemma else F.silu,
        'eps': cfg['rms_norm_eps'], 'windows': layer_windows(cfg, perturb),
    }


def layer_rope(cfg, layer, n, dh, perturb):
    """Gemma 3 local (sliding) layers use rope_local_base_freq with no scaling; every other layer rope_theta."""
    theta, scaling = cfg.get('rope_theta', 10000.0), cfg.get('rope_scaling')
    if cfg['model_type'] == 'gemma3_text' and 'global_rope_on_local' not in perturb:
        if layer_windows(cfg, perturb)[layer] is not None:
            theta, scaling = cfg['rope_local_base_freq'], None
    return inv_freq(theta, dh, scaling, n, cfg['max_position_embeddings'], perturb)


def attention(w, p, cfg, s, x, layer, perturb):
    """x [n, d] (normed). Returns the per-head trace and the output after o_proj [n, d]."""
    n = x.shape[0]
    H, Hkv, dh = s['heads'], s['kv_heads'], s['dh']
    lin = lambda name, bias: x @ w[p + name + '.weight'].T + (w[p + name + '.bias'] if bias else 0)
    q = lin('q_proj', s['qkv_bias']).reshape(n, H, dh).transpose(0, 1)  # [H, n, dh]
    k = lin('k_proj', s['qkv_bias']).reshape(n, Hkv, dh).transpose(0, 1)
    v = lin('v_proj', s['qkv_bias']).reshape(n, Hkv, dh).transpose(0, 1)
    if s['qk_norm']:
        q = rms_norm(q, w[p + 'q_norm.weight'], s['eps'], s['plus_one'])
        k = rms_norm(k, w[p + 'k_norm.weight'], s['eps'], s['plus_one'])
    inv = layer_rope(cfg, layer, n, dh, perturb)
    q, k = rope(q, inv, perturb), rope(k, inv, perturb)
    group = H // Hkv
    kv_of = [(h % Hkv if 'wrong_kv_head' in perturb else h // group) for h in range(H)]
    scores = torch.stack([q[h] @ k[kv_of[h]].T for h in range(H)]) * s['scale']  # [H, n, n]
    if s['attn_softcap'] is not None:
        scores = torch.tanh(scores / s['attn_softcap']) * s['attn_softcap']
    i, j = torch.arange(n)[:, None], torch.arange(n)[None, :]
    allowed = j <= i
    window = s['windows'][layer]
    if window is not None:
        allowed &= (j >= i - window) if 'window_off_by_one' in perturb else (j > i - window)
    attn = torch.softmax(scores.masked_fill(~allowed, float('-inf')), dim=-1)
    heads_out = torch.stack([attn[h] @ v[kv_of[h]] for h in range(H)])  # [H, n, dh]
    concat = heads_out.transpose(0, 1).reshape(n, H * dh)
    out = concat @ w[p + 'o_proj.weight'].T + (w[p + 'o_proj.bias'] if s['o_bias'] else 0)
    return {'q': q, 'k': k, 'v': v, 'scores': scores, 'attention': attn}, out


def mlp(w, p, s, x):
    lin = lambda t, name: t @ w[p + name + '.weight'].T + (w[p + name + '.bias'] if s['mlp_bias'] else 0)
    return lin(s['act'](lin(x, 'gate_proj')) * lin(x, 'up_proj'), 'down_proj')


def embed_scale(cfg, dtype, perturb):
    """Gemma: sqrt(hidden_size) rounded to the weights' dtype first, as HF's torch.tensor(normalizer, dtype=...)."""
    if cfg['model_type'] not in ('gemma', 'gemma2', 'gemma3_text'):
        return 1.0
    root = cfg['hidden_size'] ** 0.5
    if 'no_sqrt_rounding' in perturb:
        return root
    return torch.tensor(root, dtype=dtype).to(torch.float64).item()


def forward(w, cfg, ids, dtype, perturb=()):
    """w: name -> float64 tensor (already rounded to the checkpoint dtype); dtype: the checkpoint's torch dtype."""
    s = family_spec(cfg, perturb)
    g = lambda name: w['model.' + name]
    x = g('embed_tokens.weight')[ids] * embed_scale(cfg, dtype, perturb)
    result = {'embeddings': x, 'layers': []}
    for layer in range(cfg['num_hidden_layers']):
        p = f'model.layers.{layer}.'
        norm = lambda t, name: rms_norm(t, w[p + name + '.weight'], s['eps'], s['plus_one'])
        trace, attn_out = attention(w, p + 'self_attn.', cfg, s, norm(x, 'input_layernorm'), layer, perturb)
        if s['sandwich']:
            trace['attention_out'] = attn_out
            trace['attention_out_normed'] = norm(attn_out, 'post_attention_layernorm')
            h = x + trace['attention_out_normed']
            trace['mlp_out'] = mlp(w, p + 'mlp.', s, norm(h, 'pre_feedforward_layernorm'))
            trace['mlp_out_normed'] = norm(trace['mlp_out'], 'post_feedforward_layernorm')
            x = h + trace['mlp_out_normed']
        else:
            trace['attention_out'] = attn_out
            h = x + attn_out
            trace['mlp_out'] = mlp(w, p + 'mlp.', s, norm(h, 'post_attention_layernorm'))
            x = h + trace['mlp_out']
        trace['residual_out'] = x
        result['layers'].append(trace)
    result['final_norm'] = rms_norm(x, g('norm.weight'), s['eps'], s['plus_one'])
    head = w.get('lm_head.weight', g('embed_tokens.weight'))
    logits = result['final_norm'] @ head.T
    if s['final_softcap'] is not None:
        logits = torch.tanh(logits / s['final_softcap']) * s['final_softcap']
    result['logits'] = logits
    return result
