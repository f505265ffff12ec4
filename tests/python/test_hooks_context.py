"""model.hooks(...) (issue 34), TransformerLens's context manager: inside the block run_with_cache, run_with_hooks and
forward run its hooks; the cache holds the hooked run (a hooked site as its hooks left it, every later activation as
computed from it — what hooks that read see in run_with_hooks); leaving the block, even by an exception, removes
them (the next run equals a plain one bit for bit)."""
import unittest

import numpy as np

import attnlab
from support import GPT2_TINY, LLAMA_GQA, cli

TEXT = 'Mary gave roses to Susan, and she smiled.'


def zero_head(head):
    def hook(z, hook):
        z[:, :, head, :] = 0.0  # in place: written back after the call
    return hook


def plain_run(model):
    logits, cache = model.run_with_cache(TEXT)
    return np.array(logits), {name: np.array(cache[name]) for name in cache.keys()}


class HooksContext(unittest.TestCase):

    def test_zeroing_a_head_under_hooks_is_run_with_hooks_and_the_programs_ablation(self):
        model = attnlab.load(GPT2_TINY)
        layer, head, z = 1, 2, 'blocks.1.attn.hook_z'
        plain_logits, plain = plain_run(model)
        with model.hooks(fwd_hooks=[(z, zero_head(head))]) as same_model:
            self.assertIs(same_model, model)
            logits, cache = model.run_with_cache(TEXT)
            called = model(TEXT)
            forwarded = model.forward(TEXT)
            hooked_again = model.run_with_hooks(TEXT)
        direct = model.run_with_hooks(TEXT, fwd_hooks=[(z, zero_head(head))])
        for other in (called, forwarded, hooked_again):
            np.testing.assert_array_equal(other, logits)
        np.testing.assert_array_equal(direct, logits)
        # The command line's zero ablation of head 1.2.
        want = cli('predict', '--model', GPT2_TINY, '--sentence', TEXT, '--top', '10', '--ablate', f'{layer}.{head}')
        np.testing.assert_allclose(logits[0, want['position'], [t['id'] for t in want['top']]],
                                   [t['logit'] for t in want['top']], rtol=1e-6, atol=1e-6)
        self.assertGreater(np.abs(plain_logits - logits).max(), 1e-3)
        # The cache: the hooked site as the hook left it, the head zero and the others as in the plain run.
        self.assertTrue((cache[z][0, :, head, :] == 0).all())
        others = [h for h in range(model.cfg.n_heads) if h != head]
        np.testing.assert_array_equal(cache[z][0, :, others, :], plain[z][0, :, others, :])
        # Upstream of the hook nothing changed; downstream the cache holds the changed run.
        for name in cache.keys():
            if name.startswith('blocks.0.') or name in ('hook_embed', 'hook_pos_embed', 'blocks.1.hook_resid_pre'):
                np.testing.assert_array_equal(cache[name], plain[name], err_msg=name)
        for name in ('blocks.1.hook_attn_out', 'blocks.1.hook_resid_mid', 'blocks.1.hook_resid_post',
                     'ln_final.hook_normalized'):
            self.assertGreater(np.abs(cache[name] - plain[name]).max(), 1e-4, name)
        # Every activation of the cache is what a hook that reads sees there in the same hooked run.
        seen = {}
        names = [n for n in cache.keys() if n in model.hook_names]
        model.run_with_hooks(TEXT, fwd_hooks=[(z, zero_head(head))] + [
            (n, lambda x, hook: seen.update({hook.name: x.copy()})) for n in names])
        for name in names:
            np.testing.assert_allclose(cache[name], seen[name], rtol=1e-6, atol=1e-6, err_msg=name)

    def test_the_cache_records_the_value_after_every_hook_at_a_site(self):
        # As TransformerLens's caching hook, added after the user's: the sum of what the hooks return.
        model = attnlab.load(LLAMA_GQA)
        name = 'blocks.0.hook_resid_post'
        _, plain = plain_run(model)
        with model.hooks(fwd_hooks=[(name, lambda x, hook: x * 2), (name, lambda x, hook: x + 1)]):
            _, cache = model.run_with_cache(TEXT, names_filter=[name, 'blocks.1.hook_resid_pre'])
        np.testing.assert_allclose(cache[name], plain[name] * 2 + 1, rtol=1e-6)
        np.testing.assert_array_equal(cache['blocks.1.hook_resid_pre'], cache[name])

    def test_leaving_the_block_removes_the_hooks(self):
        model = attnlab.load(GPT2_TINY)
        plain_logits, plain = plain_run(model)
        with model.hooks(fwd_hooks=[('blocks.0.attn.hook_z', zero_head(0))]):
            model.run_with_cache(TEXT)
        logits, after = plain_run(model)
        np.testing.assert_array_equal(logits, plain_logits)
        for name in plain:
            np.testing.assert_array_equal(after[name], plain[name], err_msg=name)
        np.testing.assert_array_equal(model(TEXT), plain_logits)

    def test_an_exception_inside_the_block_still_removes_the_hooks(self):
        model = attnlab.load(GPT2_TINY)
        plain_logits = np.array(model(TEXT))
        with self.assertRaisesRegex(RuntimeError, 'inside the block'):
            with model.hooks(fwd_hooks=[('blocks.0.attn.hook_z', zero_head(0))]):
                self.assertGreater(np.abs(model(TEXT) - plain_logits).max(), 1e-4)
                raise RuntimeError('inside the block')
        np.testing.assert_array_equal(model(TEXT), plain_logits)
        # A hook's own exception too: raised with its name, and the hooks gone after the block.
        def broken(x, hook):
            raise ValueError('broken hook')
        with self.assertRaisesRegex(ValueError, "hook 'blocks.1.hook_resid_pre': broken hook"):
            with model.hooks(fwd_hooks=[('blocks.1.hook_resid_pre', broken)]):
                model.run_with_cache(TEXT)
        np.testing.assert_array_equal(model(TEXT), plain_logits)

    def test_blocks_nest_and_reset_hooks_end_false_keeps_them(self):
        model = attnlab.load(GPT2_TINY)
        plain_logits = np.array(model(TEXT))
        outer_hook = [('blocks.0.attn.hook_z', zero_head(0))]
        inner_hook = [('blocks.1.attn.hook_z', zero_head(1))]
        outer_only = np.array(model.run_with_hooks(TEXT, fwd_hooks=outer_hook))
        both = np.array(model.run_with_hooks(TEXT, fwd_hooks=outer_hook + inner_hook))
        self.assertGreater(np.abs(outer_only - plain_logits).max(), 1e-4)
        self.assertGreater(np.abs(both - outer_only).max(), 1e-4)
        with model.hooks(fwd_hooks=outer_hook):
            with model.hooks(fwd_hooks=inner_hook):
                np.testing.assert_array_equal(model(TEXT), both)
            np.testing.assert_array_equal(model(TEXT), outer_only)
        np.testing.assert_array_equal(model(TEXT), plain_logits)
        with model.hooks(fwd_hooks=outer_hook, reset_hooks_end=False):
            pass
        np.testing.assert_array_equal(model(TEXT), outer_only)
        model.reset_hooks()
        np.testing.assert_array_equal(model(TEXT), plain_logits)

    def test_bad_hooks_are_refused_when_the_block_is_made(self):
        model = attnlab.load(GPT2_TINY)
        with self.assertRaisesRegex(KeyError, "no hook 'blocks.0.attn.hook_zz'.*blocks.0.attn.hook_z"):
            model.hooks(fwd_hooks=[('blocks.0.attn.hook_zz', zero_head(0))])
        with self.assertRaisesRegex(ValueError, 'not callable'):
            model.hooks(fwd_hooks=[('blocks.0.attn.hook_z', 3)])
        np.testing.assert_array_equal(model(TEXT), model.run_with_hooks(TEXT))


if __name__ == '__main__':
    unittest.main()
