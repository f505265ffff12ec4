#!/usr/bin/python3
# Writes the .npy files test_export compares the program's own NPY writer against, byte for byte.
# Run with Debian's numpy: /usr/bin/python3 tests/reference/npy/make_npy_reference.py
import os

import numpy as np

here = os.path.dirname(os.path.abspath(__file__))
m = np.arange(6, dtype=np.float64).reshape(2, 3) * 0.5 - 1.0  # [[-1, -0.5, 0], [0.5, 1, 1.5]]
np.save(os.path.join(here, "matrix_2x3_f8.npy"), m)
np.save(os.path.join(here, "matrix_2x3_f4.npy"), m.astype(np.float32))
np.save(os.path.join(here, "stack_2x2x3_f8.npy"), np.stack([m, -m]))
np.save(os.path.join(here, "vector_5_f8.npy"), np.array([1.0, 2.0, 3.0, 4.0, 1e-300]))
print("numpy", np.__version__)
