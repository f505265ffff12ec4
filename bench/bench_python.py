#!/usr/bin/python3
"""The Python module's calling overhead (issue 34): a 64-token GPT-2-small run_with_cache against the C++ forward pass
of bench_gpt2 doing the same work, in the same run: rounds alternate the C++ program (the forward alone, and the
forward with the logits, bench_gpt2 --logits 1) and the Python calls, and each ratio is the median over the rounds of
the round's Python median / the same round's C++ median (a busy machine slows both alike within a round).

    PYTHONPATH=BUILD/python /usr/bin/python3 bench/bench_python.py [--build BUILD] [--tokens 64] [--runs 20]

bench_gpt2 writes the random GPT-2-small checkpoint to /tmp/attnlab-bench-gpt2-small on its first run. Both sides
run on the same OpenMP threads (--threads, default 2), the same token ids (bench_gpt2's sentence, repeated), the same
libgomp spin (`import attnlab` sets GOMP_SPINCOUNT as the executables do, and bench_gpt2 inherits it) and the same
switch to one thread while the cores are busy (core/base/contention.h, compiled into the module).
run_with_cache is timed three ways: without logits (return_type=None: the forward pass and the cache, what
bench_gpt2 times), with the logits ([pos, 50257]: one more product of 64 × 768 × 50257), and with logits and every
hook read once (the maps stacked into [batch, head, query, key] arrays).

run_with_hooks (return_type=None) is timed without hooks, with hooks that only read (every layer's hook_z and
hook_resid_post: fn returns None) and with a hook at every layer's hook_z that zeroes head 0 in place, the three
taking turns run by run; a hook's cost is the median of the differences between turns. Unless --no-torch, the same
weights and ids also run through a PyTorch float32 GPT-2 (bench/pytorch_gpt2.py's forward as nn.Modules, an
nn.Identity where TransformerLens has a HookPoint) with the same hooks through register_forward_hook, in a process of
its own (this one's OpenMP threads may spin), --torch-intra-op threads (1) and OPENBLAS_NUM_THREADS = --threads
(Debian's torch multiplies through the system BLAS: install libopenblas0-pthread)."""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import time


def cpp_times(build, directory, tokens, runs, threads, logits=False):
    """bench_gpt2's (median, min) forward time, ms (it writes the checkpoint first when missing); with `logits`, the
    forward and the logits of every position."""
    out = subprocess.run([os.path.join(build, 'bench', 'bench_gpt2'), '--dir', directory, '--tokens', str(tokens),
                          '--runs', str(runs), '--threads', str(threads), '--logits', '1' if logits else '0'],
                         check=True, capture_output=True, text=True)
    match = re.search(r'median ([0-9.]+) ms, min ([0-9.]+) ms', out.stdout)
    if not match:
        sys.exit('bench_python: no median in bench_gpt2 output:\n' + out.stdout)
    return float(match.group(1)), float(match.group(2))


def split_ms(attnlab, call, runs):
    """(median, min) of `runs` timed calls after 3 warm-up calls, ms, and the per-call (whole - engine) ms: the
    call's own cost beside its engine part (attnlab._last_run_engine_seconds: forward and logits, GIL released)."""
    for _ in range(3):
        call()
    times, outside = [], []
    for _ in range(runs):
        start = time.perf_counter()
        call()
        whole = time.perf_counter() - start
        times.append(whole * 1e3)
        outside.append((whole - attnlab._attnlab._last_run_engine_seconds()) * 1e3)
    times.sort()
    return times[len(times) // 2], times[0], outside


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


def torch_gpt2(directory, threads):
    """An nn.Module GPT-2 of the checkpoint's weights (pytorch_gpt2.py's forward), hook_z and hook_resid_post as
    nn.Identity modules per block, for register_forward_hook; None when torch does not import."""
    try:
        import torch
        import torch.nn.functional as F
    except ImportError:
        return None
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from pytorch_gpt2 import load_safetensors
    torch.set_num_threads(threads)
    with open(os.path.join(directory, 'config.json'), encoding='utf-8') as f:
        cfg = json.load(f)
    w = load_safetensors(os.path.join(directory, 'model.safetensors'))
    w = {k[len('transformer.'):] if k.startswith('transformer.') else k: v for k, v in w.items()}
    d, h = cfg['n_embd'], cfg['n_head']
    dh, eps = d // h, cfg.get('layer_norm_epsilon', 1e-5)

    class Block(torch.nn.Module):
        def __init__(self, l):
            super().__init__()
            self.p = f'h.{l}.'
            self.hook_z, self.hook_resid_post = torch.nn.Identity(), torch.nn.Identity()

        def forward(self, x, mask):
            p, n = self.p, x.shape[0]
            a = F.layer_norm(x, (d,), w[p + 'ln_1.weight'], w[p + 'ln_1.bias'], eps)
            qkv = torch.addmm(w[p + 'attn.c_attn.bias'], a, w[p + 'attn.c_attn.weight'])
            q, k, v = (t.reshape(n, h, dh).transpose(0, 1) for t in qkv.split(d, dim=1))
            att = torch.softmax((torch.matmul(q, k.transpose(1, 2)) / dh ** 0.5).masked_fill(mask, float('-inf')), -1)
            z = self.hook_z(torch.matmul(att, v).transpose(0, 1))  # [pos, head, d_head], TransformerLens's z
            x = x + torch.addmm(w[p + 'attn.c_proj.bias'], z.reshape(n, d), w[p + 'attn.c_proj.weight'])
            m = F.layer_norm(x, (d,), w[p + 'ln_2.weight'], w[p + 'ln_2.bias'], eps)
            m = F.gelu(torch.addmm(w[p + 'mlp.c_fc.bias'], m, w[p + 'mlp.c_fc.weight']), approximate='tanh')
            return self.hook_resid_post(x + torch.addmm(w[p + 'mlp.c_proj.bias'], m, w[p + 'mlp.c_proj.weight']))

    class Gpt2(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.blocks = torch.nn.ModuleList([Block(l) for l in range(cfg['n_layer'])])

        def forward(self, ids):
            n = ids.shape[0]
            mask = torch.triu(torch.ones(n, n, dtype=torch.bool), 1)
            x = w['wte.weight'][ids] + w['wpe.weight'][:n]
            for block in self.blocks:
                x = block(x, mask)
            return x

    return torch, Gpt2()


def interleaved(calls, runs):
    """Times (ms) of each call, the calls taking turns `runs` times after a warm-up each: a hooked run and the run
    without hooks see the same machine (its load drifts by tens of percent within a minute)."""
    for call in calls:
        call()
    times = [[] for _ in calls]
    for r in range(runs):
        for i in range(len(calls)):
            k = (i + r) % len(calls)
            start = time.perf_counter()
            calls[k]()
            times[k].append((time.perf_counter() - start) * 1e3)
    return times


def added(hooked, plain, label):
    """A hooked run's cost: the median of the differences between it and the run without hooks of the same turn."""
    diffs = sorted(h - p for h, p in zip(hooked, plain))
    ratio = statistics.median(hooked) / statistics.median(plain)
    print(f'{label}: median {statistics.median(hooked):.1f} ms = {ratio:.3f}x the run without hooks; '
          f'{statistics.median(diffs):+.2f} ms the median paired difference over {len(diffs)} turns')


def torch_child(args, ids):
    """The PyTorch side in a process of its own (no attnlab module, whose OpenMP threads may spin): [plain, read,
    write] times of one round, each list starting with torch's thread count."""
    out = subprocess.run([sys.executable, os.path.abspath(__file__), '--torch-child', '--dir', args.dir,
                          '--threads', str(args.threads), '--torch-intra-op', str(args.torch_intra_op), '--runs',
                          str(args.runs), '--ids', ','.join(map(str, ids))],
                         check=True, capture_output=True, text=True)
    return json.loads(out.stdout)


def run_torch_child(args):
    torch, tmodel = torch_gpt2(args.dir, args.torch_intra_op)
    tids = torch.tensor([int(i) for i in args.ids.split(',')])

    def torch_run(handles_of):
        handles = handles_of()
        try:
            with torch.inference_mode():
                tmodel(tids)
        finally:
            for handle in handles:
                handle.remove()

    def torch_zero(module, inputs, out):
        out = out.clone()
        out[:, 0, :] = 0.0
        return out
    readers = lambda: [b.hook_z.register_forward_hook(lambda m, i, o: None) for b in tmodel.blocks] + \
        [b.hook_resid_post.register_forward_hook(lambda m, i, o: None) for b in tmodel.blocks]
    writers = lambda: [b.hook_z.register_forward_hook(torch_zero) for b in tmodel.blocks]
    times = interleaved((lambda: torch_run(list), lambda: torch_run(readers), lambda: torch_run(writers)), args.runs)
    print(json.dumps([[torch.get_num_threads()] + t for t in times]))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--build', default=os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'build'))
    parser.add_argument('--dir', default='/tmp/attnlab-bench-gpt2-small')
    parser.add_argument('--tokens', type=int, default=64)
    parser.add_argument('--runs', type=int, default=20)
    parser.add_argument('--threads', type=int, default=2)
    parser.add_argument('--rounds', type=int, default=3)
    parser.add_argument('--no-torch', action='store_true', help='skip the PyTorch comparison')
    parser.add_argument('--torch-intra-op', type=int, default=1,
                        help="PyTorch's own threads; its products run on OPENBLAS_NUM_THREADS = --threads (1 + 2 was "
                             "PyTorch at its best here, README's bench_gpt2 row; 2 + 2 oversubscribes 2 cores)")
    parser.add_argument('--torch-child', action='store_true', help=argparse.SUPPRESS)
    parser.add_argument('--ids', help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.torch_child:
        os.environ.setdefault('OPENBLAS_NUM_THREADS', str(args.threads))
        return run_torch_child(args)
    os.environ['OMP_NUM_THREADS'] = str(args.threads)  # read when the module's OpenMP starts (first forward pass)
    os.environ.setdefault('OPENBLAS_NUM_THREADS', str(args.threads))  # PyTorch's products (Debian: system BLAS)
    sys.path.insert(0, os.path.join(args.build, 'python'))

    import attnlab  # after OMP_NUM_THREADS is set
    cpp_times(args.build, args.dir, args.tokens, 1, args.threads)  # writes the checkpoint if missing
    cpp, cpp_logits = [], []
    model = attnlab.load(args.dir)
    sentence = model.to_tokens('The quick brown fox jumps over the lazy dog while the cat watches. ')[0].tolist()
    ids = [sentence[i % len(sentence)] for i in range(args.tokens)]

    def read_all():
        _, cache = model.run_with_cache(ids)
        for name in cache.keys():
            cache[name]

    layers = model.cfg.n_layers
    readers = [(f'blocks.{l}.attn.hook_z', lambda x, hook: None) for l in range(layers)] + \
              [(f'blocks.{l}.hook_resid_post', lambda x, hook: None) for l in range(layers)]

    def zero_head0(z, hook):
        z[:, :, 0, :] = 0.0
    writers = [(f'blocks.{l}.attn.hook_z', zero_head0) for l in range(layers)]
    hook_calls = (lambda: model.run_with_hooks(ids, return_type=None),
                  lambda: model.run_with_hooks(ids, fwd_hooks=readers, return_type=None),
                  lambda: model.run_with_hooks(ids, fwd_hooks=writers, return_type=None))
    hooked, torch_rows, torch_threads = [[], [], []], [[], [], []], 0
    bare, with_logits, every_hook, outside_ms = [], [], [], []
    # Rounds alternate the C++ program and the Python calls: a busy machine slows both alike within a round.
    for _ in range(args.rounds):
        cpp.append(cpp_times(args.build, args.dir, args.tokens, args.runs, args.threads))
        cpp_logits.append(cpp_times(args.build, args.dir, args.tokens, args.runs, args.threads, logits=True))
        bare.append(times_ms(lambda: model.run_with_cache(ids, return_type=None), args.runs))
        *whole, outside = split_ms(attnlab, lambda: model.run_with_cache(ids), args.runs)
        with_logits.append(tuple(whole))
        outside_ms.extend(outside)
        every_hook.append(times_ms(read_all, max(3, args.runs // 4)))
        for rows, times in zip(hooked, interleaved(hook_calls, args.runs)):
            rows.extend(times)
        if not args.no_torch:
            for rows, times in zip(torch_rows, torch_child(args, ids)):
                torch_threads = times[0]
                rows.extend(times[1:])
    best = lambda rows: min(r[1] for r in rows)
    median = lambda rows: statistics.median(r[0] for r in rows)
    print(f'attnlab.omp_wait_policy: {attnlab.omp_wait_policy}; OMP_NUM_THREADS={args.threads}')
    for label, rows in ((f'C++ forward (bench_gpt2), GPT-2 small, {args.tokens} tokens', cpp),
                        ('C++ forward + logits (bench_gpt2 --logits 1)', cpp_logits)):
        print(f'{label}, {args.threads} threads, {args.runs} runs x {len(rows)} rounds: min {best(rows):.1f} ms, '
              f'median of the rounds\' medians {median(rows):.1f} ms')
    for label, rows, base, base_label in (
            ('run_with_cache(return_type=None)', bare, cpp, 'the C++ forward'),
            (f'run_with_cache (with logits [1, {args.tokens}, 50257])', with_logits, cpp_logits,
             'the C++ forward + logits'),
            ('run_with_cache + every hook read once', every_hook, cpp_logits, 'the C++ forward + logits')):
        ratios = [r[0] / b[0] for r, b in zip(rows, base)]
        min_ratios = [r[1] / b[1] for r, b in zip(rows, base)]
        print(f'{label}: median {median(rows):.1f} ms, min {best(rows):.1f} ms; per round, median / {base_label}\'s '
              'median: ' + ', '.join(f'{x:.3f}' for x in ratios) + f' (median {statistics.median(ratios):.3f}x); '
              'min / min: ' + ', '.join(f'{x:.3f}' for x in min_ratios) +
              f' (median {statistics.median(min_ratios):.3f}x)')
    outside_ms.sort()
    print(f'run_with_cache (with logits): the call beside its engine part (whole - forward and logits, GIL released), '
          f'over {len(outside_ms)} calls: median {statistics.median(outside_ms):.3f} ms, max {outside_ms[-1]:.3f} ms '
          f'= {statistics.median(outside_ms) / median(with_logits) * 100:.2f} % of the call\'s median')

    plain = hooked[0]
    print(f'run_with_hooks(return_type=None) without hooks: median {statistics.median(plain):.1f} ms = '
          f'{statistics.median(plain) / median(cpp):.2f}x the C++ forward\'s median')
    added(hooked[1], plain, f'  + {len(readers)} hooks that only read (every hook_z and hook_resid_post)')
    added(hooked[2], plain, f'  + a Python hook at every layer\'s hook_z zeroing head 0 ({layers} calls)')
    if torch_rows[0]:
        print(f'PyTorch float32 forward in a process of its own ({torch_threads} intra-op threads, OPENBLAS_NUM_THREADS='
              f'{os.environ["OPENBLAS_NUM_THREADS"]}), same weights and ids: median '
              f'{statistics.median(torch_rows[0]):.1f} ms = '
              f'{statistics.median(torch_rows[0]) / statistics.median(plain):.2f}x run_with_hooks\' median')
        added(torch_rows[1], torch_rows[0], f'  + {2 * layers} register_forward_hook hooks that only read')
        added(torch_rows[2], torch_rows[0], '  + a forward hook at every layer\'s hook_z zeroing head 0')


if __name__ == '__main__':
    main()
