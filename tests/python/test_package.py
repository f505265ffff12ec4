"""The package folder BUILD/python/attnlab/ (issue 34): __init__.py gives libgomp the spin the program's executables
give it (core/compute/omp_wait_policy.h) before the extension loads libgomp, as libgomp itself reports it
(OMP_DISPLAY_ENV=VERBOSE prints what it read when it was loaded); the user's own values are kept; and the version is
the program's."""
import os
import re
import subprocess
import sys
import unittest

import attnlab
from support import APP

PACKAGE_PARENT = os.path.dirname(os.path.dirname(os.path.abspath(attnlab.__file__)))


def import_in_child(**env_changes):
    """(attnlab.omp_wait_policy, os.environ's GOMP_SPINCOUNT after import, the GOMP_SPINCOUNT libgomp read) of a fresh
    interpreter importing attnlab with the environment changed (None: removed)."""
    env = {k: v for k, v in os.environ.items() if k not in ('GOMP_SPINCOUNT', 'OMP_WAIT_POLICY', 'ATTNLAB_OMP_SPIN')}
    env.update(PYTHONPATH=PACKAGE_PARENT, OMP_DISPLAY_ENV='VERBOSE')
    for k, v in env_changes.items():
        if v is not None:
            env[k] = v
    code = 'import os, attnlab; print(attnlab.omp_wait_policy); print(os.environ.get("GOMP_SPINCOUNT", "-"))'
    out = subprocess.run([sys.executable, '-c', code], env=env, capture_output=True, text=True, check=True)
    lines = out.stdout.strip().split('\n')
    read = re.search(r"GOMP_SPINCOUNT = '([0-9]+)'", out.stderr)
    return lines[-2], lines[-1], read.group(1) if read else None


class Package(unittest.TestCase):

    def test_a_package_folder_with_the_extension_inside(self):
        self.assertEqual(os.path.basename(attnlab.__file__), '__init__.py')
        self.assertTrue(attnlab._attnlab.__file__.startswith(os.path.dirname(attnlab.__file__)))
        self.assertIs(attnlab.load, attnlab._attnlab.load)
        self.assertIn('BOS', attnlab.__doc__)

    def test_every_public_function_says_what_it_does(self):
        # help(attnlab.X) shows more than pybind11's signature line for every function, method and property.
        def said(obj):
            lines = [line for line in (obj.__doc__ or '').split('\n') if line.strip()]
            name = getattr(obj, '__name__', '')
            return [line for line in lines if not (line.startswith(name + '(') and '->' in line)]
        unsaid = []
        for name in (n for n in dir(attnlab) if not n.startswith('_')):
            obj = getattr(attnlab, name)
            if callable(obj) and not said(obj):
                unsaid.append(name)
            if isinstance(obj, type):
                for member in dir(obj):
                    if member.startswith('_') and member not in ('__getitem__', '__contains__', '__len__', '__iter__',
                                                                 '__call__', '__enter__', '__exit__'):
                        continue
                    attr = getattr(obj, member)
                    if (isinstance(attr, property) and not (attr.__doc__ or '').strip()) or \
                            (callable(attr) and not isinstance(attr, property) and not said(attr)):
                        unsaid.append(f'{name}.{member}')
        self.assertEqual(unsaid, [])
        self.assertGreater(len(dir(attnlab.Model)), 10)
        # The BOS behaviour, unlike TransformerLens's prepend_bos=True, where a text is tokenized.
        for doc in (attnlab.__doc__, attnlab.Model.run_with_cache.__doc__, attnlab.Model.run_with_hooks.__doc__,
                    attnlab.Model.to_tokens.__doc__):
            self.assertRegex(doc, r'BOS[^.]*only where the model.s[^.]*tokenizer\s+adds\s+one')

    def test_the_version_is_the_programs(self):
        out = subprocess.run([APP, '--version'], capture_output=True, text=True, check=True).stdout
        self.assertEqual(out.split()[1], attnlab.__version__)

    def test_libgomp_reads_the_programs_spin(self):
        said, env_spin, read = import_in_child()
        # "GOMP_SPINCOUNT=N: 1000 us at X ns a pause set by attnlab's __init__": N = 1 ms of pauses (±0.05 ns of
        # rounding in X), the count libgomp read when the extension loaded it.
        match = re.match(r"GOMP_SPINCOUNT=([0-9]+): 1000 us at ([0-9.]+) ns a pause set by attnlab's __init__$", said)
        self.assertIsNotNone(match, said)
        count, ns = int(match.group(1)), float(match.group(2))
        self.assertEqual(env_spin, str(count))
        self.assertEqual(read, str(count))
        expected = min(300000, max(100, 1e6 / ns))
        self.assertLess(abs(count - expected), expected * 0.05 / max(ns, 0.1) + 1)

    def test_the_users_values_are_kept(self):
        said, env_spin, read = import_in_child(GOMP_SPINCOUNT='1234')
        self.assertEqual((env_spin, read), ('1234', '1234'))
        self.assertIn('set by the user: left as is', said)
        said, env_spin, read = import_in_child(OMP_WAIT_POLICY='active')
        self.assertEqual(env_spin, '-')
        self.assertIn('OMP_WAIT_POLICY=active', said)

    def test_an_empty_value_counts_as_unset(self):
        said, env_spin, read = import_in_child(GOMP_SPINCOUNT='')
        self.assertIn("set by attnlab's __init__", said)
        self.assertEqual(read, env_spin)
        self.assertGreaterEqual(int(env_spin), 100)

    def test_the_programs_children_see_it_as_the_programs(self):
        # The program started from Python inherits the count and its mark: it keeps them, as it keeps its own
        # after its start-up restart.
        env = {k: v for k, v in os.environ.items() if k not in ('GOMP_SPINCOUNT', 'OMP_WAIT_POLICY', 'ATTNLAB_OMP_SPIN')}
        env['PYTHONPATH'] = PACKAGE_PARENT
        code = ('import os, subprocess, sys, attnlab; '
                'e = dict(os.environ, OMP_DISPLAY_ENV="VERBOSE"); '
                'r = subprocess.run([sys.argv[1], "--version"], env=e, capture_output=True, text=True); '
                'print(os.environ["GOMP_SPINCOUNT"]); print(r.stderr)')
        out = subprocess.run([sys.executable, '-c', code, APP], env=env, capture_output=True, text=True, check=True)
        count = out.stdout.split('\n')[0]
        self.assertIn(f"GOMP_SPINCOUNT = '{count}'", out.stdout)


if __name__ == '__main__':
    unittest.main()
