#include "core/atlas/copying_score.h"

#include <algorithm>
#include <cmath>
#include <complex>
#include <limits>
#include <vector>

#include "core/compute/eigen_decompositions.h"

namespace attnlab {

Mat tokenCircuit(const Model& model) {
  const Unembedding* u = model.unembedding();
  const UnembeddingView e = model.tokenEmbeddings();
  if (!u || !u->data || !e.data() || e.cols() != u->d) return {};
  const UnembeddingView w = u->weights();  // [vocab, d]
  const Eigen::Index vocab = std::min(w.rows(), e.rows()), d = e.cols(), block = 4096;
  const int blocks = static_cast<int>((vocab + block - 1) / block);
  Mat g = Mat::Zero(d, d);
  // Strided views are copied a block at a time so the product runs on dense panels; the blocks are split over the
  // OpenMP threads, each summing into its own G (Eigen's own threading is off for the core).
#pragma omp parallel
  {
    Mat part = Mat::Zero(d, d);
#pragma omp for schedule(dynamic)
    for (int b = 0; b < blocks; ++b) {
      const Eigen::Index t = b * block, rows = std::min(block, vocab - t);
      const Mat wu = w.middleRows(t, rows), we = e.middleRows(t, rows);
      part.noalias() += wu.transpose() * we;
    }
#pragma omp critical
    g += part;
  }
  return g;
}

double copyingScore(const MatD& circuit) {
  std::vector<std::complex<double>> lambda;
  if (!eigenEigenvalues(circuit, lambda)) return std::numeric_limits<double>::quiet_NaN();
  double modulus = 0, real = 0;
  for (const std::complex<double>& l : lambda) {
    modulus += std::abs(l);
    real += l.real();
  }
  return modulus > 0 ? real / modulus : std::numeric_limits<double>::quiet_NaN();
}

HeadGrid copyingScores(const Model& model, const RunControl& control) {
  const ModelInfo info = model.info();
  HeadGrid grid(static_cast<std::size_t>(info.layers),
                std::vector<double>(static_cast<std::size_t>(info.heads), std::numeric_limits<double>::quiet_NaN()));
  Mat wv, wo;
  if (!model.ovCircuitWeights(0, wv, wo)) return grid;
  const Mat g = tokenCircuit(model);
  if (g.size() == 0) return grid;
  const int dh = info.dHead, kvHeads = info.kvHeads > 0 ? info.kvHeads : info.heads;
  for (int l = 0; l < info.layers; ++l) {
    control.checkpoint(static_cast<double>(l) / info.layers);
    if (!model.ovCircuitWeights(l, wv, wo)) continue;
    const Mat gv = g * wv;  // [d, H_kv·d_head]
    for (int h = 0; h < info.heads; ++h) {
      const int kv = h / (info.heads / kvHeads);
      const MatD circuit = (wo.middleRows(static_cast<Eigen::Index>(h) * dh, dh).cast<double>() *
                            gv.middleCols(static_cast<Eigen::Index>(kv) * dh, dh).cast<double>());
      grid[static_cast<std::size_t>(l)][static_cast<std::size_t>(h)] = copyingScore(circuit);
    }
  }
  control.checkpoint(1.0);
  return grid;
}

}  // namespace attnlab
