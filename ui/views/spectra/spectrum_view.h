#pragma once
// The spectrum of the selected head: singular values of the attention matrix, of its scores QKᵀ·scale
// (rank ≤ d_head) and of exp(scores) on a log scale with their numerical-rank thresholds, ranks
// printed, and the attention's eigenvalues in the complex plane with the unit circle. Singular
// values and eigenvalues run on two BackgroundJobs (the eigenvalues of a bidirectional head take ~3×
// longer); above kOnDemandTokens tokens they start only when asked, with progress (in a build without
// LAPACK the eigenvalues alone already above autoEigenTokens()).
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>

#include "core/spectra/head_spectrum.h"
#include "ui/plots/spectrum_plot.h"
#include "ui/views/common/background_job.h"
#include "ui/views/common/trace_view.h"

namespace attnlab::ui {

class SpectrumView : public TraceView {
  Q_OBJECT
 public:
  static constexpr int kOnDemandTokens = 1024;
  /// Above this many tokens the eigenvalues wait for their own button, so they never queue behind
  /// typing: kEigenFallbackTokens in a build without LAPACK (Eigen's QR iteration: ~3 s at 512, ~25 s at
  /// 1024). With LAPACK no limit: they come with the singular values (a 1024² head takes ~0.45 s on the
  /// worker), and above kOnDemandTokens both wait for "Compute spectrum".
  static int autoEigenTokens();
  static constexpr int kEigenFallbackTokens = 384;

  explicit SpectrumView(QWidget* parent = nullptr);
  QString viewName() const override { return "spectrum"; }
  QString displayName() const override { return tr("Spectrum"); }
  void showResult(const ResultPtr& result) override;
  void setFontScale(double scale) override;
  bool drawsCross() const override { return true; }

  /// The last spectrum shown (for tests); n = 0 before the first.
  const HeadSpectrum& spectrum() const { return spectrum_; }
  bool eigenvaluesShown() const { return eigenShown_; }
  QString infoText() const { return info_->text(); }

 public slots:
  /// Starts the computation for the current result (what the on-demand button does).
  void compute();
  /// Starts the eigenvalues for the current result (their on-demand button).
  void computeEigenvalues();

 private:
  /// An encoder–decoder's cross stack: the selected cross head's singular values; its eigenvalues are absent (the
  /// map is n_tgt × n_src) and the plot says why.
  void computeCross();
  void showSingularValues(const HeadSpectrum& s);
  void showEigenvalues(const std::vector<std::complex<double>>& ev);
  void updateBusy();

  SingularValuePlot* svPlot_;
  EigenvaluePlot* eigPlot_;
  QLabel* info_;
  QPushButton* computeButton_;
  QPushButton* eigenButton_;
  QProgressBar* progress_;
  BackgroundJob* svdJob_;
  BackgroundJob* eigJob_;
  void dropResult() override { result_.reset(); }
  ResultPtr result_;
  HeadSpectrum spectrum_;
  bool eigenShown_ = false;
  bool svdBusy_ = false, eigBusy_ = false;
  double eigFraction_ = 0;  ///< the eigenvalue job's progress, shown once the singular values are done
};

}  // namespace attnlab::ui
