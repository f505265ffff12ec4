#include "ui/views/spectra/spectrum_view.h"

#include <QHBoxLayout>
#include <QVBoxLayout>
#include <algorithm>
#include <limits>

#include "ui/plots/flow_layout.h"

#include "core/compute/lapack_spectrum.h"
#include "ui/plots/panel_layout.h"
#include "ui/views/common/encdec_result.h"

namespace attnlab::ui {
namespace {

QString rankLine(const char* what, const Spectrum& s, int maxRank) {
  return QString("%1: numerical rank <b>%2</b> / %3 · effective rank %4")
      .arg(what)
      .arg(s.numericalRank)
      .arg(maxRank)
      .arg(s.effectiveRank, 0, 'f', 2);
}

}  // namespace

SpectrumView::SpectrumView(QWidget* parent) : TraceView(parent) {
  svPlot_ = new SingularValuePlot;
  eigPlot_ = new EigenvaluePlot;
  info_ = new QLabel;
  info_->setTextFormat(Qt::RichText);
  info_->setWordWrap(true);
  info_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  computeButton_ = new QPushButton(tr("Compute spectrum"));
  computeButton_->setObjectName("computeSpectrum");
  computeButton_->hide();
  eigenButton_ = new QPushButton(tr("Compute eigenvalues"));
  eigenButton_->setObjectName("computeEigenvalues");
  eigenButton_->hide();
  progress_ = new QProgressBar;
  progress_->setRange(0, 100);
  progress_->setMinimumWidth(200);  // else the info text squeezes it to a sliver ("singular\nvalues… 10%")
  progress_->setMaximumWidth(220);
  progress_->hide();
  svdJob_ = new BackgroundJob(this);
  eigJob_ = new BackgroundJob(this);

  // Singular values beside the eigenvalues when there is room, stacked when not; the buttons wrap under the text.
  auto* plots = new PanelLayout(380, 280);
  plots->addWidget(svPlot_);
  plots->addWidget(eigPlot_);
  auto* buttons = new FlowLayout;
  buttons->addWidget(computeButton_);
  buttons->addWidget(eigenButton_);
  buttons->addWidget(progress_);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(2, 2, 2, 2);
  layout->addLayout(plots, 1);
  layout->addWidget(info_);
  layout->addLayout(buttons);

  connect(computeButton_, &QPushButton::clicked, this, &SpectrumView::compute);
  connect(eigenButton_, &QPushButton::clicked, this, &SpectrumView::computeEigenvalues);
  connect(svdJob_, &BackgroundJob::busyChanged, this, [this](bool b) {
    svdBusy_ = b;
    updateBusy();
  });
  connect(eigJob_, &BackgroundJob::busyChanged, this, [this](bool b) {
    eigBusy_ = b;
    updateBusy();
  });
  connect(svdJob_, &BackgroundJob::progress, this, [this](double f) { progress_->setValue(int(30 * f)); });
  connect(eigJob_, &BackgroundJob::progress, this, [this](double f) {
    eigFraction_ = f;
    updateBusy();
  });
  svPlot_->showMessage(tr("No model run yet"));
}

void SpectrumView::showResult(const ResultPtr& result) {
  result_ = result;
  if (!result || !result->ok()) return;
  if (showsCross(*result)) {
    computeCross();
    return;
  }
  const int n = result->trace().tokenCount();
  eigenButton_->hide();
  if (n > kOnDemandTokens) {
    svdJob_->cancel();
    eigJob_->cancel();
    svPlot_->showMessage(tr("%1 tokens: the %1×%1 spectrum takes a while.\nPress “Compute spectrum”.").arg(n));
    eigPlot_->setEigenvalues({});
    eigPlot_->setTitle(tr("Eigenvalues"));  // none yet: not the previous sentence's radius
    info_->setText(tr("Spectrum on demand above %1 tokens.").arg(kOnDemandTokens));
    computeButton_->show();
    return;
  }
  computeButton_->hide();
  compute();
}

void SpectrumView::compute() {
  if (!result_ || !result_->ok()) return;
  const ResultPtr r = result_;
  const int l = r->layer(), h = r->head();
  computeButton_->hide();
  svdJob_->run<HeadSpectrum>(
      [r, l, h](const RunControl& c) {
        return headSpectrum(r->trace().layers[l].heads[h], r->trace().causal, c, false);
      },
      [this](const HeadSpectrum& s) { showSingularValues(s); },
      [this](const QString& e) { info_->setText(tr("Spectrum failed: %1").arg(e)); });
  eigenShown_ = false;
  const int n = r->trace().tokenCount();
  if (n > autoEigenTokens()) {
    eigJob_->cancel();
    eigPlot_->showMessage(tr("%1 tokens: the eigenvalues take seconds.\nPress “Compute eigenvalues”.").arg(n));
    eigenButton_->show();
    return;
  }
  computeEigenvalues();
}

void SpectrumView::computeCross() {
  // A cross map is n_tgt × n_src: its singular values are defined (rank ≤ min(n_tgt, n_src), the scores' ≤ d_head
  // too), its eigenvalues are not (A·x = λ·x needs x and A·x in one space; A maps source to target). Translations are
  // short: no on-demand button.
  const ResultPtr r = result_;
  const HeadTrace* head = crossHead(*r, r->layer(), r->head());
  computeButton_->hide();
  eigenButton_->hide();
  eigJob_->cancel();
  eigenShown_ = false;
  eigPlot_->setEigenvalues({});
  eigPlot_->setTitle(tr("Eigenvalues"));
  eigPlot_->showMessage(tr("No eigenvalues:\n%1 × %2 (target × source)\nis not square")
                            .arg(head->attention.rows())
                            .arg(head->attention.cols()));
  svdJob_->run<HeadSpectrum>([r, head](const RunControl& c) { return headSpectrum(*head, false, c, false); },
                             [this](const HeadSpectrum& s) { showSingularValues(s); },
                             [this](const QString& e) { info_->setText(tr("Spectrum failed: %1").arg(e)); });
}

void SpectrumView::computeEigenvalues() {
  if (!result_ || !result_->ok()) return;
  const ResultPtr r = result_;
  const int l = r->layer(), h = r->head();
  eigenButton_->hide();
  eigFraction_ = 0;
  eigJob_->run<std::vector<std::complex<double>>>(
      [r, l, h](const RunControl& c) {
        c.checkpoint(0);
        const MatD a = headMatricesD(r->trace().layers[l].heads[h], r->trace().causal).attention;
        c.checkpoint(0.05);
        return eigenvalues(a, c.part(0.05, 1.0));
      },
      [this](const std::vector<std::complex<double>>& ev) { showEigenvalues(ev); },
      [this](const QString& e) { eigPlot_->showMessage(tr("Eigenvalues failed: %1").arg(e)); });
}

void SpectrumView::showSingularValues(const HeadSpectrum& s) {
  spectrum_.n = s.n;
  spectrum_.dHead = s.dHead;
  spectrum_.attention.singularValues = s.attention.singularValues;
  spectrum_.attention.threshold = s.attention.threshold;
  spectrum_.attention.numericalRank = s.attention.numericalRank;
  spectrum_.attention.effectiveRank = s.attention.effectiveRank;
  spectrum_.scores = s.scores;
  spectrum_.expScores = s.expScores;
  const int l = result_->layer(), h = result_->head();
  const HeadTrace* cross = crossHead(*result_, l, h);
  // A cross map's shape: n_tgt rows × n_src columns; its rank is at most the smaller.
  const int keys = cross ? static_cast<int>(cross->attention.cols()) : s.n, maxRank = std::min(s.n, keys);
  const QString shape = cross ? tr("%1 target × %2 source").arg(s.n).arg(keys) : tr("n = %1").arg(s.n);
  svPlot_->clearAll();
  svPlot_->setTitle(tr("Singular values · layer %1 · head %2 · %3, head size %4%5")
                        .arg(l)
                        .arg(h)
                        .arg(shape)
                        .arg(s.dHead)
                        .arg(stackTag(*result_)));
  svPlot_->addSpectrum(tr("scores QKᵀ·scale (rank %1)").arg(s.scores.numericalRank), s.scores.singularValues,
                       s.scores.threshold, seriesColor(5));
  svPlot_->addSpectrum(tr("exp(scores) (rank %1)").arg(s.expScores.numericalRank), s.expScores.singularValues,
                       s.expScores.threshold, seriesColor(2));
  svPlot_->addSpectrum(tr("attention (rank %1)").arg(s.attention.numericalRank), s.attention.singularValues,
                       s.attention.threshold, seriesColor(1));
  svPlot_->addVerticalMarker(s.dHead + 0.5, tr("head size %1").arg(s.dHead), QColor(90, 90, 90));
  svPlot_->fitRanges();
  QStringList lines;
  lines << rankLine("attention", s.attention, maxRank)
        << rankLine("scores QKᵀ·scale", s.scores, std::min(maxRank, s.dHead))
        << rankLine("exp(scores)", s.expScores, maxRank);
  lines << tr("Dashed lines: rank thresholds σₘₐₓ·n·ε (numpy's matrix_rank). exp lifts the scores' rank above "
              "the head size; softmax only rescales rows, so the attention has the rank of exp(scores)%1.")
               .arg(result_->trace().causal && !cross ? tr(" before the causal mask") : QString());
  if (cross) lines << tr("Cross-attention: no eigenvalues, the map is not square (target rows × source columns).");
  info_->setText(lines.join("<br>"));
}

void SpectrumView::showEigenvalues(const std::vector<std::complex<double>>& ev) {
  spectrum_.attention.eigenvalues = ev;
  eigenShown_ = true;
  eigPlot_->setTitle(tr("Eigenvalues · spectral radius %1").arg(spectralRadius(ev), 0, 'f', 6));
  eigPlot_->setEigenvalues(ev);
}

void SpectrumView::updateBusy() {
  const bool busy = svdBusy_ || eigBusy_;
  progress_->setVisible(busy && result_ && result_->ok() && result_->trace().tokenCount() > 256);
  progress_->setFormat(svdBusy_ ? tr("singular values… %p%") : tr("eigenvalues… %p%"));
  if (!svdBusy_) progress_->setValue(eigBusy_ ? int(30 + 70 * eigFraction_) : 100);
}

int SpectrumView::autoEigenTokens() {
  return lapackAvailable() ? std::numeric_limits<int>::max() : kEigenFallbackTokens;
}

void SpectrumView::setFontScale(double scale) {
  svPlot_->setFontScale(scale);
  eigPlot_->setFontScale(scale);
  QFont f = info_->font();
  f.setPointSizeF(9 * scale);
  info_->setFont(f);
}

}  // namespace attnlab::ui
