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


def cpp_times(build, directory, tokens, runs, threads):
    """bench_gpt2's (median, min) forward time, ms (it writes the checkpoint first when missing)."""
    out = subprocess.run([os.path.join(build, 'bench', 'bench_gpt2'), '--dir', directory, '--tokens', str(tokens),
                          '--runs', str(runs), '--threads', str(threads)], check=True, capture_output=True, text=True)
    match = re.search(r'median ([0-9.]+) ms, min ([0-9.]+) ms', out.stdout)
    if not match:
        sys.exit('bench_python: no median in bench_gpt2 output:\n' + out.stdout)
    return float(match.group(1)), float(match.group(2))


def times_ms(call, runs):
    """(median, min) of `runs` timed calls after 3 warm-up calls, ms."""
    for _ in range(3):
        call()
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        call()
        times.append((time.perf_counter() - start) * 1e3)
    times.sort()
    return times[len(times) // 2], times[0]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--build', default=os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'build'))
    parser.add_argument('--dir', default='/tmp/attnlab-bench-gpt2-small')
    parser.add_argument('--tokens', type=int, default=64)
    parser.add_argument('--runs', type=int, default=20)
    parser.add_argument('--threads', type=int, default=2)
    parser.add_argument('--rounds', type=int, default=3)
    args = parser.parse_args()
    os.environ['OMP_NUM_THREADS'] = str(args.threads)  # read when the module's OpenMP starts (first forward pass)
    sys.path.insert(0, os.path.join(args.build, 'python'))

    import attnlab  # after OMP_NUM_THREADS is set
    cpp = [cpp_times(args.build, args.dir, args.tokens, args.runs, args.threads)]  # writes the checkpoint if missing
    model = attnlab.load(args.dir)
    sentence = model.to_tokens('The quick brown fox jumps over the lazy dog while the cat watches. ')[0].tolist()
    ids = [sentence[i % len(sentence)] for i in range(args.tokens)]

    def read_all():
        _, cache = model.run_with_cache(ids)
        for name in cache.keys():
            cache[name]

    bare, with_logits, every_hook = [], [], []
    # Rounds alternate the C++ program and the Python calls: a busy machine slows both alike within a round.
    for _ in range(args.rounds):
        bare.append(times_ms(lambda: model.run_with_cache(ids, return_type=None), args.runs))
        with_logits.append(times_ms(lambda: model.run_with_cache(ids), args.runs))
        every_hook.append(times_ms(read_all, max(3, args.runs // 4)))
        cpp.append(cpp_times(args.build, args.dir, args.tokens, args.runs, args.threads))
    best = lambda rows: min(r[1] for r in rows)
    median = lambda rows: sorted(r[0] for r in rows)[len(rows) // 2]
    print(f'C++ forward (bench_gpt2), GPT-2 small, {args.tokens} tokens, {args.threads} threads, {args.runs} runs x '
          f'{len(cpp)} rounds: min {best(cpp):.1f} ms, median of the rounds\' medians {median(cpp):.1f} ms')
    for label, rows in (('run_with_cache(return_type=None)', bare),
                        (f'run_with_cache (with logits [1, {args.tokens}, 50257])', with_logits),
                        ('run_with_cache + every hook read once', every_hook)):
        print(f'{label}: min {best(rows):.1f} ms = {best(rows) / best(cpp):.2f}x the C++ forward\'s min; '
              f'median {median(rows):.1f} ms = {median(rows) / median(cpp):.2f}x its median')

if __name__ == '__main__':
    main()
