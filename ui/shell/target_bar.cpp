#include "ui/shell/target_bar.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QMenu>
#include <QPushButton>
#include <QSpinBox>
#include <QToolButton>
#include <QVBoxLayout>
#include <QWidgetAction>
#include <QtConcurrent/QtConcurrent>

#include "ui/shell/sentence_editor.h"
#include "ui/views/common/background_job.h"
#include "ui/views/common/encdec_result.h"

namespace attnlab::ui {
namespace {

/// Translate's length limit: twice the source plus some room (a translation is rarely longer), within the positions.
int translationBudget(const ComputeResult& r) {
  const EncDecRun* run = encDecRunOf(r);
  return run ? 2 * static_cast<int>(run->source.ids.size()) + 16 : 64;
}

bool blank(const std::string& s) { return s.find_first_not_of(" \t\r\n") == std::string::npos; }

/// The checkpoint folder a run's model is (Translate, Next token and Generate need its output head), or null: the
/// built-in rung 7 has none.
std::shared_ptr<const EncDecFolderModel> folderOf(const EncDecRun* run) {
  return run ? std::dynamic_pointer_cast<const EncDecFolderModel>(run->model) : nullptr;
}

}  // namespace

TargetBar::TargetBar(SentenceEditor* source, QWidget* parent)
    : QWidget(parent), source_(source), sourcePlaceholder_(source->placeholderText()) {
  target_ = new SentenceEditor;
  target_->setObjectName("targetEditor");
  target_->setFont(source->font());
  target_->setPlaceholderText(tr("Target: type a translation, or press Translate…"));
  target_->setToolTip(
      tr("The target text, read by the decoder. Typed, the views show how the model reads that translation "
         "(teacher forcing); Translate and Next token let the model write it."));
  translate_ = new QPushButton(tr("Translate"));
  translate_->setToolTip(tr("Replace the target by the model's greedy translation of the source"));
  // Next token, and on its arrow Generate N: the count, greedy or sampled, the seed and the Generate button, so the row
  // keeps the target editor its width on a projector beside a lesson (a long target stays on one line).
  next_ = new QToolButton;
  next_->setText(tr("Next token"));
  next_->setPopupMode(QToolButton::MenuButtonPopup);
  next_->setToolTip(
      tr("Append the model's most likely next token to the target; the arrow: Generate N tokens, "
         "greedy or sampled"));
  steps_ = new QSpinBox;
  steps_->setRange(1, 512);
  steps_->setToolTip(tr("How many tokens Generate appends (fewer when the model ends the translation)"));
  sample_ = new QCheckBox(tr("Sample"));
  seed_ = new QSpinBox;
  seed_->setRange(0, 1000000000);
  seed_->setToolTip(tr("The seed of the sampled generation: the same seed gives the same tokens"));
  // The sampling settings, as the Prediction view's controls have them (the same ranges): the same session fields.
  temperature_ = new QDoubleSpinBox;
  temperature_->setRange(0.05, 10.0);
  temperature_->setSingleStep(0.1);
  temperature_->setDecimals(2);
  temperature_->setToolTip(tr("Sampled tokens are drawn from softmax(logits / T): T < 1 sharpens, T > 1 flattens"));
  topK_ = new QSpinBox;
  topK_->setRange(0, 1000000);
  topK_->setSpecialValueText(tr("all"));
  topK_->setToolTip(tr("Sampling keeps only the k most probable tokens (all: no limit)"));
  topP_ = new QDoubleSpinBox;
  topP_->setRange(0.01, 1.0);
  topP_->setSingleStep(0.05);
  topP_->setDecimals(2);
  topP_->setToolTip(tr("Sampling keeps the most probable tokens until their mass reaches p (1: all)"));
  generate_ = new QPushButton;
  generate_->setObjectName("generateTarget");
  auto* options = new QWidget;
  auto* form = new QFormLayout(options);
  form->addRow(tr("Tokens"), steps_);
  form->addRow(sample_);
  form->addRow(tr("Temperature"), temperature_);
  form->addRow(tr("Top-k"), topK_);
  form->addRow(tr("Top-p"), topP_);
  form->addRow(tr("Seed"), seed_);
  form->addRow(generate_);
  auto* menu = new QMenu(next_);
  auto* holder = new QWidgetAction(menu);
  holder->setDefaultWidget(options);
  menu->addAction(holder);
  next_->setMenu(menu);
  stop_ = new QPushButton(tr("Stop"));
  stop_->setToolTip(tr("Stop the generation; the tokens appended so far stay"));
  stop_->hide();
  stack_ = new QComboBox;
  stack_->addItem(tr("encoder"), QStringLiteral("encoder"));
  stack_->addItem(tr("decoder"), QStringLiteral("decoder"));
  stack_->addItem(tr("cross"), QStringLiteral("cross"));  // target rows × source columns
  stack_->setToolTip(
      tr("The stack the single-text views (heatmap, head view, Q/K/V, …) show; cross: the decoder's "
         "cross-attention, target tokens reading source tokens"));
  pendingMark_ = new QLabel;
  pendingMark_->setObjectName("targetPending");
  pendingMark_->hide();
  note_ = new QLabel;
  note_->setObjectName("targetNote");
  note_->setWordWrap(true);

  // One row (the editor and its buttons) under the source editor; the note takes a second only while it speaks.
  auto* row = new QHBoxLayout;
  row->setContentsMargins(0, 0, 0, 0);
  row->addWidget(target_, 1);
  row->addWidget(pendingMark_);
  row->addWidget(translate_);
  row->addWidget(next_);
  row->addWidget(stop_);
  row->addWidget(stack_);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(0);
  layout->addLayout(row);
  layout->addWidget(note_);
  note_->hide();
  hide();

  // Typing: the user's text wins, and a generation's note is about another text. (Connected first: the edit that
  // follows may stop a generation and set the note that says so.)
  for (SentenceEditor* e : {source_, target_})
    connect(e, &SentenceEditor::textEdited, this, [this] { keepNote_ = false; });
  connect(target_, &SentenceEditor::textEdited, this, &TargetBar::targetEdited);
  connect(translate_, &QPushButton::clicked, this, &TargetBar::translate);
  connect(next_, &QToolButton::clicked, this, &TargetBar::nextToken);
  connect(stack_, QOverload<int>::of(&QComboBox::activated), this,
          [this](int i) { emit stackChosen(stack_->itemData(i).toString().toStdString()); });
  connect(&watcher_, &QFutureWatcher<TranslationJob>::finished, this, &TargetBar::translated);
  job_ = new BackgroundJob(this);
  connect(job_, &BackgroundJob::busyChanged, this, &TargetBar::setGeneratingLook);
  connect(generate_, &QPushButton::clicked, this, [this, menu] {
    menu->close();
    generate();
  });
  connect(stop_, &QPushButton::clicked, this, [this] {
    stopGenerating();
    keepNoteFor(genSource_, genTarget_.text);
    setNote(tr("Stopped after %n token(s).", "", genMade_));
  });
  for (QSpinBox* spin : {steps_, seed_}) {
    connect(spin, &QSpinBox::valueChanged, this, &TargetBar::showGenerateChoice);
    connect(spin, &QSpinBox::valueChanged, this, &TargetBar::emitPrediction);
  }
  connect(sample_, &QCheckBox::toggled, this, &TargetBar::showGenerateChoice);
  connect(sample_, &QCheckBox::toggled, this, &TargetBar::emitPrediction);
  // Each sampling setting edits its own field alone: a value the spin box rounds (a session's temperature 0.333) is not
  // written back when another setting changes.
  const auto editSampling = [this](auto set) {
    if (updating_) return;
    PredictionSettings p = prediction_;
    set(p);
    emit predictionEdited(p);
  };
  connect(temperature_, &QDoubleSpinBox::valueChanged, this,
          [editSampling](double v) { editSampling([v](PredictionSettings& p) { p.temperature = v; }); });
  connect(topK_, &QSpinBox::valueChanged, this,
          [editSampling](int v) { editSampling([v](PredictionSettings& p) { p.topK = v; }); });
  connect(topP_, &QDoubleSpinBox::valueChanged, this,
          [editSampling](double v) { editSampling([v](PredictionSettings& p) { p.topP = v; }); });
  setParams(Params{});
}

TargetBar::~TargetBar() {
  stopGenerating();
  job_->waitForIdle();
}

void TargetBar::setResult(const ResultPtr& result) {
  if (!result->ok()) {  // the status bar names the problem; the bar stays as it was
    // Rung 7 with an empty target fails before any result: the note under the editor says what to type.
    if (rungSeven_ && result->params.model.mode == Mode::EncDec && result->params.modelDir.empty())
      setNote(tr("⚠ %1").arg(result->error));
    return;
  }
  const EncDecRun* run = encDecRunOf(*result);
  const bool encdec = run != nullptr;
  if (generating() && (!encdec || run->model != genModel_)) {  // another model (or the same folder loaded again)
    stopGenerating();
    setNote(tr("Generation stopped after %n token(s): the model changed.", "", genMade_));
    keepNoteFor(result->params.sentence, result->params.target);
  }
  // (Edits of the texts reach setParams first; a result may be of an older text, typed before Generate was pressed.)
  last_ = encdec ? result : nullptr;
  showPending();         // the pieces' bytes are the model's
  showGenerateChoice();  // its tooltip says whether heads are switched off
  showOutputHead(run);
  setVisible(encdec || rungSeven_);
  source_->setPlaceholderText(encdec ? tr("Source: type the sentence to translate…") : sourcePlaceholder_);
  // An empty target is no error: the decoder reads its start token alone, and the editor's placeholder says what to do.
  // A generation's last note (the end of text, why fewer tokens) stays while the runs are of its texts.
  // (Runs of the target as it grew arrive after the last token: a prefix of the note's target is still its run.)
  keepNote_ = keepNote_ && result->params.sentence == noteSource_ && noteTarget_.rfind(result->params.target, 0) == 0;
  if (encdec && !translating() && !generating() && !keepNote_) setNote({});
}

void TargetBar::showOutputHead(const EncDecRun* run) {
  // The built-in rung 7 has no output head: the buttons that let the model write stay in sight, disabled, saying why.
  const bool head = !run || folderOf(run);
  const QString why = head ? QString() : QString::fromStdString(run->model->noOutputHeadReason());
  translate_->setEnabled(head && !translating());
  next_->setEnabled(head);
  if (translateTip_.isEmpty()) {
    translateTip_ = translate_->toolTip();
    nextTip_ = next_->toolTip();
  }
  translate_->setToolTip(head ? translateTip_ : tr("Not available: %1.").arg(why));
  next_->setToolTip(head ? nextTip_ : tr("Not available: %1.").arg(why));
  target_->setPlaceholderText(head ? tr("Target: type a translation, or press Translate…")
                                   : tr("Target: type a target text for the decoder to read…"));
}

void TargetBar::setNote(const QString& text) {
  note_->setText(text);
  note_->setVisible(!text.isEmpty());
}

void TargetBar::setParams(const Params& p) {
  stopIfOvertaken(p);
  // The built-in rung 7 reads a target: the editor is there from the moment the rung is chosen (an empty target runs
  // nothing, so no result would show it).
  rungSeven_ = p.modelDir.empty() && p.model.mode == Mode::EncDec;
  if (rungSeven_) {
    setVisible(true);
    if (blank(p.target)) setNote(tr("Rung 7 reads two texts: type a target text for the decoder."));
  }
  if (target_->text().toStdString() != p.target) target_->setText(QString::fromStdString(p.target));
  pending_ = p.targetPending;
  showPending();
  const int i = stack_->findData(QString::fromStdString(p.selection.stack));
  if (i >= 0) stack_->setCurrentIndex(i);
  prediction_ = p.prediction;
  updating_ = true;
  steps_->setValue(prediction_.generateSteps);
  sample_->setChecked(!prediction_.greedy);
  seed_->setValue(static_cast<int>(std::min<uint64_t>(prediction_.seed, 1000000000)));
  temperature_->setValue(prediction_.temperature);
  topK_->setValue(prediction_.topK);
  topP_->setValue(prediction_.topP);
  updating_ = false;
  showGenerateChoice();
  const PredictionSettings& s = prediction_;
  sample_->setToolTip(tr("Draw each token with the seed from softmax(logits / %1), kept: %2, top-p %3 (the "
                         "settings below, also in the Prediction view); unchecked: always the most probable (greedy)")
                          .arg(s.temperature)
                          .arg(s.topK > 0 ? tr("the %1 most probable").arg(s.topK) : tr("all"))
                          .arg(s.topP));
}

void TargetBar::showPending() {
  const std::shared_ptr<const EncDecFolderModel> folder = folderOf(last_ ? encDecRunOf(*last_) : nullptr);
  if (pending_.empty() || !folder) {  // only a folder's byte-level pieces can wait (the built-in rung writes none)
    pendingMark_->hide();
    return;
  }
  const std::string bytes = folder->pendingBytes(pending_);
  QStringList hex;
  for (unsigned char b : bytes) hex << QStringLiteral("%1").arg(b, 2, 16, QChar('0')).toUpper();
  pendingMark_->setText(bytes.size() == 1 ? tr("+1 byte") : tr("+%1 bytes").arg(bytes.size()));
  pendingMark_->setToolTip(
      tr("The last %n generated token(s) are the first bytes of a character (%1): the decoder reads them after the "
         "text, and the token that completes the character writes it into the text. Typing in the target drops them "
         "(undo brings them back).",
         "", static_cast<int>(pending_.size()))
          .arg(hex.join(' ')));
  pendingMark_->show();
}

void TargetBar::emitPrediction() {
  if (updating_) return;
  PredictionSettings s = prediction_;
  s.generateSteps = steps_->value();
  s.greedy = !sample_->isChecked();
  s.seed = static_cast<uint64_t>(seed_->value());
  emit predictionEdited(s);
}

void TargetBar::showGenerateChoice() {
  const int n = steps_->value();
  const bool sampled = sample_->isChecked();
  for (QWidget* w : std::initializer_list<QWidget*>{seed_, temperature_, topK_, topP_}) w->setEnabled(sampled);
  generate_->setText(sampled ? tr("Sample %1 tokens").arg(n) : tr("Generate %1 tokens").arg(n));
  generate_->setToolTip(
      (sampled ? tr("Append %1 tokens drawn with seed %2").arg(n).arg(seed_->value())
               : tr("Append the %1 most probable next tokens, one at a time").arg(n)) +
      (ablated() ? tr("; heads are switched off: each token is a full pass with them off, what Next token appends; "
                      "every view follows each token")
                 : tr("; one decoder step each, the encoder and the cross keys and values computed once; every view "
                      "follows each token")));
}

bool TargetBar::generating() const { return job_->busy(); }

bool TargetBar::ablated() const {
  const EncDecRun* run = last_ ? encDecRunOf(*last_) : nullptr;
  return run && !run->ablation.empty();
}

void TargetBar::stopGenerating() {
  ++run_;
  job_->cancel();
}

void TargetBar::setGeneratingLook(bool on) {
  stop_->setVisible(on);  // in Next token's place: one click away while the tokens arrive
  next_->setVisible(!on);
  generate_->setEnabled(!on);
}

void TargetBar::stopIfOvertaken(const Params& p) {
  if (!generating()) return;
  // The texts a generation writes: its source, and its base target grown by some of its tokens.
  const bool ours = p.sentence == genSource_ && p.modelDir == genModelDir_ && p.target.rfind(genBase_, 0) == 0 &&
                    genTarget_.text.rfind(p.target, 0) == 0;
  if (ours) return;
  stopGenerating();
  setNote(p.modelDir != genModelDir_ ? tr("Generation stopped after %n token(s): the model changed.", "", genMade_)
                                     : tr("Generation stopped after %n token(s): the text was edited.", "", genMade_));
  keepNoteFor(p.sentence, p.target);
}

void TargetBar::keepNoteFor(const std::string& source, const std::string& target) {
  noteSource_ = source;
  noteTarget_ = target;
  keepNote_ = true;
}

void TargetBar::generate() {
  const EncDecRun* run = last_ ? encDecRunOf(*last_) : nullptr;
  if (!run || generating()) return;
  const std::string source = source_->text().toStdString();
  const TargetText target(target_->text().toStdString(), pending_);
  keepNoteFor(source, target.text);
  const int asked = steps_->value();
  const std::shared_ptr<const EncDecFolderModel> folder = folderOf(run);
  if (!folder) return;  // the built-in rung: the button is disabled (showOutputHead)
  int steps = asked, room = 0;
  try {
    room = targetRoom(*folder, target);
  } catch (const std::exception& e) {
    setNote(tr("⚠ Cannot generate: %1").arg(QString::fromUtf8(e.what())));
    return;
  }
  const int limit = folder->maxPositions();
  if (room == 0) {
    setNote(tr("⚠ Not generated: the target has %1 tokens with the decoder's start token, all of the model's %2 "
               "positions; there is no room for another token. Shorten the target.")
                .arg(limit - room)
                .arg(limit));
    return;
  }
  genNote_.clear();
  if (room < steps) {
    genNote_ = tr(" — %1 of the %2 tokens asked: the target has %3 tokens with the decoder's start token, and the "
                  "model takes %4 positions")
                   .arg(room)
                   .arg(asked)
                   .arg(limit - room)
                   .arg(limit);
    steps = room;
  }
  SamplingOptions o;
  o.greedy = prediction_.greedy;
  o.temperature = prediction_.temperature;
  o.topK = prediction_.topK;
  o.topP = prediction_.topP;
  o.seed = prediction_.seed;
  genModel_ = folder;
  genModelDir_ = last_->params.modelDir;
  genSource_ = source;
  genBase_ = target.text;
  genTarget_ = target;
  genSteps_ = steps;
  genMade_ = 0;
  setNote(tr("Generating %n token(s)…", "", steps) + genNote_);
  const quint64 id = ++run_;
  auto model = genModel_;
  // The heads the shown run switched off: each token is then what Next token would append (an uncached full pass).
  const EncDecAblation ablation = run->ablation;
  job_->run<TargetGeneration>(
      [this, id, model, source, target, steps, o, ablation](const RunControl& control) {
        return generateTarget(
            *model, source, target, steps, o, control,
            [this, id](const GeneratedToken& t) {
              QMetaObject::invokeMethod(
                  this, [this, id, t] { tokenMade(id, t); }, Qt::QueuedConnection);
            },
            ablation);
      },
      [this](const TargetGeneration& g) { generated(g); },
      [this](const QString& e) { setNote(tr("⚠ Cannot generate: %1").arg(e)); });
}

void TargetBar::tokenMade(quint64 run, const GeneratedToken& t) {
  if (run != run_) return;  // a stopped generation's token, still queued
  ++genMade_;
  if (t.id == genModel_->model().config().eosId) return;  // generated() says so
  genTarget_ = genModel_->appendGenerated(genTarget_, t.id);
  keepNoteFor(genSource_, genTarget_.text);
  setNote(tr("Step %1 of %2: “%3” (p %4)")
              .arg(t.step)
              .arg(genSteps_)
              .arg(QString::fromStdString(t.piece))
              .arg(t.prob, 0, 'g', 3) +
          genNote_);
  emit targetProduced(genSource_, genTarget_.text, genTarget_.pending);
}

void TargetBar::generated(const TargetGeneration& g) {
  // Every token was queued before this result: tokenMade has seen them all.
  keepNoteFor(genSource_, genTarget_.text);
  const QString how = prediction_.greedy ? tr("greedy") : tr("sampled, seed %1").arg(prediction_.seed);
  if (g.endOfText)
    setNote(tr("The model ended the translation after %n token(s) (its last token is the end of text; %1).", "",
               static_cast<int>(g.tokens.size()))
                .arg(how));
  else
    setNote(tr("Generated %n token(s) (%1).", "", static_cast<int>(g.tokens.size())).arg(how) + genNote_);
}

void TargetBar::translate() {
  if (!last_ || translating()) return;
  const EncDecRun* run = encDecRunOf(*last_);
  auto model = folderOf(run);
  if (!model) return;  // the built-in rung: disabled (showOutputHead)
  // The shown run's switched-off heads: the translation is then Next token's argmax chain (uncached full passes).
  const EncDecAblation ablation = run->ablation;
  const std::string source = source_->text().toStdString();
  const int budget = translationBudget(*last_);
  translatingSource_ = source;
  translate_->setEnabled(false);
  setNote(tr("Translating…"));
  watcher_.setFuture(QtConcurrent::run([model, source, budget, ablation]() {
    TranslationJob job;
    try {
      job.translation = translateGreedy(*model, source, budget, ablation);
      job.target = model->decodeGenerated(job.translation.ids);
    } catch (const std::exception& e) {  // InputError (empty source, too long), bad_alloc
      job.error = QString::fromUtf8(e.what());
    }
    return job;
  }));
}

void TargetBar::translated() {
  translate_->setEnabled(true);
  const TranslationJob job = watcher_.result();
  if (!job.error.isEmpty()) {
    setNote(tr("⚠ Cannot translate: %1").arg(job.error));
    return;
  }
  setNote({});
  emit targetProduced(translatingSource_, job.target.text, job.target.pending);
}

void TargetBar::nextToken() {
  const EncDecRun* run = last_ ? encDecRunOf(*last_) : nullptr;
  if (!run) return;
  // The last result must be the run of the texts on screen: after an edit not yet run, its logits are of another text.
  if (last_->params.sentence != source_->text().toStdString() ||
      last_->params.target != target_->text().toStdString() || last_->params.targetPending != pending_) {
    setNote(tr("The texts changed since the last run: press again when the views have followed."));
    return;
  }
  const std::shared_ptr<const EncDecFolderModel> folder = folderOf(run);
  if (!folder) return;  // the built-in rung: disabled (showOutputHead)
  const int id = run->nextTokenId();
  const EncDecConfig& c = folder->model().config();
  if (id == c.eosId) {
    setNote(tr("The model ends the translation here (its next token is the end of text)."));
    return;
  }
  setNote({});
  const TargetText next = folder->appendGenerated(TargetText(last_->params.target, last_->params.targetPending), id);
  emit targetProduced(last_->params.sentence, next.text, next.pending);
}

}  // namespace attnlab::ui
