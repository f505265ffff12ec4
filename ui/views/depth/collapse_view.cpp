#include "ui/views/depth/collapse_view.h"

#include <QComboBox>
#include <QCoreApplication>
#include <QGridLayout>
#include <QSignalBlocker>
#include <QSlider>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

#include <qcustomplot.h>

#include "core/session/params_json.h"
#include "ui/plots/math_text.h"
#include "ui/plots/matrix_plot.h"
#include "ui/plots/panel_layout.h"
#include "ui/plots/plot_titles.h"
#include "ui/views/depth/collapse_controls.h"
#include "ui/views/depth/collapse_plotting.h"

namespace attnlab::ui {
namespace {

constexpr int kMaxHeadsShown = 8;

/// What the curves depend on: the collapse settings without the inspector's and the paths' fields,
/// plus the sentence when it is the input.
std::string curvesKey(const Params& p) {
  nlohmann::json j = toJson(p.collapse);
  j.erase("inspect_depth");
  j.erase("inspect_config");
  j.erase("path_samples");
  if (p.collapse.input == CollapseInput::Sentence)
    j["sentence"] = {p.sentence, p.lowercase, toString(p.model.position), p.model.seed};
  return j.dump();
}

std::string inspectKey(const Params& p) {
  return curvesKey(p) + "|" + std::to_string(p.collapse.inspectDepth) + "|" + toString(p.collapse.inspectConfig);
}

QStringList labels(const std::vector<std::string>& tokens) {
  QStringList l;
  for (const std::string& t : tokens) l << QString::fromStdString(t);
  return l;
}

QCustomPlot* newPlot(const QString& title) {
  auto* plot = new QCustomPlot;
  plot->plotLayout()->insertRow(0);
  plot->plotLayout()->addElement(0, 0, new QCPTextElement(plot, title, QFont("sans", 10, QFont::Bold)));
  plot->setMinimumSize(220, 160);
  return plot;
}

/// Sets the title, broken at its " · " separators into lines that fit the plot's width beside its legend:
/// QCPTextElement does not wrap, and at a slide's width (960 px) one long line widened the plot's first column
/// until the legend was pushed out of the figure.
void setPlotTitle(QCustomPlot* plot, const QString& title) {
  auto* t = qobject_cast<QCPTextElement*>(plot->plotLayout()->element(0, 0));
  if (!t) return;
  const bool legendBeside = plot->legend && plot->legend->visible() && plot->legend->layout() == plot->plotLayout();
  const int room =
      std::max(120, plot->width() - (legendBeside ? plot->legend->minimumOuterSizeHint().width() : 0) - 16);
  t->setText(wrapTitle(title, t->font(), room));
}

}  // namespace

CollapseView::CollapseView(QWidget* parent) : TraceView(parent), curvesJob_(this), inspectJob_(this) {
  controls_ = new CollapseControls;
  reading_ = new QLabel(tr("Computing the deep stacks…"));
  reading_->setWordWrap(true);
  reading_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  status_ = new QLabel;
  status_->setStyleSheet("color: #b2182b;");

  curves_ = newPlot(tr("Relative residual ‖res(Xₗ)‖ / ‖Xₗ‖"));
  makeLogAxis(curves_->yAxis);
  curves_->xAxis->setLabel(tr("layer l"));
  curves_->yAxis->setLabel(tr("relative residual (log)"));
  // The legend sits right of the plot: inside it would hide curves wherever they run.
  curves_->legend->setVisible(true);
  curves_->axisRect()->insetLayout()->take(curves_->legend);
  curves_->plotLayout()->addElement(1, 1, curves_->legend);
  curves_->plotLayout()->setColumnStretchFactor(1, 0.001);
  curves_->legend->setBorderPen(Qt::NoPen);

  inspectConfig_ = new QComboBox;
  for (StackConfig c : CollapseSettings::allStackConfigs())
    inspectConfig_->addItem(attnlab::displayName(c), toString(c));
  inspectConfig_->setToolTip(tr("The stack whose layer is inspected below (its first seed)."));
  inspectDepth_ = new QSlider(Qt::Horizontal);
  inspectDepth_->setToolTip(tr("The depth l inspected below; marked on the curves by a vertical line."));
  inspectLabel_ = new QLabel;
  cosine_ = new MatrixPlot;
  cosine_->setColorMap(ColorMap::Diverging);
  cosine_->setRangeMode(MatrixPlot::Range::Symmetric);
  singular_ = newPlot(tr("Singular values σᵢ/σ₁"));
  makeLogAxis(singular_->yAxis);
  singular_->xAxis->setLabel(tr("index i"));
  auto* attentionBox = new QWidget;
  attentionGrid_ = new QGridLayout(attentionBox);
  attentionGrid_->setContentsMargins(0, 0, 0, 0);
  attentionGrid_->setSpacing(2);

  auto* inspectBar = new QHBoxLayout;
  auto *inspectWord = new QLabel(tr("Inspect")), *atDepth = new QLabel(tr("at depth"));
  inspectBar->addWidget(inspectWord);
  inspectBar->addWidget(inspectConfig_);
  inspectBar->addWidget(atDepth);
  inspectBar->addWidget(inspectDepth_, 1);
  inspectBar->addWidget(inspectLabel_);
  auto* panels = new PanelLayout(260, 220);  // three panels in a row, or wrapped on a narrow view
  panels->addWidget(cosine_);
  panels->addWidget(singular_);
  panels->addWidget(attentionBox);
  auto* inspector = inspector_ = new QWidget;
  auto* inspectorLayout = new QVBoxLayout(inspector);
  inspectorLayout->setContentsMargins(0, 0, 0, 0);
  inspectorLayout->addLayout(inspectBar);
  inspectorLayout->addLayout(panels, 1);

  // The curves above the inspector, without a splitter: a splitter ignores the inspector's wrapped height, and
  // on a 1280 × 720 projector its panels were squashed instead of the page scrolling.
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(2, 2, 2, 2);
  layout->addWidget(controls_);
  layout->addWidget(reading_);
  layout->addWidget(status_);
  layout->addWidget(curves_, 3);
  layout->addWidget(inspector, 2);
  // A figure holds the plots, not the controls (the curves' title names the settings, the inspector's
  // label the stack and depth).
  for (QWidget* w : std::initializer_list<QWidget*>{controls_, inspectWord, inspectConfig_, atDepth, inspectDepth_})
    w->setProperty(kScreenOnlyProperty, true);
  setFontScale(1.0);

  connect(controls_, &CollapseControls::settingsEdited, this, &CollapseView::requestSettings);
  connect(inspectDepth_, &QSlider::valueChanged, this, [this](int depth) {
    if (!result_) return;
    CollapseSettings s = result_->params.collapse;
    s.inspectDepth = depth;
    requestSettings(s);
  });
  connect(inspectConfig_, qOverload<int>(&QComboBox::currentIndexChanged), this, [this](int) {
    if (!result_) return;
    CollapseSettings s = result_->params.collapse;
    s.inspectConfig = parseStackConfig(inspectConfig_->currentData().toString().toStdString());
    requestSettings(s);
  });
  connect(&curvesJob_, &BackgroundJob::progress, this,
          [this](double f) { status_->setText(tr("computing the stacks… %1%").arg(int(f * 100))); });
}

void CollapseView::requestSettings(const CollapseSettings& s) {
  if (!result_) return;
  Params p = result_->params;
  p.collapse = s;
  emit paramsRequested(p);
}

void CollapseView::showResult(const ResultPtr& result) {
  if (!result) return;
  result_ = result;
  const Params& p = result->params;
  controls_->setSettings(p.collapse);
  {
    const QSignalBlocker b1(inspectDepth_), b2(inspectConfig_);
    inspectDepth_->setRange(0, p.collapse.depth);
    inspectDepth_->setValue(std::min(p.collapse.inspectDepth, p.collapse.depth));
    inspectConfig_->setCurrentIndex(inspectConfig_->findData(QString(toString(p.collapse.inspectConfig))));
  }
  if (curvesKey(p) != curvesKey_) {
    curvesKey_ = curvesKey(p);
    status_->setText(tr("computing the stacks…"));
    curvesJob_.run<std::shared_ptr<const CollapseResult>>(
        [p](const RunControl& c) { return std::make_shared<const CollapseResult>(runCollapse(p, c)); },
        [this](const std::shared_ptr<const CollapseResult>& r) {
          collapse_ = r;
          status_->clear();
          drawCurves();
        },
        [this](const QString& error) { status_->setText(tr("⚠ %1").arg(error)); });
  } else {
    drawCurves();  // only the inspected depth moved: its marker follows
  }
  if (inspectKey(p) != inspectKey_) {
    inspectKey_ = inspectKey(p);
    inspectJob_.run<std::shared_ptr<const LayerInspection>>(
        [p](const RunControl& c) { return std::make_shared<const LayerInspection>(inspectCollapse(p, c)); },
        [this](const std::shared_ptr<const LayerInspection>& r) {
          inspection_ = r;
          drawInspection();
        },
        [this](const QString& error) { status_->setText(tr("⚠ %1").arg(error)); });
  }
}

void CollapseView::drawCurves() {
  curves_->clearGraphs();
  curves_->clearItems();
  if (!collapse_) return;
  const CollapseSettings& s = collapse_->settings;
  double lo = 1.0, hi = 1.0;
  for (const CollapseCurve& c : collapse_->curves) {
    std::vector<double> x(c.median.size());
    for (std::size_t l = 0; l < x.size(); ++l) x[l] = static_cast<double>(l);
    addBandCurve(curves_, x, c.median, c.min, c.max, configColor(c.config), attnlab::displayName(c.config));
    for (double v : c.min) lo = std::min(lo, std::max(v, kLogFloor));
    for (double v : c.max) hi = std::max(hi, v);
    if (c.stoppedAt >= 0) {
      // The run left the double range: the curve ends with a cross and says why, nothing past it.
      auto* mark = new QCPItemText(curves_);
      mark->position->setCoords(std::max(0, c.validDepth()),
                                c.median.empty() ? 1.0 : std::max(c.median.back(), kLogFloor));
      mark->setText(tr("✕ %1 at layer %2").arg(QString::fromStdString(c.stopReason)).arg(c.stoppedAt));
      mark->setColor(configColor(c.config));
      mark->setPositionAlignment(Qt::AlignLeft | Qt::AlignVCenter);
    }
  }
  auto* threshold = new QCPItemStraightLine(curves_);
  threshold->point1->setCoords(0, kCollapseThreshold);
  threshold->point2->setCoords(1, kCollapseThreshold);
  threshold->setPen(QPen(Qt::gray, 1, Qt::DashLine));
  auto* thresholdLabel = new QCPItemText(curves_);
  thresholdLabel->position->setCoords(s.depth, kCollapseThreshold);
  thresholdLabel->setPositionAlignment(Qt::AlignRight | Qt::AlignBottom);
  thresholdLabel->setText(tr("rank 1 (< 10⁻⁶)"));
  thresholdLabel->setColor(Qt::gray);
  auto* floorLabel = new QCPItemText(curves_);
  floorLabel->position->setType(QCPItemPosition::ptAxisRectRatio);
  floorLabel->position->setCoords(1, 1);
  floorLabel->setPositionAlignment(Qt::AlignRight | Qt::AlignBottom);
  floorLabel->setText(tr("exact 0 is drawn at 10⁻¹⁸"));
  floorLabel->setColor(Qt::gray);
  const int inspect = std::min(result_ ? result_->params.collapse.inspectDepth : 0, s.depth);
  auto* marker = new QCPItemStraightLine(curves_);
  marker->point1->setCoords(inspect, 1);
  marker->point2->setCoords(inspect, 2);
  marker->setPen(QPen(QColor(0x33, 0x33, 0x33), 1.2, Qt::DotLine));
  curves_->xAxis->setRange(0, std::max(1, s.depth));
  curves_->yAxis->setRange(std::max(kLogFloor, lo / 10), hi * 3);
  setPlotTitle(curves_, tr("Relative residual ‖res(Xₗ)‖/‖Xₗ‖ against depth\n%1 norm · median and min–max over %2 %3 · "
                           "%4 init%9 · n %5, d %6, %7 heads · %8 attention")
                            .arg(toString(s.norm))
                            .arg(s.seeds)
                            .arg(s.input == CollapseInput::Random ? tr("seeds") : tr("weight seeds"))
                            .arg(toString(s.init))
                            .arg(collapse_->tokens.size())
                            .arg(s.dModel)
                            .arg(s.heads)
                            .arg(QString::fromStdString(s.variant))
                            .arg(s.mlpGain == 1.0 ? QString() : tr(", MLP gain %1").arg(s.mlpGain)));
  reading_->setText(QString::fromStdString(collapse_->reading));
  // Room for the legend beside the curves and the title above them: at a 16:9 slide's size the splitter gave the
  // plot ~190 px and clipped the legend's last entries and the title's lines.
  const QCPLayoutElement* title = curves_->plotLayout()->element(0, 0);
  const int titleHeight = title ? title->minimumOuterSizeHint().height() : 0;
  curves_->setMinimumHeight(std::max({static_cast<int>(260 * std::max(1.0, 0.8 * fontScale_)),
                                      titleHeight + curves_->legend->minimumOuterSizeHint().height() + 24}));
  curves_->replot(QCustomPlot::rpQueuedReplot);
}

void CollapseView::drawInspection() {
  if (!inspection_) return;
  const LayerInspection& in = *inspection_;
  const QStringList tokens = labels(in.tokens);
  const QString where = "X" + subscript(QString::number(in.depth));  // X₃: the stream after layer 3
  inspectLabel_->setText(
      tr("%1 · l = %2 · residual %3").arg(inspectConfig_->currentText()).arg(in.depth).arg(in.residual, 0, 'g', 3));
  cosine_->setTitle(tr("Token cosine similarity of %1").arg(where));
  cosine_->setMatrix(in.cosine.cast<float>(), tokens, tokens);

  singular_->clearGraphs();
  QVector<double> x, y;
  const double top = in.singular.size() > 0 ? in.singular(0) : 0;
  for (Eigen::Index i = 0; i < in.singular.size(); ++i) {
    x << static_cast<double>(i + 1);
    y << (top > 0 ? std::max(in.singular(i) / top, kLogFloor) : kLogFloor);
  }
  QCPGraph* g = singular_->addGraph();
  g->setData(x, y);
  g->setPen(QPen(configColor(in.config), 1.5));
  g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, 5));
  singular_->xAxis->setRange(0.5, std::max(1.5, x.size() + 0.5));
  const double low = y.isEmpty() ? 1e-3 : *std::min_element(y.begin(), y.end());
  singular_->yAxis->setRange(std::max(kLogFloor, low / 10), 2);
  setPlotTitle(singular_, tr("Singular values σᵢ/σ₁ of %1").arg(where));
  singular_->replot(QCustomPlot::rpQueuedReplot);
  showAttention(in.attention, tokens, in.attentionLayer);
}

void CollapseView::showAttention(const std::vector<MatD>& heads, const QStringList& tokens, int layer) {
  const int shown = std::min(static_cast<int>(heads.size()), kMaxHeadsShown);
  if (static_cast<int>(attention_.size()) != shown) {
    for (MatrixPlot* p : attention_) delete p;
    attention_.clear();
    const int columns = shown <= 1 ? 1 : 2;
    for (int h = 0; h < shown; ++h) {
      auto* plot = new MatrixPlot;
      plot->setRangeMode(MatrixPlot::Range::UnitInterval);  // with a colour bar: uniform 1/n reads as 1/n
      plot->setFontScale(fontScale_);  // 7 pt at least: smaller labels are unreadable on a projector
      attentionGrid_->addWidget(plot, h / columns, h % columns);
      attention_.push_back(plot);
    }
  }
  double groupMax = 0;  // the shared attention scale: one range over the heads shown
  for (int h = 0; h < shown; ++h) groupMax = std::max(groupMax, heads[h].size() ? heads[h].maxCoeff() : 0.0);
  for (int h = 0; h < shown; ++h) {
    attention_[h]->setGroupMax(groupMax);
    attention_[h]->setTitle(tr("layer %1 head %2%3")
                                .arg(layer)
                                .arg(h)
                                .arg(h == shown - 1 && shown < static_cast<int>(heads.size())
                                         ? tr(" (of %1)").arg(heads.size())
                                         : QString()));
    attention_[h]->setMatrix(heads[h].cast<float>(), tokens, tokens);
  }
}

void CollapseView::resizeEvent(QResizeEvent* event) {
  TraceView::resizeEvent(event);
  inspector_->setVisible(width() >= 480 && height() >= 400);
}

void CollapseView::setFontScale(double scale) {
  fontScale_ = scale;
  controls_->setFontScale(scale);
  QFont f = font();
  f.setPointSizeF(11 * scale);
  f.setBold(true);
  reading_->setFont(f);
  scalePlotFonts(curves_, scale);
  scalePlotFonts(singular_, scale);
  // Room for the title's lines and the seven stacks' legend at the fonts of the back of the room.
  curves_->setMinimumHeight(static_cast<int>(260 * std::max(1.0, 0.8 * scale)));
  cosine_->setFontScale(scale);
  for (MatrixPlot* p : attention_) p->setFontScale(scale);
}

void CollapseView::waitForAnalyses() {
  curvesJob_.waitForIdle();
  inspectJob_.waitForIdle();
  // The jobs' results reach this thread as queued calls: deliver them.
  for (int i = 0; i < 10; ++i) QCoreApplication::processEvents();
}

}  // namespace attnlab::ui
