#pragma once
// Eigen parallelises large products with OpenMP. For the small matrices of an analysis (n of a
// sentence, d_head, m ≤ 4096) the fork/join costs more than it saves, and on a loaded machine the
// spinning threads make a 0.5 s analysis take 20 s. The guard limits the *calling thread's* OpenMP
// team to one thread (OpenMP's nthreads-var is per thread) and restores it on exit.
#include <omp.h>

namespace attnlab {

class SingleThreadedEigen {
 public:
  SingleThreadedEigen() : previous_(omp_get_max_threads()) { omp_set_num_threads(1); }
  ~SingleThreadedEigen() { omp_set_num_threads(previous_); }
  SingleThreadedEigen(const SingleThreadedEigen&) = delete;
  SingleThreadedEigen& operator=(const SingleThreadedEigen&) = delete;

 private:
  int previous_;
};

}  // namespace attnlab
