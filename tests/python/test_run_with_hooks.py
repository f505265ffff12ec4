"""model.run_with_hooks (issue 34): hooks that change activations give the program's own ablations and patches, an
identity hook changes nothing, and a steered stream runs on through the next layer as an independent numpy forward
of the checkpoint's weights says."""
import json
import os
import struct
import unittest

import numpy as np

import attnlab
from support import GPT2_TINY, LLAMA_GQA, REFERENCE, cli, reference

TEXT = 'Mary gave roses to Susan, and she smiled.'
BERT_TINY = os.path.join(REFERENCE, 'models', 'bert_tiny')
DISTILBERT = os.path.join(REFERENCE, 'models', 'distilbert_mlm')
MODELS = (GPT2_TINY, LLAMA_GQA, 'builtin:induction', DISTILBERT)  # GPT-2, a decoder, a tiny model, a masked LM
# attnlab patch resumes each patched run from the layer patched, in products of other shapes than a full pass: the
# logits agree to float rounding (~1e-6), which the normalisation by clean − corrupt enlarges.
PATCH_TOLERANCE = 5e-5
PATCHING = reference('predict_reference.json')['cases'][0]['patching']
CLEAN, CORRUPT, TARGET, VERSUS = PATCHING['clean'], PATCHING['corrupt'], PATCHING['target'], PATCHING['versus']


def zero_head(head):
    def hook(z, hook):
        z[:, :, head, :] = 0.0  # in place: written back after the call
    return hook


def read_safetensors(path):
    """{name: float64 array} of a float32 safetensors file (8-byte header size, JSON header, raw data)."""
    with open(path, 'rb') as f:
        size = struct.unpack('<Q', f.read(8))[0]
        header = json.loads(f.read(size))
        data = f.read()
    out = {}
    for name, info in header.items():
        if name == '__metadata__':
            continue
        assert info['dtype'] == 'F32', info['dtype']
        begin, end = info['data_offsets']
        out[name] = np.frombuffer(data[begin:end], dtype='<f4').reshape(info['shape']).astype(np.float64)
    return out


def layer_norm(x, g, b, eps=1e-5):
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    return (x - mu) / np.sqrt(var + eps) * g + b


def gpt2_block(w, l, x, heads):
    """GPT-2 block l on x [n, d] in float64, from transformers' modeling_gpt2 (Conv1D weights [in, out])."""
    p = f'h.{l}.' if f'h.{l}.ln_1.weight' in w else f'transformer.h.{l}.'
    n, d = x.shape
    dh = d // heads
    qkv = layer_norm(x, w[p + 'ln_1.weight'], w[p + 'ln_1.bias']) @ w[p + 'attn.c_attn.weight'] + w[p + 'attn.c_attn.bias']
    q, k, v = qkv[:, :d], qkv[:, d:2 * d], qkv[:, 2 * d:]
    z = np.zeros((n, d))
    for h in range(heads):
        c = slice(h * dh, (h + 1) * dh)
        s = q[:, c] @ k[:, c].T / np.sqrt(dh)
        s[np.triu_indices(n, 1)] = -np.inf
        a = np.exp(s - s.max(1, keepdims=True))
        a /= a.sum(1, keepdims=True)
        z[:, c] = a @ v[:, c]
    mid = x + z @ w[p + 'attn.c_proj.weight'] + w[p + 'attn.c_proj.bias']
    hidden = layer_norm(mid, w[p + 'ln_2.weight'], w[p + 'ln_2.bias']) @ w[p + 'mlp.c_fc.weight'] + w[p + 'mlp.c_fc.bias']
    hidden = 0.5 * hidden * (1 + np.tanh(np.sqrt(2 / np.pi) * (hidden + 0.044715 * hidden ** 3)))
    return mid + hidden @ w[p + 'mlp.c_proj.weight'] + w[p + 'mlp.c_proj.bias']


class HooksChangeTheRun(unittest.TestCase):

    def test_zeroing_one_heads_z_is_the_programs_zero_ablation(self):
        for folder in MODELS:
            with self.subTest(model=folder):
                model = attnlab.load(folder)
                layer, head = model.cfg.n_layers - 1, 1
                logits = model.run_with_hooks(TEXT, fwd_hooks=[(f'blocks.{layer}.attn.hook_z', zero_head(head))])
                n = logits.shape[1]
                for pos in (n - 1, 2):
                    want = attnlab.predict(model, TEXT, position=pos, top=20, ablate=[(layer, head)])
                    np.testing.assert_allclose(logits[0, pos, want['ids']], want['logits'], rtol=1e-6, atol=1e-6)
                # And it does change the run: the plain logits differ.
                plain, _ = model.run_with_cache(TEXT)
                self.assertGreater(np.abs(plain - logits).max(), 1e-3)
        # The command line's zero ablation, for the tiny GPT-2.
        model = attnlab.load(GPT2_TINY)
        logits = model.run_with_hooks(TEXT, fwd_hooks=[('blocks.1.attn.hook_z', zero_head(2))])
        want = cli('predict', '--model', GPT2_TINY, '--sentence', TEXT, '--top', '10', '--ablate', '1.2')
        np.testing.assert_allclose(logits[0, want['position'], [t['id'] for t in want['top']]],
                                   [t['logit'] for t in want['top']], rtol=1e-6, atol=1e-6)

    def test_identity_hooks_give_run_with_caches_logits(self):
        for folder in MODELS:
            with self.subTest(model=folder):
                model = attnlab.load(folder)
                want, _ = model.run_with_cache(TEXT)
                seen = []

                def same(x, hook):
                    seen.append(hook.name)
                    return x

                got = model.run_with_hooks(TEXT, fwd_hooks=[(lambda name: True, same)])
                np.testing.assert_array_equal(got, want)
                # Every site, once (the induction model's layers are attention only: no hook_mlp_out).
                expected = [n for n in model.hook_names if folder != 'builtin:induction' or 'mlp' not in n]
                self.assertEqual(sorted(seen), sorted(expected))
                if folder == 'builtin:induction':
                    with self.assertRaisesRegex(KeyError, 'no MLP'):
                        model.run_with_hooks(TEXT, fwd_hooks=[('blocks.0.hook_mlp_out', same)])

    def test_reading_hooks_see_run_with_caches_activations(self):
        for folder in MODELS + (BERT_TINY, 'builtin'):
            with self.subTest(model=folder):
                model = attnlab.load(folder)
                _, cache = model.run_with_cache(TEXT)
                seen = {}
                names = [n for n in cache.keys() if n in model.hook_names]
                model.run_with_hooks(TEXT, fwd_hooks=[(n, lambda x, hook: seen.update({hook.name: x.copy()}))
                                                      for n in names])
                self.assertEqual(sorted(seen), sorted(names))
                for name in names:
                    np.testing.assert_allclose(seen[name], cache[name], rtol=1e-6, atol=1e-6, err_msg=name)

    def test_the_builtin_model_runs_hooks(self):
        model = attnlab.load('builtin')  # words, no vocabulary: no logits
        last = f'blocks.{model.cfg.n_layers - 1}.hook_resid_post'
        seen = {}
        keep = lambda name: (lambda x, hook: seen.update({name: x.copy()}))
        self.assertIsNone(model.run_with_hooks(TEXT, fwd_hooks=[(lambda name: True, lambda x, hook: x),
                                                                (last, keep('same'))]))
        _, cache = model.run_with_cache(TEXT)
        np.testing.assert_array_equal(seen['same'], cache[last])
        model.run_with_hooks(TEXT, fwd_hooks=[('blocks.0.attn.hook_z', zero_head(0)), (last, keep('ablated'))])
        self.assertGreater(np.abs(seen['ablated'] - cache[last]).max(), 1e-4)

    def test_patching_through_hooks_equals_attnlab_patch(self):
        model = attnlab.load(GPT2_TINY)
        clean, corrupt, t, v = CLEAN, CORRUPT, TARGET, VERSUS
        want = attnlab.patch(model, clean, corrupt, t, v)
        cli_want = cli('patch', '--model', GPT2_TINY, '--clean', clean, '--corrupt', corrupt, '--target', str(t),
                       '--versus', str(v))
        _, cache = model.run_with_cache(clean)
        diff = lambda logits: float(logits[0, -1, t]) - float(logits[0, -1, v])
        clean_diff, corrupt_diff = diff(model.run_with_hooks(clean)), diff(model.run_with_hooks(corrupt))
        self.assertAlmostEqual(clean_diff, want['clean_diff'], places=5)
        self.assertAlmostEqual(corrupt_diff, want['corrupt_diff'], places=5)
        effect = lambda logits: (diff(logits) - corrupt_diff) / (clean_diff - corrupt_diff)
        cfg = model.cfg
        for layer in range(cfg.n_layers):
            for head in range(cfg.n_heads):
                clean_z = np.array(cache[f'blocks.{layer}.attn.hook_z'][:, :, head, :])

                def patch_head(z, hook, head=head, clean_z=clean_z):
                    z[:, :, head, :] = clean_z
                got = effect(model.run_with_hooks(corrupt, fwd_hooks=[(f'blocks.{layer}.attn.hook_z', patch_head)]))
                self.assertAlmostEqual(got, want['heads'][layer, head], delta=PATCH_TOLERANCE)
                self.assertAlmostEqual(got, cli_want['heads'][layer][head], delta=PATCH_TOLERANCE)
        n = cache['blocks.0.hook_resid_pre'].shape[1]
        for layer in range(cfg.n_layers + 1):  # the last row: the stream after the last layer
            name = f'blocks.{layer}.hook_resid_pre' if layer < cfg.n_layers else f'blocks.{layer - 1}.hook_resid_post'
            clean_x = np.array(cache[name])
            for pos in range(n):
                def patch_row(x, hook, pos=pos, clean_x=clean_x):
                    out = x.copy()
                    out[:, pos] = clean_x[:, pos]
                    return out  # a returned array replaces the activation
                got = effect(model.run_with_hooks(corrupt, fwd_hooks=[(name, patch_row)]))
                self.assertAlmostEqual(got, want['resid'][layer, pos], delta=PATCH_TOLERANCE)
                self.assertAlmostEqual(got, cli_want['resid'][layer][pos], delta=PATCH_TOLERANCE)

    def test_steering_a_stream_runs_on_as_numpy_says(self):
        model = attnlab.load(GPT2_TINY)
        w = read_safetensors(os.path.join(GPT2_TINY, 'model.safetensors'))
        _, cache = model.run_with_cache(TEXT)
        rng = np.random.default_rng(7)
        steer = rng.standard_normal(model.cfg.d_model).astype(np.float32) * 2
        seen = {}
        logits = model.run_with_hooks(TEXT, fwd_hooks=[
            ('blocks.0.hook_resid_post', lambda x, hook: x + steer),
            ('blocks.1.hook_resid_pre', lambda x, hook: seen.update(pre=x.copy())),
            ('blocks.1.hook_resid_post', lambda x, hook: seen.update(post=x.copy()))])
        steered = np.array(cache['blocks.0.hook_resid_post'][0], dtype=np.float64) + steer
        np.testing.assert_allclose(seen['pre'][0], steered, rtol=1e-6, atol=1e-6)
        post = gpt2_block(w, 1, steered, model.cfg.n_heads)  # layer 1 in float64 from the weights
        np.testing.assert_allclose(seen['post'][0], post, rtol=1e-4, atol=1e-4)
        # The unembedding of the steered run: ln_f, then the tied W_E.
        lnf = 'ln_f.' if 'ln_f.weight' in w else 'transformer.ln_f.'
        wte = w['wte.weight'] if 'wte.weight' in w else w['transformer.wte.weight']
        want = layer_norm(post, w[lnf + 'weight'], w[lnf + 'bias']) @ wte.T
        np.testing.assert_allclose(logits[0], want, rtol=1e-4, atol=1e-4)
        self.assertGreater(np.abs(logits - model.run_with_hooks(TEXT)).max(), 1e-2)  # the steering changed them

    def test_pattern_and_scores_hooks(self):
        model = attnlab.load(GPT2_TINY)
        _, cache = model.run_with_cache(TEXT)

        # A pattern made uniform over the visible keys for head 0 of layer 1: z is then the mean of the visible v rows.
        def uniform(p, hook):
            n = p.shape[-1]
            p[:, 0] = np.tril(np.ones((n, n), dtype=np.float32)) / np.arange(1, n + 1, dtype=np.float32)[:, None]
        seen = {}
        model.run_with_hooks(TEXT, fwd_hooks=[('blocks.1.attn.hook_pattern', uniform),
                                              ('blocks.1.attn.hook_z', lambda z, hook: seen.update(z=z.copy()))])
        v = np.array(cache['blocks.1.attn.hook_v'][0, :, 0, :], dtype=np.float64)
        want = np.cumsum(v, axis=0) / np.arange(1, v.shape[0] + 1)[:, None]
        np.testing.assert_allclose(seen['z'][0, :, 0, :], want, rtol=1e-5, atol=1e-6)
        # Scores: a key's score set to -inf takes it out of the softmax.
        def hide_first_key(s, hook):
            s[:, :, 1:, 0] = -np.inf
        model.run_with_hooks(TEXT, fwd_hooks=[('blocks.0.attn.hook_attn_scores', hide_first_key),
                                              ('blocks.0.attn.hook_pattern', lambda p, hook: seen.update(p=p.copy()))])
        s = np.array(cache['blocks.0.attn.hook_attn_scores'][0], dtype=np.float64)
        s[:, 1:, 0] = -np.inf
        a = np.exp(s - s.max(-1, keepdims=True))
        a /= a.sum(-1, keepdims=True)
        np.testing.assert_allclose(seen['p'][0], a, rtol=1e-5, atol=1e-6)

    def test_a_batch_runs_each_text_with_the_hooks(self):
        model = attnlab.load(GPT2_TINY)
        ids = model.to_tokens(TEXT)[0]
        texts = np.stack([ids[:8], ids[2:10]])  # two texts of 8 tokens
        got = model.run_with_hooks(texts, fwd_hooks=[('blocks.0.attn.hook_z', zero_head(3))])
        self.assertEqual(got.shape[:2], (2, 8))
        for b, text in enumerate(texts):
            one = model.run_with_hooks(text, fwd_hooks=[('blocks.0.attn.hook_z', zero_head(3))])
            # The batch's logits are one product over both texts' rows: equal to float rounding.
            np.testing.assert_allclose(got[b], one[0], rtol=1e-5, atol=1e-5)


class PatchAndAblationFields(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.model = attnlab.load(GPT2_TINY)

    def test_patch_has_the_clis_fields(self):
        for clean, corrupt in ((CLEAN, CORRUPT), (CLEAN, CLEAN)):  # the same texts: refused by both
            for extra in ([], ['--map', 'heads'], ['--ablate', '0.1', '--ablate-mode', 'mean']):
                with self.subTest(corrupt=corrupt, extra=extra):
                    args = dict(zip([e.lstrip('-').replace('-', '_') for e in extra[::2]], extra[1::2]))
                    try:
                        want = cli('patch', '--model', GPT2_TINY, '--clean', clean, '--corrupt', corrupt, '--target',
                                   str(TARGET), '--versus', str(VERSUS), *extra)
                    except Exception:  # the CLI refuses: Python must refuse too
                        with self.assertRaises(ValueError):
                            attnlab.patch(self.model, clean, corrupt, TARGET, VERSUS, **args)
                        continue
                    got = attnlab.patch(self.model, clean, corrupt, TARGET, VERSUS, **args)
                    for key in ('map', 'first_difference', 'runs', 'skipped', 'warning', 'ablate', 'ablate_mode'):
                        self.assertEqual(got.get(key), want.get(key), key)
                    for key in ('heads', 'resid'):
                        self.assertEqual(key in got, key in want, key)
                        if key in want:
                            np.testing.assert_allclose(got[key], np.array(want[key], dtype=float), rtol=1e-9,
                                                       atol=1e-12)

    def test_ablate_modes_are_the_clis_words(self):
        with self.assertRaisesRegex(ValueError, 'zero, mean or resample'):
            attnlab.predict(self.model, TEXT, ablate='0.1', ablate_mode='meen')
        with self.assertRaisesRegex(ValueError, 'resample_text'):
            attnlab.predict(self.model, TEXT, ablate='0.1', ablate_mode='resample')
        other = 'Peter sold apples to John at the market, and he left today.'
        got = attnlab.predict(self.model, TEXT, top=5, ablate='0.1,1.3', ablate_mode='resample', resample_text=other)
        want = cli('predict', '--model', GPT2_TINY, '--sentence', TEXT, '--top', '5', '--ablate', '0.1,1.3',
                   '--ablate-mode', 'resample', '--resample-text', other)
        self.assertEqual(got['ids'].tolist(), [t['id'] for t in want['top']])
        np.testing.assert_allclose(got['logits'], [t['logit'] for t in want['top']], rtol=1e-9)
        plain = attnlab.predict(self.model, TEXT, top=5)
        self.assertGreater(np.abs(got['logits'] - plain['logits']).max(), 1e-4)  # the resample did something
        pg = attnlab.patch(self.model, CLEAN, CORRUPT, TARGET, VERSUS, ablate='1.0', ablate_mode='resample',
                           resample_text=other)
        pw = cli('patch', '--model', GPT2_TINY, '--clean', CLEAN, '--corrupt', CORRUPT, '--target', str(TARGET),
                 '--versus', str(VERSUS), '--ablate', '1.0', '--ablate-mode', 'resample', '--resample-text', other)
        self.assertEqual(pg['ablate_mode'], 'resample')
        np.testing.assert_allclose(pg['heads'], np.array(pw['heads'], dtype=float), rtol=1e-9, atol=1e-12)


if __name__ == '__main__':
    unittest.main()
