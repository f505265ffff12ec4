#!/usr/bin/python3
"""The Python module's calling overhead (issue 34): a 64-token GPT-2-small run_with_cache against the C++ forward pass
of bench_gpt2, in the same run (the C++ program before and after the Python timings, the ratio against their mean).

    PYTHONPATH=BUILD/python /usr/bin/python3 bench/bench_python.py [--build BUILD] [--tokens 64] [--runs 20]

bench_gpt2 writes the random GPT-2-small checkpoint to /tmp/attnlab-bench-gpt2-small on its first run. Both sides
run on the same OpenMP threads (--threads, default 2) and the same token ids (bench_gpt2's sentence, repeated).
run_with_cache is timed three ways: without logits (return_type=None: the forward pass and the cache, what
bench_gpt2 times), with the logits ([pos, 50257]: one more product of 64 × 768 × 50257), and with logits and every
hook read once (the maps stacked into [batch, head, query, key] arrays)."""
import argparse
import os
import re
import subprocess
import sys
import time


def cpp_median(build, directory, tokens, runs, threads):
    """bench_gpt2's median forward time, ms (it writes the checkpoint first when missing)."""
    out = subprocess.run([os.path.join(build, 'bench', 'bench_gpt2'), '--dir', directory, '--tokens', str(tokens),
                          '--runs', str(runs), '--threads', str(threads)], check=True, capture_output=True, text=True)
    match = re.search(r'median ([0-9.]+) ms', out.stdout)
    if not match:
        sys.exit('bench_python: no median in bench_gpt2 output:\n' + out.stdout)
    return float(match.group(1))


def median_ms(call, runs):
    """The median of `runs` timed calls after 3 warm-up calls, ms."""
    for _ in range(3):
        call()
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        call()
        times.append((time.perf_counter() - start) * 1e3)
    times.sort()
    return times[len(times) // 2]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--build', default=os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'build'))
    parser.add_argument('--dir', default='/tmp/attnlab-bench-gpt2-small')
    parser.add_argument('--tokens', type=int, default=64)
    parser.add_argument('--runs', type=int, default=20)
    parser.add_argument('--threads', type=int, default=2)
    args = parser.parse_args()
    os.environ['OMP_NUM_THREADS'] = str(args.threads)  # read when the module's OpenMP starts (first forward pass)
    sys.path.insert(0, os.path.join(args.build, 'python'))
    before = cpp_median(args.build, args.dir, args.tokens, args.runs, args.threads)

    import attnlab  # after OMP_NUM_THREADS is set
    model = attnlab.load(args.dir)
    sentence = model.to_tokens('The quick brown fox jumps over the lazy dog while the cat watches. ')[0].tolist()
    ids = [sentence[i % len(sentence)] for i in range(args.tokens)]

    def read_all():
        _, cache = model.run_with_cache(ids)
        for name in cache.keys():
            cache[name]

    bare = median_ms(lambda: model.run_with_cache(ids, return_type=None), args.runs)
    with_logits = median_ms(lambda: model.run_with_cache(ids), args.runs)
    every_hook = median_ms(read_all, max(3, args.runs // 4))
    after = cpp_median(args.build, args.dir, args.tokens, args.runs, args.threads)
    cpp = (before + after) / 2
    print(f'C++ forward (bench_gpt2), GPT-2 small, {args.tokens} tokens, {args.threads} threads: median '
          f'{before:.1f} ms before, {after:.1f} ms after the Python runs (mean {cpp:.1f} ms)')
    print(f'run_with_cache(return_type=None): median {bare:.1f} ms = {bare / cpp:.2f}x the C++ forward')
    print(f'run_with_cache (with logits [1, {args.tokens}, 50257]): median {with_logits:.1f} ms = '
          f'{with_logits / cpp:.2f}x')
    print(f'run_with_cache + every hook read once: median {every_hook:.1f} ms = {every_hook / cpp:.2f}x')


if __name__ == '__main__':
    main()
