"""attnlab.figure and attnlab.show: a run handed to the program's executable as a session file (issue 34)."""
import csv
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import unittest
from unittest import mock

import numpy as np

import attnlab
from support import APP, GPT2_TINY

TEXT = 'the cat sat on the mat and the cat'
INDUCTION_TEXT = 'a b c d a b c d'


def png_size(path):
    """(width, height) from a PNG's IHDR chunk: 8-byte signature, length, b'IHDR', then two big-endian uint32."""
    with open(path, 'rb') as f:
        head = f.read(24)
    if head[:8] != b'\x89PNG\r\n\x1a\n' or head[12:16] != b'IHDR':
        raise AssertionError(path + ' is not a PNG')
    return struct.unpack('>II', head[16:24])


def csv_matrix(path):
    """(column labels, row labels, values) of a view's CSV: a header of key tokens, then a labelled row per query."""
    with open(path, encoding='utf-8', newline='') as f:
        rows = list(csv.reader(f))
    return rows[0][1:], [r[0] for r in rows[1:]], np.array([[float(x) for x in r[1:]] for r in rows[1:]])


def settings_after(config_home):
    """What the window wrote to its settings when it quit: ([navigator] view, the [params] last JSON)."""
    with open(os.path.join(config_home, 'AttentionLab', 'attnlab.conf'), encoding='utf-8') as f:
        text = f.read()
    view = next(line.split('=', 1)[1] for line in text.splitlines() if line.startswith('view='))
    last = next(line for line in text.splitlines() if line.startswith('last='))
    # QSettings writes the JSON as "@ByteArray(...)" with its quotes escaped (the texts here are ASCII).
    params = json.loads(last[len('last="@ByteArray('):-len(')"')].replace('\\"', '"'))
    return view, params


class Executable(unittest.TestCase):

    def test_the_build_folders_program_beside_the_module(self):
        with mock.patch.dict(os.environ):
            os.environ.pop('ATTNLAB_EXECUTABLE', None)
            self.assertTrue(os.path.samefile(attnlab.executable(), APP))

    def test_the_environment_variable_first(self):
        with mock.patch.dict(os.environ, {'ATTNLAB_EXECUTABLE': APP}):
            self.assertEqual(attnlab.executable(), APP)
        with mock.patch.dict(os.environ, {'ATTNLAB_EXECUTABLE': '/nonexistent/attnlab'}):
            with self.assertRaisesRegex(FileNotFoundError, 'ATTNLAB_EXECUTABLE is .*/nonexistent/attnlab'):
                attnlab.executable()
            with self.assertRaisesRegex(FileNotFoundError, 'ATTNLAB_EXECUTABLE'):
                attnlab.figure(attnlab.load('builtin:induction'), 'a b', '/tmp/never-written.png')

    def test_the_installed_layout_and_no_program(self):
        # The .deb's layout: PREFIX/lib/python3/dist-packages/attnlab/ (the package) and PREFIX/bin/attnlab.
        prefix = tempfile.mkdtemp(prefix='attnlab-py-prefix-')
        self.addCleanup(shutil.rmtree, prefix)
        packages = os.path.join(prefix, 'lib', 'python3', 'dist-packages')
        os.makedirs(packages)
        os.symlink(os.path.dirname(attnlab.__file__), os.path.join(packages, 'attnlab'))
        empty = os.path.join(prefix, 'empty')
        os.makedirs(empty)
        env = {k: v for k, v in os.environ.items() if k != 'ATTNLAB_EXECUTABLE'}
        env.update(PYTHONPATH=packages, PATH=empty)
        probe = [sys.executable, '-c', 'import attnlab; print(attnlab.executable())']
        missing = subprocess.run(probe, env=env, capture_output=True, text=True)
        self.assertNotEqual(missing.returncode, 0)
        self.assertIn('FileNotFoundError: the program attnlab was not found', missing.stderr)
        self.assertIn('ATTNLAB_EXECUTABLE', missing.stderr)
        os.makedirs(os.path.join(prefix, 'bin'))
        os.symlink(APP, os.path.join(prefix, 'bin', 'attnlab'))
        found = subprocess.run(probe, env=env, capture_output=True, text=True, check=True)
        self.assertEqual(found.stdout.strip(), os.path.join(prefix, 'bin', 'attnlab'))


class Figure(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.folder = tempfile.mkdtemp(prefix='attnlab-py-figure-')
        cls.addClassCleanup(shutil.rmtree, cls.folder)
        cls.gpt2 = attnlab.load(GPT2_TINY)
        cls.induction = attnlab.load('builtin:induction')
        _, cls.cache = cls.induction.run_with_cache(INDUCTION_TEXT)

    def out(self, name):
        return os.path.join(self.folder, name)

    def test_a_png_has_the_presets_pixel_size(self):
        # "column": 8.5 x 6.4 cm at 300 dpi (attnlab export --help), laid out in whole pixels at 96 dpi (321 x 242)
        # and drawn 300 / 96 times larger: 1003 x 756 (8.5 cm at 300 dpi would be 1003.9 px).
        path = attnlab.figure(self.cache, path=self.out('column.png'), layer=1, head=0, preset='column')
        self.assertEqual(path, self.out('column.png'))
        layout = (round(8.5 / 2.54 * 96), round(6.4 / 2.54 * 96))
        self.assertEqual(png_size(path), tuple(int(side * 300 / 96) for side in layout))
        attnlab.figure(self.gpt2, TEXT, self.out('px.png'), width=640, height=480)
        self.assertEqual(png_size(self.out('px.png')), (640, 480))

    def test_the_csv_is_the_caches_pattern(self):
        for model, text, layer, head in [(self.gpt2, TEXT, 1, 1), (self.induction, INDUCTION_TEXT, 1, 3)]:
            _, cache = model.run_with_cache(text)
            pattern = cache['blocks.%d.attn.hook_pattern' % layer][0, head]
            for source in [dict(model=model, text=text), dict(model=cache)]:
                path = attnlab.figure(**source, path=self.out('pattern.csv'), layer=layer, head=head)
                keys, queries, values = csv_matrix(path)
                self.assertEqual(len(keys), pattern.shape[1])
                self.assertEqual(len(queries), pattern.shape[0])
                np.testing.assert_allclose(values, pattern, rtol=0, atol=1e-6)
        # The labels are the tokens' vocabulary pieces ("Ġcat").
        keys, queries, _ = csv_matrix(attnlab.figure(self.gpt2, TEXT, self.out('labels.csv')))
        pieces = [self.gpt2.tokenizer.piece(int(i)) for i in self.gpt2.to_tokens(TEXT)[0]]
        self.assertEqual(keys, pieces)
        self.assertEqual(queries, pieces)

    def test_every_format(self):
        pattern = self.cache['blocks.1.attn.hook_pattern'][0, 2]
        for ext in ['png', 'svg', 'pdf', 'csv', 'json', 'npy']:
            with mock.patch.dict(os.environ):
                os.environ.pop('QT_QPA_PLATFORM', None)
                path = attnlab.figure(self.cache, path=self.out('all.' + ext), layer=1, head=2)
                self.assertNotIn('QT_QPA_PLATFORM', os.environ)  # offscreen in the child's environment only
            with open(path, 'rb') as f:
                head = f.read(64)
            if ext == 'png':
                self.assertEqual(head[:4], b'\x89PNG')
            elif ext == 'svg':
                self.assertIn(b'<svg', head + open(path, 'rb').read(400))
            elif ext == 'pdf':
                self.assertEqual(head[:5], b'%PDF-')
            elif ext == 'csv':
                np.testing.assert_allclose(csv_matrix(path)[2], pattern, rtol=0, atol=1e-6)
            elif ext == 'json':
                with open(path, encoding='utf-8') as f:
                    matrices = json.load(f)['matrices']
                self.assertEqual(matrices[0]['name'], 'attention_L1_H2')
                np.testing.assert_allclose(np.array(matrices[0]['values']), pattern, rtol=0, atol=1e-6)
            else:
                np.testing.assert_allclose(np.load(path), pattern, rtol=0, atol=1e-6)
        # format= overrides the extension.
        attnlab.figure(self.cache, path=self.out('no_extension'), format='csv')
        np.testing.assert_allclose(csv_matrix(self.out('no_extension'))[2],
                                   self.cache['blocks.0.attn.hook_pattern'][0, 0], rtol=0, atol=1e-6)

    def test_bad_input_raises_with_the_programs_message(self):
        png = self.out('bad.png')
        with self.assertRaisesRegex(ValueError, "unknown view 'nope'"):
            attnlab.figure(self.cache, path=png, view='nope')
        with self.assertRaisesRegex(ValueError, 'layer 7 does not exist: the model has 2 layers'):
            attnlab.figure(self.cache, path=png, layer=7)
        with self.assertRaisesRegex(ValueError, 'head 9 does not exist'):
            attnlab.figure(self.gpt2, TEXT, png, head=9)
        with self.assertRaisesRegex(ValueError, "unknown --preset 'huge'"):
            attnlab.figure(self.cache, path=png, preset='huge')
        with self.assertRaisesRegex(ValueError, 'cannot write in /nonexistent'):
            attnlab.figure(self.cache, path='/nonexistent/x.png')
        with self.assertRaisesRegex(ValueError, '48'):  # the tiny GPT-2 takes 48 positions
            attnlab.figure(self.gpt2, TEXT * 10, png)
        self.assertFalse(os.path.exists(png))
        with self.assertRaisesRegex(TypeError, 'path='):
            attnlab.figure(self.cache)
        with self.assertRaisesRegex(TypeError, 'pass the text'):
            attnlab.figure(self.gpt2, path=png)
        with self.assertRaisesRegex(TypeError, 'expected an attnlab.Model or ActivationCache, got str'):
            attnlab.figure('builtin:induction', 'a b', png)
        with self.assertRaisesRegex(ValueError, 'pass text=None'):
            attnlab.figure(self.cache, 'a b', png)

    def test_a_cache_that_stands_for_no_text(self):
        _, of_ids = self.gpt2.run_with_cache(self.gpt2.to_tokens(TEXT)[0])
        with self.assertRaisesRegex(ValueError, 'made from token ids, not from a text; pass the model and the text'):
            attnlab.figure(of_ids, path=self.out('ids.png'))
        _, batch = self.gpt2.run_with_cache([TEXT, TEXT])
        with self.assertRaisesRegex(ValueError, 'a batch of 2 texts'):
            attnlab.figure(batch, path=self.out('batch.png'))
        # A batch of one text stands for that text; input= by keyword is remembered too.
        _, one = self.gpt2.run_with_cache(input=[TEXT], names_filter='blocks.0.attn.hook_pattern')
        keys, _, values = csv_matrix(attnlab.figure(one, path=self.out('one.csv')))
        np.testing.assert_allclose(values, one['blocks.0.attn.hook_pattern'][0, 0], rtol=0, atol=1e-6)


class Show(unittest.TestCase):
    """The window under Qt's offscreen platform, told to quit once its first result is drawn (the start-up
    benchmark's ATTNLAB_QUIT_AFTER_FIRST_RESULT), with settings of its own: what it wrote there when it quit is what
    it showed."""

    def setUp(self):
        self.config = tempfile.mkdtemp(prefix='attnlab-py-show-config-')
        self.addCleanup(shutil.rmtree, self.config)
        patch = mock.patch.dict(os.environ, {'QT_QPA_PLATFORM': 'offscreen', 'ATTNLAB_QUIT_AFTER_FIRST_RESULT': '1',
                                             'XDG_CONFIG_HOME': self.config,
                                             # the autosave too: another run's crash would ask "Restore?" and wait
                                             'XDG_DATA_HOME': os.path.join(self.config, 'data'),
                                             'XDG_CACHE_HOME': os.path.join(self.config, 'cache')})
        patch.start()
        self.addCleanup(patch.stop)

    def shown(self, *args, **kwargs):
        proc = attnlab.show(*args, **kwargs)
        self.addCleanup(shutil.rmtree, os.path.dirname(proc.session))
        try:
            # Not waited for: the window takes a second to start, show() returns at once.
            self.assertIsNone(proc.poll())
            self.assertEqual(proc.wait(timeout=120), 0, open(proc.log, encoding='utf-8').read())
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        return proc

    def test_the_window_opens_on_the_run(self):
        model = attnlab.load('builtin:induction')
        _, cache = model.run_with_cache(INDUCTION_TEXT)
        proc = self.shown(cache, view='headview', layer=1, head=2)
        self.assertTrue(proc.session.endswith('.attnlab.json'))
        view, params = settings_after(self.config)
        self.assertEqual(view, 'headview')
        self.assertEqual(params['sentence'], INDUCTION_TEXT)
        self.assertEqual(params['model_dir'], 'builtin:induction')
        self.assertEqual(params['selection']['layer'], 1)
        self.assertEqual(params['selection']['head'], 2)

    def test_the_session_round_trips_through_the_core_reader(self):
        # A checkpoint folder given relative to this folder is written absolute: the file may be opened elsewhere.
        model = attnlab.load(os.path.relpath(GPT2_TINY))
        proc = self.shown(model, TEXT, view='qkv', layer=1, head=3)
        session = attnlab.read_session(proc.session)
        self.assertEqual(session['session']['schema'], 'attnlab.session/1')
        self.assertEqual(session['sentence'], TEXT)
        self.assertTrue(os.path.isabs(session['model_dir']))
        self.assertTrue(os.path.samefile(session['model_dir'], GPT2_TINY))
        self.assertEqual(session['selection']['view'], 'qkv')
        self.assertEqual((session['selection']['layer'], session['selection']['head']), (1, 3))
        view, params = settings_after(self.config)
        self.assertEqual((view, params['selection']['layer'], params['selection']['head']), ('qkv', 1, 3))
        # The program exports the same session's figure: its numbers are the run's.
        out = os.path.join(self.config, 'from_session.csv')
        subprocess.run([APP, 'export', '--params', proc.session, '--view', 'heatmap', '--out', out], check=True,
                       capture_output=True)
        _, cache = model.run_with_cache(TEXT)
        np.testing.assert_allclose(csv_matrix(out)[2], cache['blocks.1.attn.hook_pattern'][0, 3], rtol=0,
                                   atol=1e-6)

    def test_bad_input_raises_before_a_window_starts(self):
        model = attnlab.load('builtin:induction')
        with self.assertRaisesRegex(ValueError, r"unknown view 'nope' \(known: heatmap, .*headview"):
            attnlab.show(model, 'a b', view='nope')
        with self.assertRaisesRegex(ValueError, 'layer 2 does not exist: the model has 2 layers'):
            attnlab.show(model, 'a b', layer=2)
        with self.assertRaisesRegex(ValueError, 'head -1 does not exist'):
            attnlab.show(model, 'a b', head=-1)
        _, batch = model.run_with_cache(['a b', 'b a'])
        with self.assertRaisesRegex(ValueError, 'pass the model and the text'):
            attnlab.show(batch)
        for name in ['QT_QPA_PLATFORM', 'DISPLAY', 'WAYLAND_DISPLAY']:
            os.environ.pop(name, None)
        with self.assertRaisesRegex(RuntimeError, 'no display.*attnlab.figure'):
            attnlab.show(model, 'a b')

    def test_a_bad_session_file_names_the_field(self):
        path = os.path.join(self.config, 'bad.attnlab.json')
        with open(path, 'w', encoding='utf-8') as f:
            json.dump({'selection': {'layer': 'one'}}, f)
        with self.assertRaisesRegex(ValueError, 'selection.layer'):
            attnlab.read_session(path)
        with self.assertRaisesRegex(FileNotFoundError, 'cannot read the session file'):
            attnlab.read_session(os.path.join(self.config, 'missing.attnlab.json'))


if __name__ == '__main__':
    unittest.main()
