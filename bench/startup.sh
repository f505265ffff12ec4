#!/usr/bin/env bash
# Start-up to a drawn window (target ≤ 1 s): runs the program offscreen until its first result is
# drawn, 10 times, and prints the median wall time. Usage: bench/startup.sh [build-dir]
set -euo pipefail
APP="${1:-build}/app/attnlab"
times=()
for i in $(seq 10); do
  t0=$(date +%s.%N)
  ATTNLAB_QUIT_AFTER_FIRST_RESULT=1 QT_QPA_PLATFORM=offscreen "$APP" 2>/dev/null
  t1=$(date +%s.%N)
  times+=("$(echo "($t1 - $t0) * 1000" | bc -l)")
done
printf '%s\n' "${times[@]}" | sort -n | awk '{a[NR]=$1} END {printf "start-up to first drawn result (median of %d): %.1f ms   target 1000 ms\n", NR, a[int((NR+1)/2)]}'
