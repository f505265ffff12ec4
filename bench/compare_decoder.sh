#!/usr/bin/env bash
# Runs the decoder forward passes at the SmolLM2-135M, Qwen2.5-0.5B and Llama-3.2-1B shapes in Attention Lab
# and in PyTorch, back to back in the same run, with the same checkpoint files (written once by bench_decoder
# into /tmp: ≈0.5, 2.0 and 2.5 GB), the same tokens and thread count; PyTorch in both thread splits.
# Usage: bench/compare_decoder.sh [BUILD_DIR] [THREADS]
source "$(dirname "${BASH_SOURCE[0]}")/../scripts/lib.sh"
ensure_packages "${BENCH_PACKAGES[@]}"
BUILD="${1:-$BUILD_DIR}"
THREADS="${2:-2}"
cmake --build "$BUILD" --target bench_decoder
for SHAPE in smollm2-135m qwen2.5-0.5b llama-3.2-1b; do
  DTYPE=f32
  [ "$SHAPE" = llama-3.2-1b ] && DTYPE=bf16
  DIR=/tmp/attnlab-bench-$SHAPE-$DTYPE
  "$BUILD/bench/bench_decoder" --shape "$SHAPE" --dir "$DIR" --threads "$THREADS" --tokens 64 --runs 20
  # Both of torch's OpenMP workers and OpenBLAS's threads on $THREADS, then PyTorch at its best here: one
  # intra-op thread, the products on OpenBLAS's $THREADS threads (see compare.sh).
  OPENBLAS_NUM_THREADS="$THREADS" OMP_NUM_THREADS="$THREADS" /usr/bin/python3 -W ignore "$ROOT/bench/pytorch_decoder.py" \
    --dir "$DIR" --threads "$THREADS" --tokens 64 --runs 20
  OPENBLAS_NUM_THREADS="$THREADS" OMP_NUM_THREADS=1 /usr/bin/python3 -W ignore "$ROOT/bench/pytorch_decoder.py" \
    --dir "$DIR" --threads "$THREADS" --intra-op-threads 1 --tokens 64 --runs 20
done
