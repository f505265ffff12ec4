// Translate and Generate N with heads switched off (issue 33): on builtin:reverse with a cross-attention head
// switched off (the session's prediction.ablate_cross, zero and mean), Translate writes the text that pressing Next
// token repeatedly writes (the argmax of the shown, ablated run's last row, step after step), Generate N the same, and
// both equal the chain of argmax of EncDecModel::forward(ablation)'s last row computed here — not the plain
// translation. Driven as a user would (offscreen).
#include <QLabel>
#include <QPushButton>
#include <QSpinBox>
#include <QToolButton>
#include <QtTest>

#include "core/checkpoint/encdec_folder.h"
#include "core/train/shipped_models.h"
#include "tests/harness/test_registry.h"
#include "ui/shell/live_controller.h"
#include "ui/shell/main_window.h"
#include "ui/shell/model_opener.h"
#include "ui/shell/sentence_editor.h"
#include "ui/shell/target_bar.h"
#include "ui/views/common/encdec_result.h"

using namespace attnlab;
using namespace attnlab::ui;

namespace {

/// The greedy chain of forward(ablation)'s last row from the start token alone, eos included when reached.
std::vector<int> ablatedChain(const EncDecFolder& f, const std::vector<int>& src, const EncDecAblation& ab, int most) {
  std::vector<int> input = {f.model->config().decoderStartId}, out;
  for (int s = 0; s < most; ++s) {
    const EncDecTrace t = f.model->forward(src, input, true, ab);
    Eigen::Index id = 0;
    t.logits.row(t.logits.rows() - 1).maxCoeff(&id);
    out.push_back(static_cast<int>(id));
    if (id == f.model->config().eosId) break;
    input.push_back(static_cast<int>(id));
  }
  return out;
}

/// builtin:reverse's WordPiece target pieces joined by spaces, eos left out.
std::string wordsOf(const EncDecFolder& f, const std::vector<int>& ids) {
  std::string text;
  for (int id : ids)
    if (id != f.model->config().eosId) text += (text.empty() ? "" : " ") + f.target->pieceOf(id);
  return text;
}

}  // namespace

class TestEncDecAblatedDecode : public QObject {
  Q_OBJECT

  static bool settled(MainWindow& w, const std::string& target) {
    const ResultPtr r = w.controller()->lastResult();
    return r && encDecRunOf(*r) && !w.controller()->busy() && !w.targetBar()->generating() &&
           !w.targetBar()->translating() && r->params.target == target;
  }
  static void setTarget(MainWindow& w, const std::string& target) {
    Params p = w.controller()->params();
    p.target = target;
    w.applyParams(p);
    QTRY_VERIFY_WITH_TIMEOUT(settled(w, target), 20000);
  }

 private slots:
  void initTestCase() { QCoreApplication::setOrganizationName("AttentionLabTests"); }

  void translateIsNextTokenRepeated_data() {
    QTest::addColumn<int>("mode");
    QTest::newRow("zero") << static_cast<int>(AblationMode::Zero);
    QTest::newRow("mean") << static_cast<int>(AblationMode::Mean);
  }

  void translateIsNextTokenRepeated() {
    QFETCH(int, mode);
    const EncDecFolder f = openEncDecFolder(shippedEncDecFolder(kShippedReverseModel));
    // A source and a cross head whose switching off changes the translation (the test needs a visible difference).
    EncDecAblation ab;
    ab.cross.mode = static_cast<AblationMode>(mode);
    std::string source, expected;
    int head = -1;
    for (const char* text : {"d c b a", "a b c d e f g", "g f e d c b a", "b d f h j", "j i h g f e d c b a"}) {
      source = text;
      const std::vector<int> src = f.source->encode(source, true).ids;
      const std::string plain = wordsOf(f, f.model->generateGreedy(src, 10));
      for (int h = 0; h < f.model->config().decoderHeads && head < 0; ++h) {
        ab.cross.ablate = {HeadRef{0, h}};
        expected = wordsOf(f, ablatedChain(f, src, ab, 10));
        if (expected != plain) head = h;
      }
      if (head >= 0) break;
    }
    QVERIFY2(head >= 0, "no cross head of builtin:reverse changes its translation");

    MainWindow w(false);
    w.show();
    Params p = w.controller()->params();
    p.sentence = source;
    p.target.clear();
    w.applyParams(p);
    w.modelOpener()->open(QString::fromLatin1(kShippedReverseModel));
    QTRY_VERIFY_WITH_TIMEOUT(settled(w, ""), 20000);
    // The head switched off once the model is open (opening a model clears the session's ablations).
    p = w.controller()->params();
    p.prediction.ablateCross = {HeadRef{0, head}};
    p.prediction.ablationMode = static_cast<AblationMode>(mode);
    w.applyParams(p);
    QTRY_VERIFY_WITH_TIMEOUT(settled(w, "") && !encDecRunOf(*w.controller()->lastResult())->ablation.empty(), 20000);
    TargetBar* bar = w.targetBar();
    QVERIFY(bar->generateButton()->toolTip().contains("heads are switched off"));  // not "computed once"

    // Next token, pressed until the model ends the translation (or the positions are full).
    for (int press = 0; press < 10; ++press) {
      const std::string before = bar->editor()->text().toStdString();
      QTest::mouseClick(bar->nextTokenButton(), Qt::LeftButton);
      if (bar->editor()->text().toStdString() == before) break;  // the end of text: nothing appended
      QTRY_VERIFY_WITH_TIMEOUT(settled(w, bar->editor()->text().toStdString()), 20000);
    }
    const std::string byNext = bar->editor()->text().toStdString();
    QCOMPARE(byNext, expected);

    // Translate from an empty target.
    setTarget(w, "");
    QTest::mouseClick(bar->translateButton(), Qt::LeftButton);
    QTRY_VERIFY_WITH_TIMEOUT(!bar->editor()->text().isEmpty() && settled(w, bar->editor()->text().toStdString()),
                             20000);
    QCOMPARE(bar->editor()->text().toStdString(), byNext);

    // Generate 10 (greedy) from an empty target.
    setTarget(w, "");
    bar->stepsChoice()->setValue(10);
    bar->generateButton()->click();
    QTRY_VERIFY_WITH_TIMEOUT(
        bar->note()->text().startsWith("The model ended") || bar->note()->text().startsWith("Generated"), 20000);
    QTRY_VERIFY_WITH_TIMEOUT(settled(w, bar->editor()->text().toStdString()), 20000);
    QCOMPARE(bar->editor()->text().toStdString(), byNext);
  }
};

ATTNLAB_TEST_MAIN(TestEncDecAblatedDecode)
#include "test_encdec_ablated_decode.moc"
