#!/usr/bin/env bash
# Runs the GPT-2-small forward pass in Attention Lab and in PyTorch, back to back in the same run, with
# the same checkpoint, tokens and thread count. Usage: bench/compare.sh [BUILD_DIR] [THREADS]
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${1:-$ROOT/build}"
THREADS="${2:-2}"
DIR=/tmp/attnlab-bench-gpt2-small
"$BUILD/bench/bench_gpt2" --dir "$DIR" --threads "$THREADS" --tokens 64 --runs 20
OPENBLAS_NUM_THREADS="$THREADS" OMP_NUM_THREADS="$THREADS" /usr/bin/python3 "$ROOT/bench/pytorch_gpt2.py" \
  --dir "$DIR" --threads "$THREADS" --tokens 64 --runs 20
