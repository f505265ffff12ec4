// Speed targets of the attention-variant comparison (issue #3), as a plain table:
//   1. every variant for n = 64, d_head = 16, m = 64: compared (matrices, outputs, metrics) and drawn
//      (the variants view rendered offscreen) within one frame, 16 ms;
//   2. the linear-attention output path at n = 16384, d_head = 64: under 50 ms;
//   3. for scale, the quadratic path at n = 4096 (which the GUI only ever runs on a worker).
// Times are the best of several runs on one thread (the analyses run Eigen single-threaded).
#include <QApplication>
#include <QImage>
#include <QPainter>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <functional>
#include <string>

#include "core/base/eigen_threads.h"
#include "core/base/rng.h"
#include "core/variants/variant_analysis.h"
#include "ui/views/variants/variants_view.h"

using namespace attnlab;

namespace {

MatD gaussian(Eigen::Index rows, Eigen::Index cols, uint64_t seed, double sigma = 1.0) {
  Rng rng(seed);
  MatD m(rows, cols);
  for (Eigen::Index i = 0; i < rows; ++i)
    for (Eigen::Index j = 0; j < cols; ++j) m(i, j) = sigma * rng.normal();
  return m;
}

double threadCpuMs() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/// Best wall time of `reps` runs; `cpu` gets the best thread CPU time (what the run costs on an idle
/// core: the machine these numbers come from may be shared).
double bestMs(int reps, const std::function<void()>& f, double* cpu = nullptr) {
  double best = 1e300, bestCpu = 1e300;
  for (int r = 0; r < reps; ++r) {
    const double c0 = threadCpuMs();
    const auto t0 = std::chrono::steady_clock::now();
    f();
    best = std::min(best, std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    bestCpu = std::min(bestCpu, threadCpuMs() - c0);
  }
  if (cpu) *cpu = bestCpu;
  return best;
}

double lastCpu = 0;

void row(const char* what, double ms, double target) {
  std::printf("%-62s %9.2f ms wall %9.2f ms cpu", what, ms, lastCpu);
  if (target > 0) std::printf("  %s (target %.0f ms)", std::min(ms, lastCpu) <= target ? "ok" : "SLOW", target);
  std::printf("\n");
}

}  // namespace

int main(int argc, char** argv) {
  qputenv("QT_QPA_PLATFORM", "offscreen");
  QApplication app(argc, argv);
  const SingleThreadedEigen oneThread;

  // 1. All variants at n = 64, d_head = 16, m = 64.
  VariantSettings all;
  all.names = variantNames();
  all.features = 64;
  const MatD q = gaussian(64, 16, 1, 0.5), k = gaussian(64, 16, 2, 0.5), v = gaussian(64, 16, 3);
  VariantComparison c;
  const double compareMs = bestMs(
      20, [&] { c = compareVariants(q, k, v, all, false); }, &lastCpu);
  const double compareCpu = lastCpu;
  QStringList tokens;
  for (int i = 0; i < 64; ++i) tokens << QString("t%1").arg(i);
  ui::VariantsView view;
  view.setAttribute(Qt::WA_DontShowOnScreen);
  view.resize(1600, 1000);
  view.show();
  view.drawComparison(c, tokens);
  QImage img(view.size(), QImage::Format_ARGB32_Premultiplied);
  double drawCpu = 0;
  const double drawMs = bestMs(
      10,
      [&] {
        view.drawComparison(c, tokens);
        QApplication::processEvents();  // the plots' queued replots
        QPainter p(&img);
        view.render(&p);
      },
      &drawCpu);
  // `bench_variants draw`: only the drawing, repeated, for a profiler (perf record).
  if (argc > 1 && std::string(argv[1]) == "draw") {
    for (int i = 0; i < 300; ++i) {
      view.drawComparison(c, tokens);
      QApplication::processEvents();
      QPainter p(&img);
      view.render(&p);
    }
    return 0;
  }
  std::printf("Attention variants: %zu variants, n = 64, d_head = 16, m = 64\n", all.names.size());
  lastCpu = compareCpu;
  row("compare all (both paths, rank, entropy, sparsity, errors)", compareMs, 0);
  lastCpu = drawCpu;
  row("draw the view (16 heatmaps, table, curve) offscreen", drawMs, 0);
  lastCpu = compareCpu + drawCpu;
  row("compare + draw: one frame", compareMs + drawMs, 16);

  // 2. Linear output path at n = 16384, d_head = 64.
  const MatD bq = gaussian(16384, 64, 4, 0.3), bk = gaussian(16384, 64, 5, 0.3), bv = gaussian(16384, 64, 6);
  std::printf("\nEfficient output path, n = 16384, d_head = d_v = 64 (no mask / causal)\n");
  for (const char* name : {"linear-elu", "linear-exp", "linear-relu"}) {
    const VariantPtr var = makeVariant(name, VariantSettings{});
    char label[96];
    std::snprintf(label, sizeof label, "%s output, no mask", name);
    row(label,
        bestMs(
            5, [&] { var->output(bq, bk, bv, AttentionMask{}); }, &lastCpu),
        50);
    AttentionMask causal;
    causal.causal = true;
    std::snprintf(label, sizeof label, "%s output, causal (prefix sums)", name);
    row(label,
        bestMs(
            5, [&] { var->output(bq, bk, bv, causal); }, &lastCpu),
        0);
  }
  VariantSettings perf;
  perf.features = 256;  // m = 4·d_head, Performer's choice
  row("performer (positive, m = 256 = 4d) output, no mask",
      bestMs(
          3, [&] { makeVariant("performer", perf)->output(bq, bk, bv, AttentionMask{}); }, &lastCpu),
      0);

  // 3. The quadratic path, for scale.
  std::printf("\nQuadratic paths, n = 4096, d_head = 64 (worker thread only in the GUI)\n");
  const MatD q4 = bq.topRows(4096), k4 = bk.topRows(4096), v4 = bv.topRows(4096);
  const VariantPtr soft = makeVariant("softmax", VariantSettings{});
  row("softmax explicit n×n matrix + A·V",
      bestMs(
          2, [&] { MatD o = soft->attention(q4, k4, AttentionMask{}) * v4; }, &lastCpu),
      0);
  row("linear-elu explicit n×n matrix + A·V",
      bestMs(
          2, [&] { MatD o = makeVariant("linear-elu", VariantSettings{})->attention(q4, k4, AttentionMask{}) * v4; },
          &lastCpu),
      0);
  row("linear-elu efficient output",
      bestMs(
          3, [&] { makeVariant("linear-elu", VariantSettings{})->output(q4, k4, v4, AttentionMask{}); }, &lastCpu),
      0);
  return 0;
}
