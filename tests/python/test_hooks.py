"""run_with_cache: every hook site against the float64 references of tests/reference/ and the CLI's dump, the views
without copies, batches, and the tokenizer."""
import gc
import unittest

import numpy as np

import attnlab
from support import GPT2_TINY, LLAMA_GQA, cli_dump_npy, reference


class GPT2HooksAgainstReference(unittest.TestCase):
    """The tiny GPT-2 (2 layers × 4 heads, d 32) against make_hf_reference.py's float64 forward pass."""

    @classmethod
    def setUpClass(cls):
        cls.model = attnlab.load(GPT2_TINY)
        cls.ref = reference('models/gpt2_tiny/reference.json')

    def test_config_has_the_sizes(self):
        cfg = self.model.cfg
        self.assertEqual((cfg.n_layers, cfg.n_heads, cfg.d_model, cfg.d_head, cfg.n_ctx, cfg.d_vocab),
                         (2, 4, 32, 8, 48, 377))
        self.assertEqual(cfg.kind, 'gpt2')

    def test_tokens_as_the_program_tokenizes(self):
        for s in self.ref['sentences']:
            ids = self.model.to_tokens(s['text'])
            self.assertEqual(ids.shape, (1, len(s['ids'])))
            self.assertEqual(ids.dtype, np.int64)
            self.assertEqual(ids[0].tolist(), s['ids'])  # GPT-2 adds no BOS (unlike TransformerLens)
            self.assertEqual(self.model.tokenizer.encode(s['text']), s['ids'])
            pieces = [self.model.tokenizer.piece(i) for i in s['ids']]
            self.assertEqual(pieces, s['tokens'])
            self.assertEqual(self.model.tokenizer.decode(s['ids']), s['text'])
            # The display strings of a text and of its ids agree.
            self.assertEqual(self.model.to_str_tokens(s['text']), self.model.to_str_tokens(s['ids']))
            self.assertEqual(''.join(self.model.to_str_tokens(s['text'])), s['text'])
            self.assertEqual(self.model.to_str_tokens(s['text'])[1], s['tokens'][1].replace('Ġ', ' '))

    def check_sentence(self, s, cache, b=0):
        tol = dict(rtol=2e-4, atol=2e-5)
        n = len(s['ids'])
        emb = np.array(s['embeddings'])
        np.testing.assert_allclose(cache['blocks.0.hook_resid_pre'][b], emb, **tol)
        np.testing.assert_allclose(cache['hook_embed'][b] + cache['hook_pos_embed'][b], emb, **tol)
        for l, layer in enumerate(s['layers']):
            p = f'blocks.{l}.'
            for h, head in enumerate(layer['heads']):
                np.testing.assert_allclose(cache[p + 'attn.hook_q'][b, :, h], head['q'], **tol)
                np.testing.assert_allclose(cache[p + 'attn.hook_k'][b, :, h], head['k'], **tol)
                np.testing.assert_allclose(cache[p + 'attn.hook_v'][b, :, h], head['v'], **tol)
                np.testing.assert_allclose(cache[p + 'attn.hook_pattern'][b, h], head['attention'], **tol)
                np.testing.assert_allclose(cache[p + 'attn.hook_z'][b, :, h], head['output'], **tol)
                # Scores masked as TransformerLens masks them: -inf above the diagonal, the reference below.
                scores = cache[p + 'attn.hook_attn_scores'][b, h]
                upper = np.triu(np.ones((n, n), bool), 1)
                self.assertTrue(np.all(np.isneginf(scores[upper])))
                np.testing.assert_allclose(scores[~upper], np.array(head['scores'])[~upper], **tol)
            np.testing.assert_allclose(cache[p + 'attn.hook_z'][b].reshape(n, -1), layer['concat'], **tol)
            np.testing.assert_allclose(cache[p + 'hook_attn_out'][b], layer['attention_out'], **tol)
            np.testing.assert_allclose(cache[p + 'hook_mlp_out'][b], layer['mlp_out'], **tol)
            np.testing.assert_allclose(cache[p + 'hook_resid_post'][b], layer['residual_out'], **tol)
            before = emb if l == 0 else np.array(s['layers'][l - 1]['residual_out'])
            np.testing.assert_allclose(cache[p + 'hook_resid_mid'][b], before + np.array(layer['attention_out']),
                                       **tol)
        # ln_final.hook_normalized: (x - mean) / sqrt(var + eps) of the final stream, in float64 here.
        x = np.array(s['layers'][-1]['residual_out'])
        centred = x - x.mean(axis=1, keepdims=True)
        normalized = centred / np.sqrt((centred ** 2).mean(axis=1, keepdims=True) + 1e-5)
        np.testing.assert_allclose(cache['ln_final.hook_normalized'][b], normalized, rtol=1e-4, atol=1e-4)

    def test_every_hook_site_matches_the_float64_reference(self):
        for s in self.ref['sentences']:
            with self.subTest(text=s['text']):
                logits, cache = self.model.run_with_cache(s['ids'])
                self.assertEqual(logits.shape, (1, len(s['ids']), 377))
                self.check_sentence(s, cache)

    def test_text_and_ids_give_the_same_run(self):
        s = self.ref['sentences'][1]
        logits_text, cache_text = self.model.run_with_cache(s['text'])
        logits_ids, cache_ids = self.model.run_with_cache(np.array(s['ids']))
        np.testing.assert_array_equal(logits_text, logits_ids)
        for name in cache_text.keys():
            np.testing.assert_array_equal(cache_text[name], cache_ids[name])

    def test_logits_match_the_prediction_reference(self):
        case = reference('predict_reference.json')['cases'][0]
        self.assertEqual(case['model'], 'models/gpt2_tiny')
        self.assertEqual(self.model.to_tokens(case['text'])[0].tolist(), case['token_ids'])
        logits, _ = self.model.run_with_cache(case['text'], names_filter=[])
        np.testing.assert_allclose(logits[0, -1], case['logits'], rtol=1e-4, atol=1e-4)

    def test_a_batch_is_the_texts_run_one_by_one(self):
        a = self.model.to_tokens('the cat walks on the street')[0]
        b = a[::-1].copy()  # the same length, other tokens
        logits, cache = self.model.run_with_cache(np.stack([a, b]))
        self.assertEqual(logits.shape, (2, len(a), 377))
        self.assertEqual(self.model.to_tokens(['the cat', 'the cat']).shape, (2, 2))
        for i, text in enumerate((a, b)):
            one_logits, one = self.model.run_with_cache(text)
            np.testing.assert_allclose(logits[i], one_logits[0], rtol=1e-5, atol=1e-5)
            for name in one.keys():
                np.testing.assert_allclose(cache[name][i], one[name][0], rtol=1e-5, atol=1e-6, err_msg=name)
        ref = self.ref['sentences'][0]
        _, cache = self.model.run_with_cache([ref['ids'], ref['ids']])
        self.check_sentence(ref, cache, b=1)


class HooksAgainstTheCliDump(unittest.TestCase):
    """Every matrix of `attnlab dump --npy` equals the cache's (the same code, bit for bit or to float rounding)."""

    def compare(self, model_dir, sentence):
        model = attnlab.load(model_dir)
        index, arrays = cli_dump_npy(model_dir, sentence)
        _, cache = model.run_with_cache(sentence)
        self.assertEqual(model.to_tokens(sentence)[0].tolist(), index['token_ids'])
        self.assertEqual(len(model.to_str_tokens(sentence)), len(index['tokens']))
        exact = dict(rtol=1e-6, atol=1e-7)
        np.testing.assert_allclose(cache['blocks.0.hook_resid_pre'][0], arrays['embeddings.npy'], **exact)
        kv_group = model.cfg.n_heads // model.cfg.n_key_value_heads
        for l, layer in enumerate(index['layers']):
            p = f'blocks.{l}.'
            get = lambda entry: arrays[entry['npy']]
            for h, head in enumerate(layer['heads']):
                np.testing.assert_allclose(cache[p + 'attn.hook_q'][0, :, h], get(head['q']), **exact)
                np.testing.assert_allclose(cache[p + 'attn.hook_k'][0, :, h // kv_group], get(head['k']), **exact)
                np.testing.assert_allclose(cache[p + 'attn.hook_v'][0, :, h // kv_group], get(head['v']), **exact)
                np.testing.assert_allclose(cache[p + 'attn.hook_pattern'][0, h], get(head['attention']), **exact)
                scores = cache[p + 'attn.hook_attn_scores'][0, h]
                visible = np.isfinite(scores)
                np.testing.assert_allclose(scores[visible], get(head['scores'])[visible], **exact)
                self.assertTrue(np.all(get(head['attention'])[~visible] == 0))
                np.testing.assert_allclose(cache[p + 'attn.hook_z'][0, :, h], get(head['output']), **exact)
            np.testing.assert_allclose(cache[p + 'hook_attn_out'][0], get(layer['attention_out']), **exact)
            if 'mlp_out' in layer:
                np.testing.assert_allclose(cache[p + 'hook_mlp_out'][0], get(layer['mlp_out']), **exact)
            np.testing.assert_allclose(cache[p + 'hook_resid_post'][0], get(layer['residual_out']), **exact)
        return model, cache

    def test_gpt2(self):
        self.compare(GPT2_TINY, 'Mary gave roses to Susan, and she smiled.')

    def test_grouped_query_llama(self):
        model, cache = self.compare(LLAMA_GQA, 'The cat sat on the mat.')
        cfg = model.cfg
        self.assertLess(cfg.n_key_value_heads, cfg.n_heads)
        n = cache['blocks.0.hook_resid_pre'].shape[1]
        self.assertEqual(cache['blocks.0.attn.hook_k'].shape, (1, n, cfg.n_key_value_heads, cfg.d_head))
        self.assertEqual(cache['blocks.0.attn.hook_q'].shape, (1, n, cfg.n_heads, cfg.d_head))
        self.assertNotIn('hook_pos_embed', cache)  # rotary positions: no position vector

    def test_induction_model_without_mlp(self):
        model, cache = self.compare('builtin:induction', 'a b c d a b c')
        self.assertFalse(any('mlp' in name for name in cache.keys()))
        np.testing.assert_allclose(cache['hook_embed'][0] + cache['hook_pos_embed'][0],
                                   cache['blocks.0.hook_resid_pre'][0], rtol=1e-6, atol=1e-6)


class ViewsWithoutCopies(unittest.TestCase):
    """The streams, z and the logits of one text are views of the trace, alive as long as an array is."""

    @classmethod
    def setUpClass(cls):
        cls.model = attnlab.load(GPT2_TINY)

    def test_streams_and_z_are_views(self):
        logits, cache = self.model.run_with_cache('the cat walks on the street')
        n, d, H, dh = 7, 32, 4, 8
        resid = cache['blocks.0.hook_resid_post']
        self.assertEqual(resid.shape, (1, n, d))
        self.assertEqual(resid.strides, (4 * n * d, 4, 4 * n))  # column-major [n, d], as the trace keeps it
        self.assertFalse(resid.flags.owndata)
        self.assertIsNotNone(resid.base)
        self.assertFalse(resid.flags.writeable)
        # Layer 1 reads layer 0's output: the same memory, not a copy of it.
        self.assertTrue(np.shares_memory(resid, cache['blocks.1.hook_resid_pre']))
        z = cache['blocks.1.attn.hook_z']
        self.assertEqual(z.shape, (1, n, H, dh))
        self.assertEqual(z.strides, (4 * n * H * dh, 4, 4 * n * dh, 4 * n))
        self.assertFalse(z.flags.owndata)
        self.assertEqual(logits.strides, (4 * n, 4, 4 * n))
        self.assertFalse(logits.flags.owndata)
        self.assertIs(cache['blocks.1.attn.hook_z'], z)  # kept, not made again

    def test_arrays_outlive_the_cache(self):
        _, cache = self.model.run_with_cache('the cat walks on the street')
        resid = cache['blocks.1.hook_resid_post']
        expected = np.array(resid)
        del cache
        gc.collect()
        self.model.run_with_cache('a different text that reuses the freed memory, if any was freed')
        np.testing.assert_array_equal(resid, expected)

    def test_maps_recomputed_when_read(self):
        # A trace that keeps no maps (as a long input's): patterns, scores and outputs are made when read, equal to
        # the kept ones.
        text = 'Mary gave roses to Susan, and she smiled.'
        logits, kept = self.model.run_with_cache(text)
        logits_tiled, tiled = self.model.run_with_cache(text, maps='never')
        np.testing.assert_allclose(logits_tiled, logits, rtol=1e-5, atol=1e-5)
        for name in kept.keys():
            np.testing.assert_allclose(tiled[name], kept[name], rtol=1e-5, atol=1e-6, err_msg=name)
        with self.assertRaisesRegex(ValueError, 'maps'):
            self.model.run_with_cache(text, maps='sometimes')

    def test_names_filter(self):
        _, cache = self.model.run_with_cache('the cat', names_filter=lambda name: name.endswith('hook_pattern'))
        self.assertEqual(cache.keys(), ['blocks.0.attn.hook_pattern', 'blocks.1.attn.hook_pattern'])
        _, cache = self.model.run_with_cache('the cat', names_filter='blocks.1.hook_resid_post')
        self.assertEqual(list(cache), ['blocks.1.hook_resid_post'])
        with self.assertRaises(KeyError):
            cache['blocks.0.hook_resid_post']
        self.assertIn('blocks.0.hook_resid_post', cache.all_hook_names)


if __name__ == '__main__':
    unittest.main()
