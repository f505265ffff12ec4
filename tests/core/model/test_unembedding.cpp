// Unembedding::logits against the plain product normalise(x)·W_Uᵀ + b on a random W_U whose rows are padded
// (row stride > d) and whose vocabulary is not a whole number of kernel panels: one row (the row-major path)
// and several rows (the tiled kernel over blocks of W_U) agree with it and with each other.
#include <QtTest>

#include <vector>

#include "core/model/unembedding.h"
#include "tests/harness/test_registry.h"

using namespace attnlab;

class TestUnembedding : public QObject {
  Q_OBJECT
 private slots:
  void packedLogitsEqualThePlainProduct() {
    const Eigen::Index vocab = 1237, d = 40, stride = 43;  // 1237 = 103 panels of 12 and one of 1
    std::srand(7);
    const Mat storage = Mat::Random(vocab, stride);
    const Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> w = storage;  // [vocab, stride]
    Unembedding u;
    u.norm = Unembedding::Norm::Layer;
    u.gamma = Vec::Random(d);
    u.beta = Vec::Random(d);
    u.data = w.data();
    u.vocab = vocab;
    u.d = d;
    u.rowStride = stride;
    u.colStride = 1;
    u.bias = Vec::Random(vocab);
    const Mat x = Mat::Random(13, d) * 3.0f;
    const Mat expected = (u.normalise(x) * w.leftCols(d).transpose()).rowwise() + u.bias.transpose();
    const Mat got = u.logits(x);  // 13 ≥ kTiledMinRows rows: the tiled kernel
    QCOMPARE(got.rows(), x.rows());
    QCOMPARE(got.cols(), vocab);
    QVERIFY((got - expected).cwiseAbs().maxCoeff() <= 1e-4f * expected.cwiseAbs().maxCoeff());
    const Mat one = u.logits(x.row(5));  // one row: the row-major view
    QVERIFY((one.row(0) - got.row(5)).cwiseAbs().maxCoeff() <= 1e-4f * expected.cwiseAbs().maxCoeff());
  }
};

ATTNLAB_TEST_APPLESS_MAIN(TestUnembedding)
#include "test_unembedding.moc"
