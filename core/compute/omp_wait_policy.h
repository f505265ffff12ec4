#pragma once
// How long OpenMP's idle threads spin before they sleep. libgomp's default, 300,000 pause instructions, is
// 4 ms on this machine's Xeon (13 ns a pause): a thread that waits at a barrier or between parallel regions
// keeps its core that long. On a quiet machine that costs nothing, but beside other work it takes the core
// from the very thread it waits for: the SmolLM2-shape 64-token forward took 1,119 ms on 2 threads next to
// one busy loop per core, against 321 ms on one thread (issue 31). The program asks for 1 ms: that still
// covers nearly every gap between the forward's ~250 parallel regions (bench_busy: quiet within a few % of the
// old spin, where a 50 µs spin cost 20–40 %: the threads slept between regions and had to be woken), and
// wastes a quarter of the old spin while the cores are shared. What mostly keeps a busy machine fast is the
// other half of the policy, one thread while the cores are busy (core/base/contention.h); the shorter spin
// bounds the loss before that kicks in and in the parallel jobs that keep all threads (atlas, spectra).
//
// libgomp reads OMP_WAIT_POLICY and GOMP_SPINCOUNT once, in its own constructor, before main() and before
// any C++ static initialiser of ours; setenv in main is too late, and so is setenv from the executable's
// .preinit_array (which does run first), since glibc sets `environ` afterwards. So the hook in
// omp_wait_policy_hook.cpp, run from .preinit_array before anything is initialised, starts the program again
// (execve of /proc/self/exe, same pid and arguments) with GOMP_SPINCOUNT added. Every program linking
// core/compute (the GUI, the CLI, the benches, the tests) gets it; a user who sets OMP_WAIT_POLICY or
// GOMP_SPINCOUNT keeps theirs. The Python module cannot have that hook (a shared object holds no .preinit_array):
// its package's __init__.py sets the same GOMP_SPINCOUNT before the extension loads libgomp, from the decision and
// the pause timing below (python/spin_probe.cpp).

namespace attnlab {

/// The spin the program asks for when the user set neither variable, in microseconds.
inline constexpr double kOmpSpinMicros = 1000.0;
/// libgomp's own spin when neither variable is set: never spin longer than that.
inline constexpr long long kLibgompDefaultSpinCount = 300000;

/// What to do with libgomp's environment at start-up.
struct OmpWaitChoice {
  bool userSet = false;     ///< OMP_WAIT_POLICY or GOMP_SPINCOUNT given (non-empty): left as is
  long long spinCount = 0;  ///< GOMP_SPINCOUNT to set when !userSet: pauses in spinMicros, within [100, 300,000]
};

/// Pure decision. `waitPolicy`, `spinCount`: the user's OMP_WAIT_POLICY and GOMP_SPINCOUNT (nullptr or "" =
/// unset); `nsPerPause`: the measured cost of one pause instruction (not finite or ≤ 0: libgomp's own estimate,
/// 10 ns, is used).
OmpWaitChoice decideOmpWait(const char* waitPolicy, const char* spinCount, double nsPerPause,
                            double spinMicros = kOmpSpinMicros);

/// ns per pause instruction (what libgomp's spin loop executes, `rep; nop` on x86), measured; 0 elsewhere (unknown).
double measureNsPerPause();

/// What was done at start-up, one line, e.g. "GOMP_SPINCOUNT=76923: 1000 us at 13.0 ns a pause set by the
/// program" or "OMP_WAIT_POLICY=active set by the user: left as is". Empty if the start-up hook did not run.
const char* ompWaitPolicyApplied();

/// The start-up hook's storage for that line (plain zero-initialised memory: written before static initialisers).
inline constexpr int kOmpWaitAppliedSize = 160;
char* ompWaitPolicyAppliedBuffer();

}  // namespace attnlab
