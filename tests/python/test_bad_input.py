"""Bad input raises a clear Python exception with the program's message, never a crash of the interpreter."""
import unittest

import numpy as np

import attnlab
from support import GPT2_TINY


class BadInput(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.model = attnlab.load(GPT2_TINY)

    def test_unknown_hook_names_the_near_ones(self):
        _, cache = self.model.run_with_cache('the cat')
        with self.assertRaises(KeyError) as e:
            cache['blocks.0.attn.hook_patern']
        self.assertIn('blocks.0.attn.hook_pattern', str(e.exception))
        with self.assertRaises(KeyError) as e:
            self.model.run_with_cache('the cat', names_filter=['blocks.7.hook_resid_post'])
        self.assertIn('blocks.1.hook_resid_post', str(e.exception))

    def test_a_text_too_long(self):
        with self.assertRaisesRegex(ValueError, '48'):  # the tiny GPT-2 takes 48 positions
            self.model.run_with_cache('the cat walks on the street ' * 20)
        with self.assertRaisesRegex(ValueError, '48'):
            attnlab.predict(self.model, list(range(60)))

    def test_bad_tokens(self):
        with self.assertRaisesRegex(ValueError, 'outside the vocabulary'):
            self.model.run_with_cache([1, 2, 377])
        with self.assertRaisesRegex(ValueError, 'outside the vocabulary'):
            self.model.run_with_cache(np.array([[1, -2]]))
        with self.assertRaisesRegex(ValueError, 'expected a text'):
            self.model.run_with_cache(3.5)
        with self.assertRaisesRegex(ValueError, 'same length'):
            self.model.run_with_cache(['the cat', 'the cat walks on the street'])
        with self.assertRaisesRegex(ValueError, 'no tokens'):
            self.model.run_with_cache('')
        with self.assertRaisesRegex(ValueError, 'return_type'):
            self.model.run_with_cache('the cat', return_type='loss')

    def test_bad_models_and_settings(self):
        with self.assertRaises(ValueError):
            attnlab.load('/nonexistent/model/folder')
        with self.assertRaisesRegex(ValueError, 'builtin:induction'):
            attnlab.load('builtin:nonexistent')
        builtin = attnlab.load('builtin')
        with self.assertRaisesRegex(ValueError, 'no token ids'):
            builtin.to_tokens('the cat')
        with self.assertRaisesRegex(ValueError, 'vocabulary'):
            attnlab.predict(builtin, 'the cat')
        with self.assertRaisesRegex(ValueError, 'does not exist'):
            attnlab.spectrum(self.model, 'the cat', layer=5, head=0)
        with self.assertRaisesRegex(ValueError, 'no setting'):
            attnlab.collapse(depht=4)
        with self.assertRaisesRegex(ValueError, 'same'):
            attnlab.patch(self.model, 'the cat', 'the cat walks', 1, 2)
        with self.assertRaisesRegex(ValueError, 'ablate'):
            attnlab.predict(self.model, 'the cat', ablate='zero')
        # After all of these the interpreter and the model still work.
        logits, _ = self.model.run_with_cache('the cat')
        self.assertTrue(np.all(np.isfinite(logits)))


    def test_bad_hooks(self):
        want, _ = self.model.run_with_cache('the cat sat')
        # An unknown name: KeyError naming the valid ones near it.
        with self.assertRaises(KeyError) as e:
            self.model.run_with_hooks('the cat', fwd_hooks=[('blocks.0.attn.hook_zz', lambda x, hook: None)])
        self.assertIn('blocks.0.attn.hook_z', str(e.exception))
        with self.assertRaises(KeyError) as e:
            self.model.run_with_hooks('the cat', fwd_hooks=[('blocks.2.hook_resid_post', lambda x, hook: None)])
        self.assertIn('blocks.1.hook_resid_post', str(e.exception))
        with self.assertRaisesRegex(ValueError, 'pair'):
            self.model.run_with_hooks('the cat', fwd_hooks=['blocks.0.attn.hook_z'])
        with self.assertRaisesRegex(ValueError, 'not callable'):
            self.model.run_with_hooks('the cat', fwd_hooks=[('blocks.0.attn.hook_z', 3)])
        # A wrong shape, a wrong dtype, not an array: the hook named, the expected shape given.
        n = self.model.to_tokens('the cat sat').shape[1]
        with self.assertRaisesRegex(ValueError, rf"hook 'blocks.0.attn.hook_z' returned shape \(1, {n}, 4\).*float32"
                                                rf".*\(1, {n}, 4, 8\)"):
            self.model.run_with_hooks('the cat sat', fwd_hooks=[('blocks.0.attn.hook_z', lambda z, hook: z[..., 0])])
        with self.assertRaisesRegex(TypeError, "hook 'blocks.1.hook_resid_mid' returned dtype float64"):
            self.model.run_with_hooks('the cat sat',
                                      fwd_hooks=[('blocks.1.hook_resid_mid', lambda x, hook: x.astype(np.float64))])
        with self.assertRaisesRegex(TypeError, "hook 'blocks.0.attn.hook_pattern' returned list"):
            self.model.run_with_hooks('the cat sat', fwd_hooks=[('blocks.0.attn.hook_pattern', lambda x, hook: [1])])
        # A Python exception inside a hook: raised again with the hook's name, the original as its cause.
        def broken(x, hook):
            raise ZeroDivisionError('my metric divided by zero')
        with self.assertRaisesRegex(ZeroDivisionError, "hook 'blocks.1.attn.hook_q': my metric divided by zero") as e:
            self.model.run_with_hooks('the cat sat', fwd_hooks=[('blocks.1.attn.hook_q', broken)])
        self.assertIsInstance(e.exception.__cause__, ZeroDivisionError)
        class Odd(Exception):  # an exception type that takes no message: the original, with a note
            def __init__(self):
                super().__init__()
        with self.assertRaises(Odd) as e:
            self.model.run_with_hooks('the cat sat', fwd_hooks=[('ln_final.hook_normalized',
                                                                 lambda x, hook: (_ for _ in ()).throw(Odd()))])
        self.assertIn("in hook 'ln_final.hook_normalized'", e.exception.__notes__)
        # A text too long, with hooks.
        with self.assertRaisesRegex(ValueError, '48'):
            self.model.run_with_hooks('the cat walks on the street ' * 20,
                                      fwd_hooks=[('blocks.0.attn.hook_z', lambda z, hook: z)])
        # After all of these the model gives the right numbers.
        got = self.model.run_with_hooks('the cat sat', fwd_hooks=[('blocks.0.attn.hook_z', lambda z, hook: z)])
        np.testing.assert_array_equal(got, want)
        got, _ = self.model.run_with_cache('the cat sat')
        np.testing.assert_array_equal(got, want)

if __name__ == '__main__':
    unittest.main()
