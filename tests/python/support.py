"""What the Python tests share: the test data, the program (for the CLI's JSON and dumps) and the module."""
import json
import os
import subprocess
import tempfile

import numpy as np

import attnlab

TEST_DATA = os.environ.get('ATTNLAB_TEST_DATA', os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
REFERENCE = os.path.join(TEST_DATA, 'reference')
GPT2_TINY = os.path.join(REFERENCE, 'models', 'gpt2_tiny')
LLAMA_GQA = os.path.join(REFERENCE, 'decoders', 'llama-gqa')
APP = os.environ.get('ATTNLAB_APP', '')


def reference(path):
    """A JSON file of tests/reference/."""
    with open(os.path.join(REFERENCE, path), encoding='utf-8') as f:
        return json.load(f)


def cli(*args):
    """The program's JSON output of `attnlab ARGS` (the command line is the cross-check)."""
    if not APP:
        raise RuntimeError('ATTNLAB_APP names no program (ctest sets it)')
    out = subprocess.run([APP, *args], check=True, capture_output=True, text=True)
    return json.loads(out.stdout)


def cli_dump_npy(model_dir, sentence):
    """`attnlab dump --npy` of a sentence: (index, {file: array}) of every matrix of the trace."""
    folder = tempfile.mkdtemp(prefix='attnlab-py-dump-')
    subprocess.run([APP, 'dump', '--model', model_dir, '--sentence', sentence, '--npy', folder], check=True,
                   capture_output=True)
    with open(os.path.join(folder, 'index.json'), encoding='utf-8') as f:
        index = json.load(f)
    arrays = {name: np.load(os.path.join(folder, name)) for name in os.listdir(folder) if name.endswith('.npy')}
    return index, arrays
