// One or two training threads for the Training view's encoder–decoder tab (issue 33): the milliseconds per step of
// an EncDecTrainer on 1 and on 2 threads at the model sizes the tab offers, measured in the same run (blocks of steps
// alternating between the two trainers, which draw the same batches from the same seed, so both see the same
// lengths), and the ratio 2 threads ÷ 1 thread (medians over the rounds). The work of a step is given as
// parameters × tokens of a batch (batch × (longest source + 1)), the size a thread rule would compare. Run it with
// OMP_WAIT_POLICY=passive too: under load the spinning second thread of OpenMP's default policy is most of the cost.
//   bench_encdec_threads [--rounds N] [--steps N]   (default 5 rounds of 20 steps per trainer and size)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "core/base/errors.h"
#include "core/train/tiny_encdec_trainer.h"

using namespace attnlab;

namespace {

struct Size {
  int layers, heads, d, maxLength;
};

double msPerStep(EncDecTrainer& t, int steps) {
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < steps; ++i) t.step();
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count() / steps;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) try {
  int rounds = 5, steps = 20;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string k = argv[i];
    if (k == "--rounds")
      rounds = std::max(1, std::atoi(argv[i + 1]));
    else if (k == "--steps")
      steps = std::max(1, std::atoi(argv[i + 1]));
    else
      throw InputError("unknown option " + k + " (use --rounds N, --steps N)");
  }
  // The tab's default (1 + 1 layers, d 32, 2 heads, sources up to 10), then larger along each of its controls.
  const std::vector<Size> sizes = {{1, 2, 16, 10}, {1, 2, 32, 10}, {2, 2, 32, 10},  {1, 4, 64, 10}, {2, 4, 64, 10},
                                   {1, 2, 32, 32}, {4, 4, 64, 10}, {2, 8, 128, 10}, {4, 8, 128, 32}};
  std::printf("%-28s %12s %10s %10s %8s\n", "model (enc=dec layers)", "params×tokens", "1 thread", "2 threads",
              "2t ÷ 1t");
  for (const Size& z : sizes) {
    EncDecTrainSettings s;
    s.model.encoderLayers = s.model.decoderLayers = z.layers;
    s.model.heads = z.heads;
    s.model.dModel = z.d;
    s.model.ffn = 2 * z.d;  // the tab's ratio
    s.model.maxLength = z.maxLength;
    s.adam.lr = 1e-2;
    EncDecTrainSettings two = s;
    two.threads = 2;
    EncDecTrainer one(s), pair(two);
    const long long work =
        one.params().parameterCount() * static_cast<long long>(s.batch) * static_cast<long long>(z.maxLength + 1);
    msPerStep(one, 3), msPerStep(pair, 3);  // warm-up: caches, OpenMP's threads
    std::vector<double> a, b;
    for (int r = 0; r < rounds; ++r) {
      a.push_back(msPerStep(one, steps));
      b.push_back(msPerStep(pair, steps));
    }
    const double m1 = median(a), m2 = median(b);
    char name[64];
    std::snprintf(name, sizeof name, "L%d H%d d%d len%d", z.layers, z.heads, z.d, z.maxLength);
    std::printf("%-28s %12lld %8.2f ms %8.2f ms %8.2f\n", name, work, m1, m2, m2 / m1);
    std::fflush(stdout);
  }
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "error: %s\n", e.what());
  return 1;
}
