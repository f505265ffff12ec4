// The repacked weight products of the checkpoint models (core/compute/packed_matrix.h, core/compute/packed_gemm.h):
// y = x·W + b against a double-precision Eigen product, for both stored layouts, every row and column
// remainder of the 32 × 12 micro-kernel, more rows than one cache block, with and without a bias, on one
// thread and on several; the portable kernel against the same reference; and a weight read through
// WeightSource::packed, whose mapped pages are then released, giving the same numbers as the file.
#include <QtTest>

#include <omp.h>

#include <QTemporaryDir>
#include <cstdlib>
#include <cstring>

#include "core/base/errors.h"
#include "core/base/rng.h"
#include "core/checkpoint/hf_weights.h"
#include "core/checkpoint/safetensors.h"
#include "core/checkpoint/safetensors_writer.h"
#include "core/compute/cpu_features.h"
#include "core/compute/packed_gemm.h"
#include "core/compute/packed_matrix.h"
#include "tests/harness/test_registry.h"

using namespace attnlab;

namespace {

Mat gaussian(Eigen::Index rows, Eigen::Index cols, uint64_t seed) {
  Rng rng(seed);
  Mat m(rows, cols);
  for (Eigen::Index i = 0; i < m.size(); ++i) m.data()[i] = static_cast<float>(rng.normal());
  return m;
}

/// Largest |y − (x·W + b)| divided by the bound on float rounding for any summation order,
/// γ_{k+1}·(|x|·|W| + |b|) with γ_k = k·u/(1 − k·u), u = 2⁻²⁴ (Higham, Accuracy and Stability, §3.5).
/// Below 1 means y is as accurate as a float product can be guaranteed to be.
double errorOverBound(const Mat& y, const Mat& x, const Mat& w, const Vec& b) {
  const MatD xd = x.cast<double>(), wd = w.cast<double>();
  MatD ref = xd * wd, scale = xd.cwiseAbs() * wd.cwiseAbs();
  if (b.size()) {
    ref.rowwise() += b.cast<double>().transpose();
    scale.rowwise() += b.cast<double>().cwiseAbs().transpose();
  }
  const double u = std::ldexp(1.0, -24), k = static_cast<double>(x.cols() + 1);
  const double gamma = k * u / (1 - k * u);
  double worst = 0;
  for (Eigen::Index i = 0; i < y.size(); ++i)
    worst = std::max(worst, std::abs(y.data()[i] - ref.data()[i]) / (gamma * scale.data()[i] + 1e-30));
  return worst;
}

/// W [in, out] stored row-major as Conv1D does, or as [out, in] row-major as nn.Linear does.
std::vector<float> stored(const Mat& w, bool outIn) {
  std::vector<float> v(static_cast<std::size_t>(w.size()));
  for (Eigen::Index k = 0; k < w.rows(); ++k)
    for (Eigen::Index j = 0; j < w.cols(); ++j)
      v[static_cast<std::size_t>(outIn ? j * w.rows() + k : k * w.cols() + j)] = w(k, j);
  return v;
}

}  // namespace

class TestPackedMatrix : public QObject {
  Q_OBJECT

 private slots:
  void packingKeepsEveryEntry() {
    const Mat w = gaussian(7, 25, 1);  // 25 columns: two whole panels and one of a single column
    for (bool outIn : {false, true}) {
      const std::vector<float> s = stored(w, outIn);
      const PackedMatrix p =
          outIn ? PackedMatrix::fromOutIn(s.data(), 25, 7) : PackedMatrix::fromInOut(s.data(), 7, 25);
      QCOMPARE(p.inputs(), Eigen::Index(7));
      QCOMPARE(p.outputs(), Eigen::Index(25));
      QVERIFY(p.unpacked() == w);
    }
  }

  void productsMatchDoublePrecision_data() {
    QTest::addColumn<int>("rows");
    QTest::addColumn<int>("inner");
    QTest::addColumn<int>("cols");
    QTest::addColumn<bool>("outIn");
    QTest::addColumn<bool>("bias");
    QTest::addColumn<int>("threads");
    // Rows around the 16- and 32-row groups, columns around the 12-column panel, a 300-row × 3072 case
    // that takes more than one row block (core/compute/packed_gemm.cpp rowBlock) and runs on 2 threads.
    for (int rows : {1, 5, 16, 17, 31, 32, 33, 64, 70})
      for (int cols : {1, 11, 12, 13, 40})
        QTest::addRow("%d×48·48×%d", rows, cols) << rows << 48 << cols << (cols % 2 == 1) << (rows % 2 == 0) << 1;
    QTest::addRow("gpt2 qkv 64×768·768×2304, 2 threads") << 64 << 768 << 2304 << false << true << 2;
    QTest::addRow("bert mlp out 33×3072·3072×768, 2 threads") << 33 << 3072 << 768 << true << true << 2;
    QTest::addRow("300×3072·3072×50, 2 threads") << 300 << 3072 << 50 << false << true << 2;
    QTest::addRow("inner 1") << 20 << 1 << 30 << false << false << 1;
  }

  void productsMatchDoublePrecision() {
    QFETCH(int, rows);
    QFETCH(int, inner);
    QFETCH(int, cols);
    QFETCH(bool, outIn);
    QFETCH(bool, bias);
    QFETCH(int, threads);
    const Mat x = gaussian(rows, inner, 10 + rows), w = gaussian(inner, cols, 20 + cols);
    const Vec b = bias ? Vec(gaussian(cols, 1, 30)) : Vec();
    const std::vector<float> s = stored(w, outIn);
    const PackedMatrix p =
        outIn ? PackedMatrix::fromOutIn(s.data(), cols, inner) : PackedMatrix::fromInOut(s.data(), inner, cols);

    const int previous = omp_get_max_threads();
    omp_set_num_threads(threads);
    const Mat y = p.affine(x, b);
    omp_set_num_threads(previous);
    QCOMPARE(y.rows(), Eigen::Index(rows));
    QCOMPARE(y.cols(), Eigen::Index(cols));
    const double fast = errorOverBound(y, x, w, b);
    QVERIFY2(fast < 1.0, qPrintable(QString("error / bound = %1").arg(fast)));

    // The portable kernel, run directly on the same panels.
    Mat yPortable(rows, cols);
    PackedProduct pp;
    pp.a = x.data();
    pp.lda = rows;
    pp.panels = p.panels();
    pp.bias = bias ? b.data() : nullptr;
    pp.c = yPortable.data();
    pp.ldc = rows;
    pp.rows = rows;
    pp.inner = inner;
    pp.cols = cols;
    packedGemmPortable(pp, 0, (cols + kPanelCols - 1) / kPanelCols);
    const double portable = errorOverBound(yPortable, x, w, b);
    QVERIFY2(portable < 1.0, qPrintable(QString("portable error / bound = %1").arg(portable)));
  }

  // A product split over threads reads one shared copy of x's row groups (packGemmRows); each panel range used to
  // copy them itself. The two must give the same floats, bit for bit, for rows that fill no group, one, several, and
  // several row blocks with a part-filled last group (300 × 3072: blocks of 64 rows; 1031 × 48 is one block of 65
  // groups), and with the portable kernel handed the same copy (on an AVX-512 build its 32-row copy is not the
  // portable kernel's and is dropped, so that half compares two private copies).
  void theKernelIsChosenAtRunTimeForThisCpu() {
    // The package is built for x86-64-v2; the AVX2 and AVX-512 kernels are chosen by the CPU, not by -march.
    const CpuKernel cpu = cpuSupportedKernel();
    const char* asked = std::getenv("ATTNLAB_KERNEL");
    if (!asked) QCOMPARE(cpuKernel(), cpu);
    QCOMPARE(packedGemmHasAvx512(), cpuKernel() == CpuKernel::Avx512);
    QCOMPARE(QString(packedGemmKernel()), QString("packed ") + cpuKernelName(cpuKernel()));
#if defined(__x86_64__)
    // Every x86-64 CPU this project has run on (Zen 3, Zen 4) has AVX2 + FMA: a fast kernel must be in force.
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && !asked) QVERIFY(cpu != CpuKernel::Portable);
#endif
  }

  void sharedRowCopyGivesTheSameFloats_data() {
    QTest::addColumn<int>("rows");
    QTest::addColumn<int>("inner");
    for (int rows : {1, 15, 16, 17, 300}) QTest::addRow("%d×3072", rows) << rows << 3072;
    QTest::addRow("1031×48") << 1031 << 48;
  }
  void sharedRowCopyGivesTheSameFloats() {
    QFETCH(int, rows);
    QFETCH(int, inner);
    const int cols = 50;
    const Mat x = gaussian(rows, inner, 40 + rows), w = gaussian(inner, cols, 41);
    const Vec b = gaussian(cols, 1, 42);
    const std::vector<float> s = stored(w, false);
    const PackedMatrix p = PackedMatrix::fromInOut(s.data(), inner, cols);
    std::vector<float> rowsCopy(packedGemmRowsSize(rows, inner), -1.0f);
    PackedProduct pp;
    pp.a = x.data();
    pp.lda = rows;
    pp.panels = p.panels();
    pp.bias = b.data();
    pp.ldc = rows;
    pp.rows = rows;
    pp.inner = inner;
    pp.cols = cols;
    packGemmRows(pp, rowsCopy.data());
    const Eigen::Index panels = (cols + kPanelCols - 1) / kPanelCols;
    for (const bool portable : {false, true}) {
      Mat own(rows, cols), shared(rows, cols);
      pp.packedRows = nullptr;
      pp.c = own.data();
      portable ? packedGemmPortable(pp, 0, panels) : packedGemm(pp, 0, panels);
      pp.packedRows = rowsCopy.data();
      pp.c = shared.data();
      portable ? packedGemmPortable(pp, 0, panels) : packedGemm(pp, 0, panels);
      QVERIFY2(own == shared, portable ? "portable kernel" : packedGemmKernel());
    }
    const int previous = omp_get_max_threads();
    omp_set_num_threads(2);
    const Mat y = p.affine(x, b);  // the shared copy made inside, both threads
    omp_set_num_threads(previous);
    Mat serial(rows, cols);
    pp.packedRows = nullptr;
    pp.c = serial.data();
    packedGemm(pp, 0, panels);
    QVERIFY(y == serial);
  }

  void emptyAndMisshapenInputs() {
    const Mat w = gaussian(4, 3, 2);
    const std::vector<float> s = stored(w, false);
    const PackedMatrix p = PackedMatrix::fromInOut(s.data(), 4, 3);
    QCOMPARE(p.affine(Mat(0, 4), Vec()).rows(), Eigen::Index(0));  // an empty sentence
    QVERIFY_THROWS_EXCEPTION(std::logic_error, p.affine(Mat(2, 5), Vec()));
    QVERIFY_THROWS_EXCEPTION(std::logic_error, p.affine(Mat(2, 4), Vec(2)));
  }

  void weightsReadFromACheckpointSurviveTheRelease() {
    QTemporaryDir dir;
    const std::string path = dir.filePath("w.safetensors").toStdString();
    // Big enough to span whole pages, so that release() really drops some.
    const Mat w = gaussian(300, 40, 3);
    writeSafetensors(path,
                     {{"c_attn.weight", {300, 40}, stored(w, false)}, {"dense.weight", {40, 300}, stored(w, true)}});
    auto file = std::make_shared<SafetensorsFile>(path);
    WeightSource source(file, {""}, "c_attn.weight", "test");
    const PackedMatrix conv = source.packed("c_attn.weight", 300, 40, WeightSource::Stored::InOut);
    const PackedMatrix linear = source.packed("dense.weight", 40, 300, WeightSource::Stored::OutIn);
    const PackedMatrix missing = source.packed("absent.weight", 3, 3, WeightSource::Stored::InOut);
    QVERIFY(conv.unpacked() == w);
    QVERIFY(linear.unpacked() == w);
    QVERIFY(missing.empty());
    QVERIFY_THROWS_EXCEPTION(InputError, source.finish());  // the missing tensor is named, as matrix() does
    // The released pages come back from the file when read again.
    const float* again = file->floats(*file->find("c_attn.weight"));
    QVERIFY(std::memcmp(again, stored(w, false).data(), sizeof(float) * 300 * 40) == 0);
  }

  void bf16RowsPackedStraightFromTheirBytes() {
    // Rows of bfloat16 bits (a float's upper half) from two "tensors", an unaligned one among them: the
    // packed matrix holds the widened values, past a 2 MB panel block (huge-page storage) too.
    const Eigen::Index in = 700, outA = 500, outB = 300;  // 800 columns × 700 × 4 bytes ≈ 2.2 MB of panels
    const Mat w = gaussian(in, outA + outB, 4);
    std::vector<unsigned char> a(static_cast<std::size_t>(outA * in * 2)),
        b(static_cast<std::size_t>(outB * in * 2) + 1);
    std::vector<const void*> rows;
    Mat widened(in, outA + outB);
    for (Eigen::Index j = 0; j < outA + outB; ++j) {
      unsigned char* row =
          j < outA ? &a[static_cast<std::size_t>(j * in * 2)] : &b[1 + static_cast<std::size_t>((j - outA) * in * 2)];
      rows.push_back(row);
      for (Eigen::Index k = 0; k < in; ++k) {
        float v = w(k, j);
        std::uint32_t bits = 0;
        std::memcpy(&bits, &v, 4);
        const auto h = static_cast<std::uint16_t>(bits >> 16);
        std::memcpy(row + 2 * k, &h, 2);
        bits = std::uint32_t{h} << 16;
        std::memcpy(&v, &bits, 4);
        widened(k, j) = v;
      }
    }
    const PackedMatrix p = PackedMatrix::fromRows(rows, in, StoredFloat::BF16);
    QCOMPARE(p.outputs(), outA + outB);
    QVERIFY(p.unpacked() == widened);
    QVERIFY(widened != w);  // the test really rounds
  }
};

ATTNLAB_TEST_GUILESS_MAIN(TestPackedMatrix)
#include "test_packed_matrix.moc"
