#!/usr/bin/env bash
# Runs the GPT-2-small forward pass in Attention Lab and in PyTorch, back to back in the same run, with
# the same checkpoint, tokens and thread count. Usage: bench/compare.sh [BUILD_DIR] [THREADS]
source "$(dirname "${BASH_SOURCE[0]}")/../scripts/lib.sh"
ensure_packages "${BENCH_PACKAGES[@]}"
BUILD="${1:-$BUILD_DIR}"
THREADS="${2:-2}"
DIR=/tmp/attnlab-bench-gpt2-small
cmake --build "$BUILD" --target bench_gpt2
"$BUILD/bench/bench_gpt2" --dir "$DIR" --threads "$THREADS" --tokens 64 --runs 20
OPENBLAS_NUM_THREADS="$THREADS" OMP_NUM_THREADS="$THREADS" /usr/bin/python3 -W ignore "$ROOT/bench/pytorch_gpt2.py" \
  --dir "$DIR" --threads "$THREADS" --tokens 64 --runs 20
# PyTorch at its best on this machine: one intra-op thread, the products on OpenBLAS's $THREADS threads (with
# both at $THREADS, torch's OpenMP workers and OpenBLAS's threads fight over the cores: ~2.7× slower here).
OPENBLAS_NUM_THREADS="$THREADS" OMP_NUM_THREADS=1 /usr/bin/python3 -W ignore "$ROOT/bench/pytorch_gpt2.py" \
  --dir "$DIR" --threads "$THREADS" --intra-op-threads 1 --tokens 64 --runs 20
