// The start-up hook of omp_wait_policy.h: executables only (a .preinit_array entry, which a shared object may not
// hold). The decision and the pause timing it uses are in omp_wait_policy.cpp, which the Python module's spin
// probe (python/spin_probe.cpp) compiles too.
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "core/compute/omp_wait_policy.h"

namespace attnlab {

namespace {

bool given(const char* v) { return v && *v; }

/// envp's value of `name`, or nullptr.
const char* envValue(char** envp, const char* name) {
  const std::size_t n = std::strlen(name);
  for (char** e = envp; e && *e; ++e)
    if (std::strncmp(*e, name, n) == 0 && (*e)[n] == '=') return *e + n + 1;
  return nullptr;
}

/// Runs from .preinit_array, before libgomp's constructor reads the environment (see the header). glibc sets
/// `environ` only in its own constructor, after this: setenv here would be undone. So the program starts itself
/// again (execve of /proc/self/exe: same pid, same arguments) with GOMP_SPINCOUNT added, and ATTNLAB_OMP_SPIN
/// saying the program set it. Nothing has been initialised yet, so the cost is the dynamic loader's work twice.
void setOmpWaitPolicy(int, char** argv, char** envp) {
  const char* policy = envValue(envp, "OMP_WAIT_POLICY");
  const char* spin = envValue(envp, "GOMP_SPINCOUNT");
  const char* mark = envValue(envp, "ATTNLAB_OMP_SPIN");
  // Ours if the mark names this very count (a user's GOMP_SPINCOUNT beside an inherited mark stays the user's).
  const std::size_t digits = spin ? std::strlen(spin) : 0;
  if (given(spin) && !given(policy) && mark && std::strncmp(mark, spin, digits) == 0 && mark[digits] == ':') {
    std::snprintf(ompWaitPolicyAppliedBuffer(), kOmpWaitAppliedSize, "GOMP_SPINCOUNT=%s set by the program", mark);
    return;
  }
  // A mark that does not match (an empty or changed GOMP_SPINCOUNT beside it): this process is already a restart, or
  // a child of one. It never restarts again: an empty GOMP_SPINCOUNT= read as unset restarted the program over and
  // over, each round adding an entry, until execve failed.
  if (mark) {
    std::snprintf(ompWaitPolicyAppliedBuffer(), kOmpWaitAppliedSize,
                  "libgomp's own spin (ATTNLAB_OMP_SPIN=%s beside GOMP_SPINCOUNT=%s)", mark, spin ? spin : "(unset)");
    return;
  }
  const double ns = measureNsPerPause();
  const OmpWaitChoice c = decideOmpWait(policy, spin, ns);
  if (c.userSet) {
    std::snprintf(ompWaitPolicyAppliedBuffer(), kOmpWaitAppliedSize,
                  "OMP_WAIT_POLICY=%s GOMP_SPINCOUNT=%s set by the user: left as is",
                  given(policy) ? policy : "(unset)", given(spin) ? spin : "(unset)");
    return;
  }
  static char spinVar[64], markVar[96];
  std::snprintf(spinVar, sizeof spinVar, "GOMP_SPINCOUNT=%lld", c.spinCount);
  std::snprintf(markVar, sizeof markVar, "ATTNLAB_OMP_SPIN=%lld: %.0f us at %.1f ns a pause", c.spinCount,
                kOmpSpinMicros, ns);
  std::size_t count = 0;
  for (char** e = envp; e && *e; ++e) ++count;
  char** env = static_cast<char**>(std::malloc((count + 3) * sizeof(char*)));
  if (env) {
    std::size_t k = 0;
    for (std::size_t i = 0; i < count; ++i)
      // An empty GOMP_SPINCOUNT= (unset for the decision) goes: libgomp would read it before the one added below.
      if (std::strncmp(envp[i], "ATTNLAB_OMP_SPIN=", 17) != 0 && std::strncmp(envp[i], "GOMP_SPINCOUNT=", 15) != 0)
        env[k++] = envp[i];
    env[k++] = spinVar;
    env[k++] = markVar;
    env[k] = nullptr;
    execve("/proc/self/exe", argv, env);  // returns only on failure (no /proc)
    std::free(env);
  }
  std::snprintf(ompWaitPolicyAppliedBuffer(), kOmpWaitAppliedSize,
                "could not restart with GOMP_SPINCOUNT=%lld (%s): libgomp's own spin", c.spinCount,
                env ? std::strerror(errno) : "out of memory");
}

}  // namespace

}  // namespace attnlab

// The dynamic loader calls .preinit_array entries of the executable before any shared library's constructor
// (ELF gABI, "Initialization and Termination Functions"); core/compute is a static library, so this lands in
// each program that links it. CMake asks for the anchor so the linker keeps this object (nothing calls it).
extern "C" {
__attribute__((used, section(".preinit_array"))) void (*const attnlab_omp_wait_policy_hook)(int, char**, char**) =
    &attnlab::setOmpWaitPolicy;
void attnlab_omp_wait_policy_anchor() {}
}
