#include "core/variants/attention_variant.h"

#include <cmath>
#include <sstream>

#include "core/model/blocks.h"

namespace attnlab {
namespace {

constexpr double kMinusInf = -std::numeric_limits<double>::infinity();
constexpr Eigen::Index kCausalBlock = 64;

/// Sets the entries a query may not see to `value` (−∞ for scores, 0 for similarities).
void applyMask(MatD& m, const AttentionMask& mask, double value) {
  if (mask.full()) return;
  const Eigen::Index n = m.rows();
  for (Eigen::Index i = 0; i < n; ++i) {
    const Eigen::Index lo = mask.first(i), hi = mask.last(i, m.cols());
    if (lo > 0) m.row(i).head(lo).setConstant(value);
    if (hi + 1 < m.cols()) m.row(i).tail(m.cols() - hi - 1).setConstant(value);
  }
}

}  // namespace

MatD divideRows(const MatD& numerator, const VecD& denominator) {
  // A diagonal scaling walks the column-major matrix column by column (vectorised), unlike row loops.
  const VecD inverse = denominator.unaryExpr([](double d) { return d != 0 ? 1.0 / d : 0.0; });
  return inverse.asDiagonal() * numerator;
}

SoftmaxAttention::SoftmaxAttention(bool scaled, double temperature) : scaled_(scaled), temperature_(temperature) {}

std::string SoftmaxAttention::name() const { return scaled_ ? "softmax" : "softmax-unscaled"; }

std::string SoftmaxAttention::describe() const {
  std::ostringstream s;
  s << "softmax(Q·Kᵀ" << (scaled_ ? "/√d" : "") << (temperature_ != 1 ? "/T" : "") << ")";
  if (temperature_ != 1) s << ", T = " << temperature_;
  return s.str();
}

double SoftmaxAttention::logitScale(Eigen::Index dHead) const {
  return (scaled_ ? 1.0 / std::sqrt(static_cast<double>(dHead)) : 1.0) / temperature_;
}

MatD SoftmaxAttention::attention(const MatD& q, const MatD& k, const AttentionMask& mask) const {
  MatD a = (q * k.transpose()) * logitScale(q.cols());  // scores = Q·Kᵀ·c   [n, n]
  applyMask(a, mask, kMinusInf);
  softmaxRowsInPlace(a);  // row max subtracted inside: exact, avoids overflow
  return a;
}

MatD SoftmaxAttention::output(const MatD& q, const MatD& k, const MatD& v, const AttentionMask& mask) const {
  const Eigen::Index n = q.rows();
  const double c = logitScale(q.cols());
  MatD out(n, v.cols());
  VecD w;
  for (Eigen::Index i = 0; i < n; ++i) {
    const Eigen::Index lo = mask.first(i), len = mask.last(i, k.rows()) - lo + 1;
    w.noalias() = k.middleRows(lo, len) * q.row(i).transpose() * c;  // visible scores   [len]
    w = (w.array() - w.maxCoeff()).exp();                            // exact after normalisation
    out.row(i).noalias() = (w.transpose() * v.middleRows(lo, len)) / w.sum();
  }
  return out;
}

MatD KernelAttention::attention(const MatD& q, const MatD& k, const AttentionMask& mask) const {
  const Features f = features(q, k);
  MatD sim = f.q * f.k.transpose();  // sim = φ(Q)·φ(K)ᵀ   [n, n]
  applyMask(sim, mask, 0.0);
  return divideRows(sim, sim.rowwise().sum());
}

MatD KernelAttention::output(const MatD& q, const MatD& k, const MatD& v, const AttentionMask& mask) const {
  const Features f = features(q, k);
  const Eigen::Index n = q.rows(), m = f.q.cols();
  if (mask.full()) {
    const MatD kv = f.k.transpose() * v;             // Σ_j φ(k_j) v_jᵀ   [m', d_v]
    const VecD z = f.k.colwise().sum().transpose();  // Σ_j φ(k_j)        [m']
    return divideRows(f.q * kv, f.q * z);            // [n, d_v] / [n]
  }
  if (mask.window >= 0) {
    // Local window: each query against its 2w+1 visible keys, O(n·w·m').
    MatD out(n, v.cols());
    VecD s;
    for (Eigen::Index i = 0; i < n; ++i) {
      const Eigen::Index lo = mask.first(i), len = mask.last(i, n) - lo + 1;
      s.noalias() = f.k.middleRows(lo, len) * f.q.row(i).transpose();  // sim_i,lo..hi   [len]
      const double den = s.sum();
      if (den != 0)
        out.row(i).noalias() = (s.transpose() * v.middleRows(lo, len)) / den;
      else
        out.row(i).setZero();
    }
    return out;
  }
  // Causal: prefix sums S = Σ_{j<b0} φ(k_j)v_jᵀ, z = Σ_{j<b0} φ(k_j) carried from block to block;
  // inside a block the lower-triangular part is computed directly.
  MatD out(n, v.cols());
  MatD s = MatD::Zero(m, v.cols());
  VecD z = VecD::Zero(m);
  for (Eigen::Index b0 = 0; b0 < n; b0 += kCausalBlock) {
    const Eigen::Index len = std::min(kCausalBlock, n - b0);
    const auto fq = f.q.middleRows(b0, len), fk = f.k.middleRows(b0, len);
    const auto vb = v.middleRows(b0, len);
    MatD local = fq * fk.transpose();  // [len, len]
    local.triangularView<Eigen::StrictlyUpper>().setZero();
    MatD num = fq * s + local * vb;                   // [len, d_v]
    const VecD den = fq * z + local.rowwise().sum();  // [len]
    out.middleRows(b0, len) = divideRows(num, den);
    s.noalias() += fk.transpose() * vb;
    z.noalias() += fk.colwise().sum().transpose();
  }
  return out;
}

}  // namespace attnlab
