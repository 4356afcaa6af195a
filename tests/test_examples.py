"""The scripts in examples/ run on chainrule and on PyTorch (`--torch`) and print the same
per-epoch losses and accuracies."""
import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
NUMBER = re.compile(r"\d+\.\d+")

needs_sklearn = pytest.mark.skipif(importlib.util.find_spec("sklearn") is None,
                                   reason="the digits examples need scikit-learn")

# One BLAS / OpenMP thread per script: the tests run in parallel, and oversubscribed BLAS
# threads slow small matmuls down up to tenfold.
ENV = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")


def run(script, *args):
    """The numbers of each epoch line (losses, accuracy) and the final accuracy line."""
    done = subprocess.run([sys.executable, str(EXAMPLES / script), *args], capture_output=True,
                          text=True, timeout=300, env=ENV)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    epochs = [[float(v) for v in NUMBER.findall(line.split("  ", 1)[1])]
              for line in lines if line.startswith("epoch")]
    final = float(NUMBER.findall(lines[-1])[0])
    return np.array(epochs), final


@pytest.mark.parametrize("script, epochs, min_accuracy", [
    pytest.param("digits_mlp.py", 5, 90, marks=needs_sklearn),
    pytest.param("digits_cnn.py", 3, 85, marks=needs_sklearn),
    ("karate_club.py", 60, 90),
    ("char_lstm.py", 10, 35),
    ("transformer.py", 5, 95),
])
def test_example_matches_torch(script, epochs, min_accuracy):
    ours, ours_final = run(script, "--epochs", str(epochs))
    theirs, theirs_final = run(script, "--epochs", str(epochs), "--torch")
    assert ours.shape == theirs.shape and len(ours) >= 3
    np.testing.assert_allclose(ours[:, :-1], theirs[:, :-1], rtol=1e-4, atol=1e-5)  # losses
    np.testing.assert_array_equal(ours[:, -1], theirs[:, -1])                       # accuracies
    assert ours_final == theirs_final >= min_accuracy
