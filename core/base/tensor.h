#pragma once
// Matrix types shared by the whole core.
// The forward pass runs in float (the precision checkpoints are stored in, and twice the GEMM
// throughput); every analysis (spectra, rank, collapse metrics) runs in double, per DESIGN.md.
#include <Eigen/Dense>

namespace attnlab {

using Mat = Eigen::MatrixXf;  ///< activations and weights, [rows, cols]
using Vec = Eigen::VectorXf;
using RowVec = Eigen::RowVectorXf;
using MatD = Eigen::MatrixXd;  ///< analysis precision
using VecD = Eigen::VectorXd;

}  // namespace attnlab
