"""attnlab.figure and attnlab.show of a run that hooks changed (issue 34): the run is handed to the program as a run
file (`--run FILE`) that it draws instead of computing, so the figure and the window are of the hooked run."""
import os
import shutil
import subprocess
import tempfile
import unittest
from unittest import mock

import numpy as np

import attnlab
from support import APP, GPT2_TINY
from test_show import csv_matrix, settings_after

TEXT = 'the cat sat on the mat and the cat'


def zero_head(head):
    """A hook_z hook that zeroes one head's output: the program's zero ablation, made in Python."""
    def hook(z, _):
        z[:, :, head, :] = 0
        return z
    return hook


class HookedRun(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.folder = tempfile.mkdtemp(prefix='attnlab-py-hooked-')
        cls.addClassCleanup(shutil.rmtree, cls.folder)
        cls.model = attnlab.load(GPT2_TINY)
        cls.hooks = [('blocks.0.attn.hook_z', zero_head(1))]
        seen = {}
        cls.model.run_with_hooks(TEXT, fwd_hooks=cls.hooks + [
            ('blocks.1.attn.hook_pattern', lambda p, hook: seen.update(pattern=p.copy()))])
        cls.hooked = seen['pattern'][0]  # [head, query, key] of the hooked run's layer 1
        _, cache = cls.model.run_with_cache(TEXT)
        cls.plain = np.array(cache['blocks.1.attn.hook_pattern'][0])

    def out(self, name):
        return os.path.join(self.folder, name)

    def test_the_figure_is_of_the_hooked_run(self):
        for head in range(self.hooked.shape[0]):
            # Zeroing head 0.1 changes what every head of layer 1 reads.
            self.assertGreater(np.abs(self.hooked[head] - self.plain[head]).max(), 1e-3)
        for ext in ['npy', 'csv']:
            path = attnlab.figure(self.model, TEXT, self.out('hooked.' + ext), layer=1, head=2, fwd_hooks=self.hooks)
            got = np.load(path) if ext == 'npy' else csv_matrix(path)[2]
            np.testing.assert_allclose(got, self.hooked[2], rtol=0, atol=1e-6)
        # No hooks (None or an empty list): the plain run, as before.
        for hooks in [None, []]:
            path = attnlab.figure(self.model, TEXT, self.out('plain.npy'), layer=1, head=2, fwd_hooks=hooks)
            np.testing.assert_allclose(np.load(path), self.plain[2], rtol=0, atol=1e-6)

    def test_a_hooks_failure_and_a_cache_with_hooks(self):
        def broken(z, hook):
            raise RuntimeError('no luck')
        with self.assertRaisesRegex(RuntimeError, "hook 'blocks.0.attn.hook_z': no luck"):
            attnlab.figure(self.model, TEXT, self.out('never.png'), fwd_hooks=[('blocks.0.attn.hook_z', broken)])
        with self.assertRaisesRegex(KeyError, 'no hook .blocks.0.attn.hook_zz'):
            attnlab.figure(self.model, TEXT, self.out('never.png'), fwd_hooks=[('blocks.0.attn.hook_zz', broken)])
        self.assertFalse(os.path.exists(self.out('never.png')))
        _, cache = self.model.run_with_cache(TEXT)
        with self.assertRaisesRegex(TypeError, 'a cache is a run already made; fwd_hooks runs the model'):
            attnlab.figure(cache, path=self.out('never.png'), fwd_hooks=self.hooks)


class ShowHookedRun(unittest.TestCase):
    """The window under Qt's offscreen platform, quitting once its first result is drawn (as test_show.Show)."""

    def setUp(self):
        self.config = tempfile.mkdtemp(prefix='attnlab-py-show-hooked-')
        self.addCleanup(shutil.rmtree, self.config)
        patch = mock.patch.dict(os.environ, {'QT_QPA_PLATFORM': 'offscreen', 'ATTNLAB_QUIT_AFTER_FIRST_RESULT': '1',
                                             'XDG_CONFIG_HOME': self.config,
                                             'XDG_DATA_HOME': os.path.join(self.config, 'data'),
                                             'XDG_CACHE_HOME': os.path.join(self.config, 'cache')})
        patch.start()
        self.addCleanup(patch.stop)
        self.model = attnlab.load(GPT2_TINY)
        self.hooks = [('blocks.0.attn.hook_z', zero_head(1))]

    def export(self, *args):
        return subprocess.run([APP, 'export', *args], capture_output=True, text=True)

    def test_the_window_opens_on_the_hooked_run(self):
        proc = attnlab.show(self.model, TEXT, view='headview', layer=1, head=3, fwd_hooks=self.hooks)
        self.addCleanup(shutil.rmtree, os.path.dirname(proc.session))
        try:
            status = proc.wait(timeout=120)
            with open(proc.log, encoding='utf-8') as f:
                self.assertEqual(status, 0, f.read())
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        self.assertTrue(os.path.isfile(proc.run))
        self.assertEqual(os.path.dirname(proc.run), os.path.dirname(proc.session))
        view, params = settings_after(self.config)
        self.assertEqual((view, params['sentence'], params['selection']['head']), ('headview', TEXT, 3))
        # The file the window was handed is the hooked run: the program exports that run from it.
        seen = {}
        self.model.run_with_hooks(TEXT, fwd_hooks=self.hooks + [
            ('blocks.1.attn.hook_pattern', lambda p, hook: seen.update(pattern=p.copy()))])
        out = os.path.join(self.config, 'from_run.npy')
        done = self.export('--params', proc.session, '--view', 'heatmap', '--run', proc.run, '--out', out)
        self.assertEqual(done.returncode, 0, done.stderr)
        np.testing.assert_allclose(np.load(out), seen['pattern'][0, 3], rtol=0, atol=1e-6)
        # The same session with another text: refused, the reason named (a figure is never of another run).
        session = attnlab.read_session(proc.session)
        other = os.path.join(self.config, 'other.attnlab.json')
        with open(proc.session, encoding='utf-8') as f:
            text = f.read()
        with open(other, 'w', encoding='utf-8') as f:
            f.write(text.replace(TEXT, TEXT + ' sat'))
        self.assertEqual(attnlab.read_session(other)['sentence'], session['sentence'] + ' sat')
        done = self.export('--params', other, '--run', proc.run, '--out', out)
        self.assertEqual(done.returncode, 1)
        self.assertIn('live run: the text differs from the hooked run from Python', done.stderr)

    def test_a_bad_run_file_opens_the_live_run(self):
        proc = attnlab.show(self.model, TEXT, view='heatmap', layer=1, head=0, fwd_hooks=self.hooks)
        self.addCleanup(shutil.rmtree, os.path.dirname(proc.session))
        proc.wait(timeout=120)
        with open(proc.run, 'rb') as f:
            data = f.read()
        cut = os.path.join(self.config, 'cut.attnlab-run')
        with open(cut, 'wb') as f:
            f.write(data[:len(data) // 2])
        done = subprocess.run([APP, '--run', cut, proc.session], capture_output=True, text=True, timeout=120)
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertIn('cut.attnlab-run is truncated: %d bytes of the %d its header gives; showing the live run'
                      % (len(data) // 2, len(data)), done.stderr)
        done = self.export('--params', proc.session, '--run', cut, '--out', os.path.join(self.config, 'x.png'))
        self.assertEqual(done.returncode, 1)
        self.assertIn('is truncated', done.stderr)


if __name__ == '__main__':
    unittest.main()
