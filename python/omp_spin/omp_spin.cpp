// attnlab._omp_spin: the GOMP_SPINCOUNT the program's executables set at start-up (core/compute/omp_wait_policy.h),
// for the package's __init__.py to set before the extension loads libgomp (which reads it once, when it is loaded).
// Its own small extension, without OpenMP: importing it must not load libgomp.
#include <pybind11/pybind11.h>

#include <string>

#include "core/compute/omp_wait_policy.h"

namespace py = pybind11;

PYBIND11_MODULE(_omp_spin, m) {
  m.doc() = "The program's OpenMP spin decision (core/compute/omp_wait_policy.h), without loading libgomp.";
  m.def(
      "decide",
      [](const std::string& waitPolicy, const std::string& spinCount) {
        const double ns = attnlab::measureNsPerPause();
        const attnlab::OmpWaitChoice c = attnlab::decideOmpWait(waitPolicy.c_str(), spinCount.c_str(), ns);
        return py::make_tuple(c.userSet, c.spinCount, ns, attnlab::kOmpSpinMicros);
      },
      py::arg("omp_wait_policy"), py::arg("gomp_spincount"),
      "(user_set, spin_count, ns_per_pause, spin_micros): the executables' decision for these values of "
      "OMP_WAIT_POLICY and GOMP_SPINCOUNT (\"\" = unset), the pause timed as they time it.");
}
