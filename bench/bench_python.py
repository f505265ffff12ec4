#!/usr/bin/python3
"""The Python module's calling overhead (issue 34): a 64-token GPT-2-small run_with_cache against the C++ forward pass
of bench_gpt2, in the same run (the C++ program before and after the Python timings, the ratio against their mean).

    PYTHONPATH=BUILD/python /usr/bin/python3 bench/bench_python.py [--build BUILD] [--tokens 64] [--runs 20]

bench_gpt2 writes the random GPT-2-small checkpoint to /tmp/attnlab-bench-gpt2-small on its first run. Both sides
run on the same OpenMP threads (--threads, default 2) and the same token ids (bench_gpt2's sentence, repeated).
run_with_cache is timed three ways: without logits (return_type=None: the forward pass and the cache, what
bench_gpt2 times), with the logits ([pos, 50257]: one more product of 64 × 768 × 50257), and with logits and every
hook read once (the maps stacked into [batch, head, query, key] arrays).

run_with_hooks (return_type=None) is timed without hooks, with hooks that only read (every layer's hook_z and
hook_resid_post: fn returns None) and with a hook at every layer's hook_z that zeroes head 0 in place; the costs of
the hooks are differences against the run without hooks of the same round. Unless --no-torch (or torch does not
import), the same weights also run through a PyTorch float32 GPT-2 (bench/pytorch_gpt2.py's forward as nn.Modules,
an nn.Identity where TransformerLens has a HookPoint) with the same hooks through register_forward_hook; set
OPENBLAS_NUM_THREADS to --threads for it (Debian's torch multiplies through the system BLAS: libopenblas0-pthread)."""
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
    import json
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


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--build', default=os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'build'))
    parser.add_argument('--dir', default='/tmp/attnlab-bench-gpt2-small')
    parser.add_argument('--tokens', type=int, default=64)
    parser.add_argument('--runs', type=int, default=20)
    parser.add_argument('--threads', type=int, default=2)
    parser.add_argument('--rounds', type=int, default=3)
    parser.add_argument('--no-torch', action='store_true', help='skip the PyTorch comparison')
    args = parser.parse_args()
    os.environ['OMP_NUM_THREADS'] = str(args.threads)  # read when the module's OpenMP starts (first forward pass)
    os.environ.setdefault('OPENBLAS_NUM_THREADS', str(args.threads))  # PyTorch's products (Debian: system BLAS)
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

    layers = model.cfg.n_layers
    readers = [(f'blocks.{l}.attn.hook_z', lambda x, hook: None) for l in range(layers)] + \
              [(f'blocks.{l}.hook_resid_post', lambda x, hook: None) for l in range(layers)]

    def zero_head0(z, hook):
        z[:, :, 0, :] = 0.0
    writers = [(f'blocks.{l}.attn.hook_z', zero_head0) for l in range(layers)]
    torch_side = None if args.no_torch else torch_gpt2(args.dir, args.threads)
    if torch_side:
        torch, tmodel = torch_side
        tids = torch.tensor(ids)

        def torch_run(handles_of):
            handles = handles_of()
            try:
                with torch.inference_mode():
                    tmodel(tids)
            finally:
                for handle in handles:
                    handle.remove()

        def torch_readers():
            return [b.hook_z.register_forward_hook(lambda m, i, o: None) for b in tmodel.blocks] + \
                   [b.hook_resid_post.register_forward_hook(lambda m, i, o: None) for b in tmodel.blocks]

        def torch_zero(module, inputs, out):
            out = out.clone()
            out[:, 0, :] = 0.0
            return out

        def torch_writers():
            return [b.hook_z.register_forward_hook(torch_zero) for b in tmodel.blocks]
    hooks_plain, hooks_read, hooks_write, torch_plain, torch_read, torch_write = [], [], [], [], [], []
    bare, with_logits, every_hook = [], [], []
    # Rounds alternate the C++ program and the Python calls: a busy machine slows both alike within a round.
    for _ in range(args.rounds):
        bare.append(times_ms(lambda: model.run_with_cache(ids, return_type=None), args.runs))
        with_logits.append(times_ms(lambda: model.run_with_cache(ids), args.runs))
        every_hook.append(times_ms(read_all, max(3, args.runs // 4)))
        hooks_plain.append(times_ms(lambda: model.run_with_hooks(ids, return_type=None), args.runs))
        hooks_read.append(times_ms(lambda: model.run_with_hooks(ids, fwd_hooks=readers, return_type=None), args.runs))
        hooks_write.append(times_ms(lambda: model.run_with_hooks(ids, fwd_hooks=writers, return_type=None), args.runs))
        if torch_side:
            torch_plain.append(times_ms(lambda: torch_run(list), args.runs))
            torch_read.append(times_ms(lambda: torch_run(torch_readers), args.runs))
            torch_write.append(times_ms(lambda: torch_run(torch_writers), args.runs))
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

    def cost(rows, plain, label):
        """A hooked run's medians against the same round's run without hooks (the machine's load drifts)."""
        ratios = sorted(r[0] / p[0] for r, p in zip(rows, plain))
        added = sorted(r[0] - p[0] for r, p in zip(rows, plain))
        print(f'{label}: median {median(rows):.1f} ms; per round {", ".join(f"{x:.3f}" for x in ratios)}x the run '
              f'without hooks (median {ratios[len(ratios) // 2]:.3f}x), {added[len(added) // 2]:+.1f} ms median '
              f'added; mins {best(rows):.1f} vs {best(plain):.1f} ms')
    print(f'run_with_hooks(return_type=None) without hooks: min {best(hooks_plain):.1f} ms, median '
          f'{median(hooks_plain):.1f} ms = {median(hooks_plain) / median(cpp):.2f}x the C++ forward\'s median')
    cost(hooks_read, hooks_plain, f'  + {len(readers)} hooks that only read (hook_z, hook_resid_post)')
    cost(hooks_write, hooks_plain, f'  + a Python hook at every layer\'s hook_z zeroing head 0 ({layers} calls)')
    if torch_side:
        print(f'PyTorch {torch.__version__} float32 forward (same weights and ids, {torch.get_num_threads()} threads, '
              f'OPENBLAS_NUM_THREADS={os.environ.get("OPENBLAS_NUM_THREADS", "unset")}): min {best(torch_plain):.1f} '
              f'ms, median {median(torch_plain):.1f} ms = {median(torch_plain) / median(hooks_plain):.2f}x '
              f'run_with_hooks\' median')
        cost(torch_read, torch_plain, f'  + {2 * layers} register_forward_hook hooks that only read')
        cost(torch_write, torch_plain, '  + a forward hook at every layer\'s hook_z zeroing head 0')

if __name__ == '__main__':
    main()
