"""The analyses from Python give the same numbers as the command line's JSON (and the float64 references)."""
import unittest

import numpy as np

import attnlab
from support import GPT2_TINY, cli, reference

TEXT = 'Mary gave roses to Susan, and she smiled.'


class AnalysesAgainstTheCli(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.model = attnlab.load(GPT2_TINY)

    def test_predict(self):
        got = attnlab.predict(self.model, TEXT, top=5)
        want = cli('predict', '--model', GPT2_TINY, '--sentence', TEXT, '--top', '5')
        self.assertEqual(got['position'], want['position'])
        self.assertEqual(got['ids'].tolist(), [t['id'] for t in want['top']])
        self.assertEqual(got['tokens'], [t['token'] for t in want['top']])
        np.testing.assert_allclose(got['probs'], [t['prob'] for t in want['top']], rtol=1e-12)
        np.testing.assert_allclose(got['logits'], [t['logit'] for t in want['top']], rtol=1e-12)

    def test_predict_with_ablation(self):
        got = attnlab.predict(self.model, TEXT, top=3, position=2, ablate=[(0, 1), '1.2'], ablate_mode='mean')
        want = cli('predict', '--model', GPT2_TINY, '--sentence', TEXT, '--top', '3', '--position', '2',
                   '--ablate', '0.1,1.2', '--ablate-mode', 'mean')
        self.assertEqual(got['ids'].tolist(), [t['id'] for t in want['top']])
        np.testing.assert_allclose(got['probs'], [t['prob'] for t in want['top']], rtol=1e-12)

    def test_predict_matches_the_float64_reference(self):
        case = reference('predict_reference.json')['cases'][0]
        got = attnlab.predict(self.model, case['text'], top=3)
        probs = np.array(case['probs'])
        self.assertEqual(got['ids'].tolist(), np.argsort(-probs)[:3].tolist())
        np.testing.assert_allclose(got['probs'], np.sort(probs)[::-1][:3], rtol=1e-4)

    def test_attribute_adds_up_and_matches_the_cli(self):
        top = attnlab.predict(self.model, TEXT, top=2)['ids'].tolist()
        target, versus = self.model.tokenizer.piece(top[0]), top[1]  # a vocabulary piece and an id
        got = attnlab.attribute(self.model, TEXT, target=target, versus=versus)
        want = cli('attribute', '--model', GPT2_TINY, '--sentence', TEXT, '--target', target, '--versus', str(versus))
        self.assertEqual(got['target']['id'], top[0])
        self.assertEqual(got['target']['id'], want['target']['id'])
        for g, w in ((got, want), (got['versus'], want['versus'])):
            np.testing.assert_allclose(g['heads'], w['heads'], rtol=1e-12, atol=1e-12)
            np.testing.assert_allclose(g['mlp'], w['mlp'], rtol=1e-12, atol=1e-12)
            self.assertAlmostEqual(g['embeddings'], w['embeddings'], places=10)
            self.assertAlmostEqual(g['bias'], w['bias'], places=10)
            self.assertAlmostEqual(g['logit'], w['logit'], places=10)
            total = g['heads'].sum() + g['mlp'].sum() + g['embeddings'] + g['bias']
            self.assertAlmostEqual(total, g['logit'], places=3)
        self.assertEqual(got['heads'].shape, (2, 4))
        # The logit attributed is the run's own: the last position's logit of the target.
        logits, _ = self.model.run_with_cache(TEXT, names_filter=[])
        self.assertAlmostEqual(got['logit'], float(logits[0, -1, got['target']['id']]), places=4)

    def test_patch_matches_the_cli_and_the_reference(self):
        case = reference('predict_reference.json')['cases'][0]['patching']
        target, versus = str(case['target']), str(case['versus'])
        got = attnlab.patch(self.model, case['clean'], case['corrupt'], int(target), int(versus))
        want = cli('patch', '--model', GPT2_TINY, '--clean', case['clean'], '--corrupt', case['corrupt'],
                   '--target', target, '--versus', versus)
        np.testing.assert_allclose(got['heads'], want['heads'], rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(got['resid'], np.array(want['resid'], dtype=float), rtol=1e-9, atol=1e-12)
        self.assertAlmostEqual(got['clean_diff'], case['clean_diff'], places=3)
        self.assertAlmostEqual(got['corrupt_diff'], case['corrupt_diff'], places=3)
        layer, head = case['head']
        self.assertAlmostEqual(got['heads'][layer, head], case['effect'], places=3)

    def test_head_scores_match_attnlab_heads(self):
        got = attnlab.head_scores(self.model, probe_length=8, probe_seed=3)
        want = cli('heads', '--model', GPT2_TINY, '--probe-length', '8', '--probe-seed', '3')
        self.assertEqual(got['probe_ids'].tolist(), want['probe_ids'])
        self.assertEqual(sorted(got['metrics']), sorted(want['metrics']))
        for name, grid in want['metrics'].items():
            np.testing.assert_allclose(got['metrics'][name], np.array(grid, dtype=float), rtol=1e-12,
                                       equal_nan=True, err_msg=name)
        np.testing.assert_allclose(got['similarity'], want['similarity'], rtol=1e-12)
        self.assertEqual(got['cluster_order'].tolist(), want['cluster_order'])

    def test_spectrum_matches_dump_spectrum(self):
        got = attnlab.spectrum(self.model, TEXT, layer=1, head=2)
        want = cli('dump', '--model', GPT2_TINY, '--sentence', TEXT, '--layer', '1', '--head', '2', '--spectrum',
                   '--only', '1.2')['spectrum']
        self.assertEqual(sorted(got), sorted(want))
        for part in ('', 'scores_', 'exp_scores_'):
            np.testing.assert_allclose(got[part + 'singular_values'], want[part + 'singular_values'], rtol=1e-12)
            self.assertEqual(got[part + 'numerical_rank'], want[part + 'numerical_rank'])
        np.testing.assert_allclose(got['eigenvalues'], want['eigenvalues'], rtol=1e-12, atol=1e-15)
        # A causal head's attention is lower-triangular with rows summing to 1: its eigenvalues are its diagonal.
        _, cache = self.model.run_with_cache(TEXT, names_filter='blocks.1.attn.hook_pattern')
        diagonal = np.sort(np.diag(cache['blocks.1.attn.hook_pattern'][0, 2]).astype(float))
        np.testing.assert_allclose(np.sort(got['eigenvalues'][:, 0]), diagonal, atol=1e-6)

    def test_collapse_matches_attnlab_collapse(self):
        got = attnlab.collapse(depth=4, tokens=6, d_model=8, heads=2, seeds=2, configs=['san', 'san-skip'])
        want = cli('collapse', '--depth', '4', '--tokens', '6', '--d-model', '8', '--heads', '2', '--seeds', '2',
                   '--configs', 'san,san-skip')
        np.testing.assert_array_equal(got['depths'], want['depths'])
        for name, curve in want['configs'].items():
            for stat in ('median', 'min', 'max'):
                np.testing.assert_allclose(got['configs'][name][stat], curve[stat], rtol=1e-12)
        # The float64 reference of the pure attention stack (make_collapse_reference.py) is checked by the C++ tests;
        # here: pure attention collapses, the skip connection does not.
        self.assertLess(got['configs']['san']['median'][-1], got['configs']['san-skip']['median'][-1])


if __name__ == '__main__':
    unittest.main()
