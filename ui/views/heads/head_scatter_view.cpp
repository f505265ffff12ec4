#include "ui/views/heads/head_scatter_view.h"

#include <QHBoxLayout>
#include <QSignalBlocker>
#include <QVBoxLayout>

#include "ui/plots/flow_layout.h"
#include "ui/views/common/encdec_result.h"
#include "ui/views/heads/atlas_labels.h"
#include "ui/views/heads/heads_numbers.h"

namespace attnlab::ui {
namespace {

QComboBox* choiceBox(const QString& tip) {
  auto* box = new QComboBox;
  box->setToolTip(tip);
  box->setSizeAdjustPolicy(QComboBox::AdjustToContents);
  return box;
}

}  // namespace

HeadScatterView::HeadScatterView(AtlasStore* store, QWidget* parent) : AtlasView(store, parent) {
  setProbeCaptionInStatus(false);  // caption_ names the probe
  auto* layout = new QVBoxLayout(this);
  auto* controls = new QWidget;
  controls->setProperty(kScreenOnlyProperty, true);  // the figure's axis titles name the choices
  auto* row = new FlowLayout(controls);              // wraps on a narrow view
  x_ = choiceBox(tr("The score on the horizontal axis"));
  y_ = choiceBox(tr("The score on the vertical axis"));
  colour_ = choiceBox(tr("The score the points are coloured by"));
  for (auto [label, box] : {std::pair{tr("&x"), x_}, {tr("&y"), y_}, {tr("&colour"), colour_}}) {
    row->addLabelled(label, box);
    connect(box, &QComboBox::activated, this, &HeadScatterView::chooseAxes);
  }
  ablate_ = new QPushButton(tr("Switch these heads off"));
  ablate_->setToolTip(
      tr("Add the heads inside the lasso to the switched-off heads (ablation; Edit ▸ Undo brings "
         "them back)"));
  ablate_->setVisible(false);  // shown with a lasso group (a disabled button would swallow right clicks)
  row->addWidget(new QLabel(tr("Drag a lasso around heads to pick a group")));
  row->addWidget(ablate_);
  layout->addWidget(controls);

  auto* middle = new QHBoxLayout;
  plot_ = new HeadScatterPlot;
  middle->addWidget(plot_, 1);
  auto* card = new QWidget;
  card->setProperty(kScreenOnlyProperty, true);
  card->setMinimumWidth(170);
  auto* cardLayout = new QVBoxLayout(card);
  hoverText_ = new QLabel;
  hoverText_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  hoverImage_ = new QLabel;
  cardLayout->addWidget(hoverText_);
  cardLayout->addWidget(hoverImage_);
  cardLayout->addStretch(1);
  middle->addWidget(card);
  layout->addLayout(middle, 1);
  caption_ = new QLabel;
  caption_->setWordWrap(true);
  layout->addWidget(caption_);
  layout->addWidget(statusBar());

  connect(plot_, &HeadScatterPlot::pointHovered, this, &HeadScatterView::showHover);
  connect(plot_, &HeadScatterPlot::pointClicked, this, [this](int i, Qt::KeyboardModifiers) {
    if (i < 0) return;
    const auto& p = plot_->points()[static_cast<size_t>(i)];
    emit selectionRequested(p.layer, p.head);
  });
  connect(plot_, &HeadScatterPlot::lassoSelected, this, [this](const std::vector<int>& inside) {
    plot_->setMarks(ablatedIndices(), inside, selectedIndex());
    ablate_->setVisible(!inside.empty());
    ablate_->setText(inside.empty() ? tr("Switch these heads off")
                                    : tr("Switch these %1 heads off").arg(inside.size()));
  });
  connect(ablate_, &QPushButton::clicked, this, [this] {
    std::vector<std::pair<int, int>> heads;
    for (int i : plot_->group()) heads.emplace_back(plot_->points()[i].layer, plot_->points()[i].head);
    requestAblation(heads);
  });
}

void HeadScatterView::fillCombos(const HeadAtlas& atlas) {
  const QStringList choices = atlasChoices(atlas);
  const AtlasSettings& s = result()->params.atlas;
  for (auto [box, chosen] : {std::pair{x_, &s.x}, {y_, &s.y}, {colour_, &s.colour}}) {
    const QSignalBlocker block(box);
    QStringList items;
    for (int i = 0; i < box->count(); ++i) items << box->itemText(i);
    if (items != choices) {
      box->clear();
      box->addItems(choices);
    }
    box->setCurrentText(QString::fromStdString(*chosen));
  }
}

void HeadScatterView::chooseAxes() {
  if (!result()) return;
  Params p = result()->params;
  p.atlas.x = x_->currentText().toStdString();
  p.atlas.y = y_->currentText().toStdString();
  p.atlas.colour = colour_->currentText().toStdString();
  if (p.atlas.x != result()->params.atlas.x || p.atlas.y != result()->params.atlas.y ||
      p.atlas.colour != result()->params.atlas.colour)
    emit paramsRequested(p);
}

void HeadScatterView::drawAtlas(const std::shared_ptr<const HeadAtlas>& atlas) {
  if (!atlas) {
    plot_->setPoints({});
    plot_->setTitles(tr("Heads"), {}, {}, {});
    caption_->setText(store()->error().isEmpty() ? tr("The heads are being scored…") : store()->error());
    return;
  }
  fillCombos(*atlas);
  const AtlasSettings& s = result()->params.atlas;
  const QString x = QString::fromStdString(s.x), y = QString::fromStdString(s.y), c = QString::fromStdString(s.colour);
  std::vector<HeadScatterPlot::Point> points;
  for (int l = 0; l < atlas->layers; ++l)
    for (int h = 0; h < atlas->heads; ++h)
      points.push_back(
          {l, h, choiceValue(*atlas, x, l, h), choiceValue(*atlas, y, l, h), choiceValue(*atlas, c, l, h)});
  title_ = tr("%1 heads: %2 against %3").arg(points.size()).arg(y, x) + stackTag(*result());  // " · encoder"
  plot_->setPoints(std::move(points), c == "layer" || c == "head");  // an index: one colour per value
  plot_->setTitles(title_, choiceTitle(x), choiceTitle(y), choiceTitle(c));
  plot_->setMarks(ablatedIndices(), {}, selectedIndex());
  ablate_->setVisible(false);  // shown with a lasso group (a disabled button would swallow right clicks)
  ablate_->setText(tr("Switch these heads off"));
  // The probe caption once, here (the status line below leaves it to this caption: showsProbeCaption()).
  QString caption = probeCaption(*atlas);
  for (const std::string& note : atlas->notes) caption += "\n" + QString::fromStdString(note);
  caption_->setText(caption);
}

void HeadScatterView::showHover(int index) {
  const auto a = atlas();
  if (index < 0 || !a || index >= static_cast<int>(plot_->points().size())) {
    hoverText_->clear();
    hoverImage_->clear();
    return;
  }
  const auto& p = plot_->points()[static_cast<size_t>(index)];
  hoverText_->setText(headSummary(*a, p.layer, p.head));
  const QImage thumb = probeThumbnail(*a, p.layer, p.head, 150);
  if (thumb.isNull())
    hoverImage_->clear();
  else
    hoverImage_->setPixmap(QPixmap::fromImage(thumb));
  hoverImage_->setToolTip(tr("Head %1's attention on the probe (rows: queries)").arg(headLabel(p.layer, p.head)));
}

void HeadScatterView::setFontScale(double scale) {
  plot_->setFontScale(scale);
  QFont f = caption_->font();
  f.setPointSizeF(9 * scale);
  caption_->setFont(f);
}

ViewNumbers HeadScatterView::numbers(const ComputeResult& result) const {
  ViewNumbers n = numbersFrame(result, title_);
  const auto a = atlas();
  if (!a || !atlasFits()) return n;
  // What the figure draws first: one row per head, its x, y and colour values under the chosen names.
  const std::vector<HeadScatterPlot::Point>& points = plot_->points();
  LabelledMatrix drawn{"scatter", title_.toStdString(), MatD(static_cast<Eigen::Index>(points.size()), 3), {}, {}};
  for (std::size_t i = 0; i < points.size(); ++i) {
    const auto r = static_cast<Eigen::Index>(i);
    drawn.values.row(r) << points[i].x, points[i].y, points[i].colour;
    drawn.rowLabels.push_back(headName(points[i].layer, points[i].head));  // "L0H10", unambiguous in a CSV
  }
  const AtlasSettings& s = result.params.atlas;
  drawn.colLabels = {s.x, s.y, s.colour};
  n.matrices.push_back(std::move(drawn));
  appendAtlasScores(n, *a);
  return n;
}

}  // namespace attnlab::ui
