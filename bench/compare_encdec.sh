#!/usr/bin/env bash
# Runs the encoder–decoder measurements (issue 33) at the opus-mt-en-de, t5-small and bart-base shapes in Attention
# Lab and in PyTorch, back to back in the same run, with the same checkpoint files (written once by bench_encdec into
# /tmp: ≈0.3, 0.25 and 0.55 GB), the same ids and thread count; PyTorch in both thread splits (see compare.sh).
# Usage: bench/compare_encdec.sh [BUILD_DIR] [THREADS]
source "$(dirname "${BASH_SOURCE[0]}")/../scripts/lib.sh"
ensure_packages "${BENCH_PACKAGES[@]}"
BUILD="${1:-$BUILD_DIR}"
THREADS="${2:-2}"
cmake --build "$BUILD" --target bench_encdec
for SHAPE in opus-mt-en-de t5-small bart-base; do
  "$BUILD/bench/bench_encdec" --shape "$SHAPE" --threads "$THREADS" --runs 5
  DIR=/tmp/attnlab-bench-encdec-$SHAPE
  OPENBLAS_NUM_THREADS="$THREADS" OMP_NUM_THREADS="$THREADS" /usr/bin/python3 -W ignore "$ROOT/bench/pytorch_encdec.py" \
    --dir "$DIR" --threads "$THREADS" --runs 5
  OPENBLAS_NUM_THREADS="$THREADS" OMP_NUM_THREADS=1 /usr/bin/python3 -W ignore "$ROOT/bench/pytorch_encdec.py" \
    --dir "$DIR" --threads "$THREADS" --intra-op-threads 1 --runs 5
done
