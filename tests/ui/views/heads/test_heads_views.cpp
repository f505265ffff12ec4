// The Heads views (issue 17) on an atlas filled by hand through an injected engine: the scatter puts each head
// where its scores say, hover names it with its scores and its probe attention, a lasso's group is switched off,
// the similarity matrix follows the clustering, the contexts view lists the head's snippets and loads one as the
// sentence, the corpus scan refines the views and reports its failures, and every view exports its numbers.
#include <QSignalSpy>
#include <QtTest>

#include <QThread>
#include <atomic>
#include <cmath>
#include <set>

#include "core/base/errors.h"
#include "core/run/pipeline.h"
#include "tests/harness/test_registry.h"
#include "ui/plots/matrix_plot.h"
#include "ui/plots/view_style.h"
#include "ui/views/heads/atlas_labels.h"
#include "ui/views/heads/context_list.h"
#include "ui/views/heads/head_contexts_view.h"
#include "ui/views/heads/head_scatter_view.h"
#include "ui/views/heads/heads_numbers.h"
#include "ui/views/heads/similar_heads_view.h"

using namespace attnlab;
using namespace attnlab::ui;

namespace {

constexpr int kLayers = 2, kHeads = 4;  // the built-in model's default shape

/// Scores spread far apart, so each head has a point of its own: previous_token = 0.4·l + 0.1·h,
/// induction = 0.2·h + 0.05·l, entropy = 1 + h.
HeadAtlas handAtlas(const std::shared_ptr<const Trace>& trace) {
  HeadAtlas a;
  a.layers = kLayers;
  a.heads = kHeads;
  a.probe.ids = {0, 5, 7, 9, 5, 7, 9};
  a.probe.tokens = {"<bos>", "a", "b", "c", "a", "b", "c"};
  a.probe.repeat = 3;
  a.probe.offset = 1;
  a.probe.seed = 11;
  for (const char* name : {"previous_token", "induction", "entropy"})
    a.metrics[name] = HeadGrid(kLayers, std::vector<double>(kHeads));
  for (int l = 0; l < kLayers; ++l)
    for (int h = 0; h < kHeads; ++h) {
      a.metrics["previous_token"][l][h] = 0.4 * l + 0.1 * h;
      a.metrics["induction"][l][h] = 0.2 * h + 0.05 * l;
      a.metrics["entropy"][l][h] = 1.0 + h;
    }
  const int n = kLayers * kHeads;
  a.similarity.assign(n, std::vector<double>(n, 0.0));
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) a.similarity[i][j] = i == j ? 1.0 : 1.0 / (1.0 + std::abs(i - j) + 0.1 * i);
  a.clusterOrder = {6, 2, 0, 7, 1, 3, 5, 4};
  for (int i = 0; i < n; ++i) a.map2d.push_back({static_cast<double>(i), static_cast<double>(i % 3)});
  a.probeTrace = trace;
  StrongContext norm{"output_norm", 2.5, "the cat sat", {"the", "cat", "sat"}, 2, -1, {0.1f, 0.7f, 0.2f}, "a.txt", 40};
  StrongContext edge{"attention_edge", 0.9, "a dog ran", {"a", "dog", "ran"}, 2, 1, {0.05f, 0.9f, 0.05f}, "b.txt", 7};
  a.topExamples["1.2"] = {norm, edge};
  return a;
}

struct Fixture {
  std::shared_ptr<const Trace> trace;
  int builds = 0;
  std::atomic<int> scans{0};
  std::atomic<bool> slowProbe{false};  ///< the probe runs until cancelled (a real-size model's probe)
  std::atomic<int> slowProbes{0};      ///< slow probes started
  AtlasStore store{
      AtlasEngine{[this](const Model&, const AtlasOptions&, const RunControl& control) {
                    ++builds;
                    if (slowProbe) ++slowProbes;
                    while (slowProbe) {
                      control.checkpoint(0.1);
                      QThread::msleep(2);
                    }
                    return handAtlas(trace);
                  },
                  [this](const Model&, const CorpusOptions& o, HeadAtlas& a, const CorpusProgress& progress,
                         const RunControl& control) {
                    ++scans;
                    if (o.files.front() == "empty.txt")
                      throw InputError("no corpus file holds any text (empty.txt: empty)");
                    if (o.files.front() == "endless.txt") {  // an hour-long scan: reads until cancelled
                      a.corpusTokens = 50;
                      for (;;) {
                        control.checkpoint(0.1);
                        QThread::msleep(2);
                      }
                    }
                    a.corpusTokens = 100;
                    progress(a, 0.5);
                    a.topExamples["1.2"].push_back(
                        {"output_norm", 1.0, "one more", {"one", "more"}, 1, -1, {0.5f, 0.5f}, o.files.front(), 3});
                    a.notes.push_back("skipped bad.bin: binary file");
                    a.corpusTokens = 200;
                  }}};
};

ResultPtr compute(Params p = {}) {
  auto r = std::make_shared<ComputeResult>();
  r->params = p;
  r->run = std::make_shared<const PipelineResult>(runPipeline(p));
  return r;
}

const LabelledMatrix* matrix(const ViewNumbers& n, const std::string& name) {
  for (const LabelledMatrix& m : n.matrices)
    if (m.name == name) return &m;
  return nullptr;
}

void showIn(QWidget& view, TraceView& trace, Fixture& f, const ResultPtr& r) {
  f.trace = std::make_shared<const Trace>(r->trace());
  view.resize(900, 600);
  view.show();
  trace.showResult(r);
  trace.waitForAnalyses();
  QVERIFY(QTest::qWaitForWindowExposed(&view));
}

}  // namespace

class TestHeadsViews : public QObject {
  Q_OBJECT
 private slots:
  void scatterPlacesEachHeadWhereItsScoresSay() {
    Fixture f;
    HeadScatterView view(&f.store);
    const ResultPtr r = compute();
    showIn(view, view, f, r);
    QVERIFY(view.isReady());
    HeadScatterPlot* plot = view.plot();
    QCOMPARE(int(plot->points().size()), kLayers * kHeads);
    const int i = 1 * kHeads + 2;  // head 1.2
    QCOMPARE(plot->points()[i].layer, 1);
    QCOMPARE(plot->points()[i].head, 2);
    plot->replot();
    const QPointF px = plot->pixelOf(i);
    QVERIFY(std::abs(plot->xAxis->pixelToCoord(px.x()) - 0.6) < 1e-9);   // previous_token 0.4 + 0.2
    QVERIFY(std::abs(plot->yAxis->pixelToCoord(px.y()) - 0.45) < 1e-9);  // induction 0.4 + 0.05
    QCOMPARE(plot->pointAt(px), i);
    QVERIFY(plot->xAxis->label().contains("previous token score"));
    QVERIFY(plot->yAxis->label().contains("mean attention"));
  }

  void axesFollowTheSettings() {
    Fixture f;
    HeadScatterView view(&f.store);
    Params p;
    p.atlas.x = "entropy";
    p.atlas.y = "layer";
    const ResultPtr r = compute(p);
    showIn(view, view, f, r);
    const auto& pt = view.plot()->points()[1 * kHeads + 3];
    QCOMPARE(pt.x, 4.0);
    QCOMPARE(pt.y, 1.0);
    QCOMPARE(view.plot()->xAxis->label(), QString("entropy (nats)"));
    // Choosing another score in a combo box is a parameter edit.
    QSignalSpy edits(&view, &TraceView::paramsRequested);
    auto* box = view.findChildren<QComboBox*>().at(0);
    box->setCurrentText("induction");
    emit box->activated(box->currentIndex());
    QCOMPARE(edits.count(), 1);
    QCOMPARE(edits.at(0).at(0).value<Params>().atlas.x, std::string("induction"));
  }

  void hoverShowsTheHeadItsScoresAndItsProbeAttention() {
    Fixture f;
    HeadScatterView view(&f.store);
    showIn(view, view, f, compute());
    view.plot()->replot();
    QTest::mouseMove(view.plot(), view.plot()->pixelOf(1 * kHeads + 2).toPoint());
    QTRY_VERIFY(view.hoverText().contains("Head L1H2 (layer 1, head 2)"));
    QVERIFY(view.hoverText().contains("induction: 0.450"));
    QVERIFY(view.hoverText().contains("entropy: 3.000"));
    QVERIFY(view.hoverHasThumbnail());
  }

  void clickSelectsTheHead() {
    Fixture f;
    HeadScatterView view(&f.store);
    showIn(view, view, f, compute());
    view.plot()->replot();
    QSignalSpy selected(&view, &TraceView::selectionRequested);
    QTest::mouseClick(view.plot(), Qt::LeftButton, {}, view.plot()->pixelOf(0 * kHeads + 3).toPoint());
    QCOMPARE(selected.count(), 1);
    QCOMPARE(selected.at(0).at(0).toInt(), 0);
    QCOMPARE(selected.at(0).at(1).toInt(), 3);
  }

  void lassoSwitchesTheGroupOff() {
    Fixture f;
    HeadScatterView view(&f.store);
    showIn(view, view, f, compute());
    HeadScatterPlot* plot = view.plot();
    plot->replot();
    // A lasso around heads 1.2 and 1.3 (x 0.6 and 0.7, y 0.45 and 0.65), nowhere near the others.
    const QPointF a = plot->pixelOf(1 * kHeads + 2), b = plot->pixelOf(1 * kHeads + 3);
    const QRectF box = QRectF(a, b).normalized().adjusted(-8, -8, 8, 8);
    QTest::mousePress(plot, Qt::LeftButton, {}, box.topLeft().toPoint());
    for (const QPointF& c : {box.topRight(), box.bottomRight(), box.bottomLeft()}) QTest::mouseMove(plot, c.toPoint());
    QTest::mouseRelease(plot, Qt::LeftButton, {}, box.bottomLeft().toPoint());
    QCOMPARE(plot->group(), (std::vector<int>{1 * kHeads + 2, 1 * kHeads + 3}));
    QVERIFY(view.ablateButton()->isVisibleTo(&view));
    QSignalSpy edits(&view, &TraceView::paramsRequested);
    view.ablateButton()->click();
    QCOMPARE(edits.count(), 1);
    const Params p = edits.at(0).at(0).value<Params>();
    QCOMPARE(p.prediction.ablate, (std::vector<HeadRef>{{1, 2}, {1, 3}}));
  }

  void ablatedHeadsAreCrossedAndTheCaptionNamesTheProbe() {
    Fixture f;
    HeadScatterView view(&f.store);
    // The built-in model cannot ablate: the parameters alone name the switched-off head here.
    auto r = std::make_shared<ComputeResult>(*compute());
    r->params.prediction.ablate = {{0, 1}};
    showIn(view, view, f, r);
    // The crossed graph holds exactly the switched-off head's point.
    bool found = false;
    for (int g = 0; g < view.plot()->graphCount(); ++g) {
      QCPGraph* graph = view.plot()->graph(g);
      if (graph->scatterStyle().shape() != QCPScatterStyle::ssCross) continue;
      QCOMPARE(graph->dataCount(), 1);
      QCOMPARE(graph->data()->at(0)->key, 0.1);
      found = true;
    }
    QVERIFY(found);
    const QString caption = probeCaption(*f.store.atlas());
    QVERIFY(caption.contains("7 tokens"));
    QVERIFY(caption.contains("seed 11"));
  }

  void theAtlasIsBuiltOnceForTheThreeViews() {
    Fixture f;
    HeadScatterView scatter(&f.store);
    SimilarHeadsView similar(&f.store);
    const ResultPtr r = compute();
    showIn(scatter, scatter, f, r);
    showIn(similar, similar, f, r);
    Params p = r->params;
    p.sentence = "another sentence";  // the same model: no new atlas
    const ResultPtr r2 = compute(p);
    scatter.showResult(r2);
    scatter.waitForAnalyses();
    // compute() builds a new Model object each time; the same parameters are the same model: one atlas.
    QCOMPARE(f.builds, 1);
    similar.showResult(r2);
    similar.waitForAnalyses();
    QCOMPARE(f.builds, 1);
    p.model.seed = 7;  // other weights: a model of its own
    scatter.showResult(compute(p));
    scatter.waitForAnalyses();
    QCOMPARE(f.builds, 2);
  }

  void aCorpusIsScannedOnlyForTheModelItWasOpenedFor() {
    // Issue 31: a corpus opened for one model re-scanned (an hour at real size) when the Heads chapter showed
    // another model, and again on coming back. Results are kept per model; another model gets an offer.
    Fixture f;
    HeadContextsView view(&f.store);
    Params a;
    a.atlas.corpus = {"corpus.txt"};
    showIn(view, view, f, compute(a));
    QCOMPARE(f.scans.load(), 1);
    QCOMPARE(f.store.atlas()->corpusTokens, 200LL);
    const QString nameA = QString::fromStdString(compute(a)->run->info.name);

    Params b = a;
    b.model.seed = 7;
    showIn(view, view, f, compute(b));
    QCOMPARE(f.scans.load(), 1);  // not started by itself
    QCOMPARE(f.store.scanOffer(), nameA);
    QCOMPARE(f.store.atlas()->corpusTokens, 0LL);  // the probe's atlas alone
    QVERIFY(view.isReady());
    QVERIFY2(view.statusText().contains("Corpus scanned for " + nameA), qPrintable(view.statusText()));
    QVERIFY(view.scanHereButton()->isVisible());
    if (const QString shots = qEnvironmentVariable("ATTNLAB_LAYOUT_SHOTS"); !shots.isEmpty())
      view.grab().save(shots + "/scan_offer.png");

    showIn(view, view, f, compute(a));  // back: the kept result, no scan, no probe
    QCOMPARE(f.scans.load(), 1);
    QCOMPARE(f.builds, 2);
    QCOMPARE(f.store.atlas()->corpusTokens, 200LL);
    QVERIFY(!view.scanHereButton()->isVisible());

    showIn(view, view, f, compute(b));
    QCOMPARE(f.scans.load(), 1);
    QTest::mouseClick(view.scanHereButton(), Qt::LeftButton);
    view.waitForAnalyses();
    QCOMPARE(f.scans.load(), 2);
    QCOMPARE(f.store.atlas()->corpusTokens, 200LL);
    QVERIFY(f.store.scanOffer().isEmpty());
    showIn(view, view, f, compute(a));
    showIn(view, view, f, compute(b));
    QCOMPARE(f.scans.load(), 2);  // both kept
  }

  void goingBackWhileAnotherModelsProbeRunsShowsTheKeptResult() {
    // A model whose probe atlas is kept, shown again while another model's probe runs: its corpus result comes at
    // once. The request waited for the cancelled probe, which delivers nothing: the views stayed not ready.
    Fixture f;
    HeadContextsView view(&f.store);
    Params a;
    a.atlas.corpus = {"corpus.txt"};
    showIn(view, view, f, compute(a));
    QCOMPARE(f.scans.load(), 1);
    Params b = a;
    b.model.seed = 7;
    f.slowProbe = true;
    view.showResult(compute(b));
    QTRY_COMPARE(f.slowProbes.load(), 1);  // B's probe is running
    QVERIFY(f.store.probeBusy());
    view.showResult(compute(a));
    f.slowProbe = false;
    QTRY_VERIFY(view.isReady());
    QCOMPARE(f.store.atlas()->corpusTokens, 200LL);  // A's kept scan, not scanned again
    QCOMPARE(f.scans.load(), 1);
    QCOMPARE(f.builds, 2);
  }

  void probeTracesGoWithTheirModel() {
    // Issue 31: the atlases kept per model held each model's probe trace (every head's map of the probe) for ever.
    // The kept scores and corpus results stay; the trace goes when another model is asked for, and comes back (one
    // forward pass of the same probe, no new scoring or scan) with its model.
    const auto source = std::make_shared<const Trace>(compute()->trace());
    int builds = 0, retraces = 0;
    unsigned long long retracedSeed = 0;
    AtlasStore store{AtlasEngine{
        [&](const Model&, const AtlasOptions&, const RunControl&) {
          ++builds;
          return handAtlas(std::make_shared<const Trace>(*source));  // a trace of its own, as a real probe has
        },
        [](const Model&, const CorpusOptions&, HeadAtlas& a, const CorpusProgress&, const RunControl&) {
          a.corpusTokens = 200;
        },
        [&](const Model&, const AtlasProbe& probe, const RunControl&) {
          ++retraces;
          retracedSeed = probe.seed;
          return std::make_shared<const Trace>(*source);
        }}};
    Params a;
    a.atlas.corpus = {"corpus.txt"};
    Params b = a;
    b.model.seed = 7;
    store.request(compute(a));
    store.waitForIdle();
    QCOMPARE(store.atlas()->corpusTokens, 200LL);
    const std::weak_ptr<const Trace> traceA = store.atlas()->probeTrace;
    QVERIFY(!traceA.expired());

    store.request(compute(b));
    store.waitForIdle();
    QCOMPARE(builds, 2);
    QVERIFY(traceA.expired());  // neither A's probe atlas nor its corpus result keeps it
    const std::weak_ptr<const Trace> traceB = store.atlas()->probeTrace;
    QVERIFY(!traceB.expired());

    const ResultPtr backToA = compute(a);
    store.request(backToA);
    store.waitForIdle();
    QCOMPARE(builds, 2);  // the kept scores
    QCOMPARE(retraces, 1);
    QCOMPARE(retracedSeed, 11ULL);  // handAtlas's probe
    QVERIFY(traceB.expired());
    QVERIFY(store.isReadyFor(*backToA));
    QCOMPARE(store.atlas()->corpusTokens, 200LL);  // the kept corpus result, with the trace again
    QVERIFY(store.atlas()->probeTrace);
    QVERIFY(!probeThumbnail(*store.atlas(), 1, 2, 24).isNull());
  }

  void aCancelledScanIsNotStartedAgain() {
    Fixture f;
    HeadContextsView view(&f.store);
    Params a;
    a.atlas.corpus = {"endless.txt"};
    f.trace = std::make_shared<const Trace>(compute(a)->trace());
    view.resize(900, 600);
    view.show();
    view.showResult(compute(a));
    QTRY_VERIFY(f.store.scanBusy());
    QTRY_COMPARE(f.scans.load(), 1);  // busy from the moment it is queued; counted once its thread runs it
    f.store.cancelScan();
    view.waitForAnalyses();
    QTRY_VERIFY(!f.store.scanBusy());
    QVERIFY(f.store.atlas()->notes.back().find("cancelled after 50 tokens") != std::string::npos);
    showIn(view, view, f, compute(a));  // the same model again (a new Model object)
    QCOMPARE(f.scans.load(), 1);
    QVERIFY(!f.store.scanBusy());
    QCOMPARE(f.store.atlas()->corpusTokens, 50LL);
    Params b = a;
    b.model.seed = 7;
    showIn(view, view, f, compute(b));  // another model and back
    showIn(view, view, f, compute(a));
    QCOMPARE(f.scans.load(), 1);
    QVERIFY(!f.store.scanBusy());
  }

  void similarityMatrixFollowsTheClustering() {
    Fixture f;
    SimilarHeadsView view(&f.store);
    showIn(view, view, f, compute());
    const std::vector<int> order = {6, 2, 0, 7, 1, 3, 5, 4};
    QCOMPARE(view.order(), order);
    const Mat& m = view.matrix()->matrix();
    const HeadAtlas& a = *f.store.atlas();
    for (int i = 0; i < 8; ++i)
      for (int j = 0; j < 8; ++j) QCOMPARE(double(m(i, j)), double(float(a.similarity[order[i]][order[j]])));
    QCOMPARE(int(view.map()->points().size()), 8);
    QCOMPARE(view.map()->points()[5].colour, 1.0);  // coloured by layer: head 1.1
    QSignalSpy selected(&view, &TraceView::selectionRequested);
    view.matrix()->cellClicked(0, 3, {});
    QCOMPARE(selected.at(0).at(0).toInt(), 1);  // row 0 is head 6 = 1.2
    QCOMPARE(selected.at(0).at(1).toInt(), 2);
    const ViewNumbers n = view.numbers(*compute());  // another result: still the atlas's numbers
    const LabelledMatrix* s = matrix(n, "similarity");
    QVERIFY(s);
    QCOMPARE(s->rowLabels.front(), std::string("L1H2"));  // head 6 of 4 per layer
    QCOMPARE(s->colLabels, s->rowLabels);
    QVERIFY(matrix(n, "map2d"));
    QCOMPARE(matrix(n, "map2d")->rowLabels[5], std::string("L1H1"));
  }

  void similarityMapFollowsTheColourScale() {
    // Issue 31: row — each row to its largest similarity to another head (its own is 1); log — from 10⁻³ (8 heads).
    Fixture f;
    SimilarHeadsView view(&f.store);
    showIn(view, view, f, compute());
    const std::vector<int>& order = view.order();
    const HeadAtlas& a = *f.store.atlas();
    const auto s = [&](int i, int j) { return double(float(a.similarity[order[i]][order[j]])); };
    const auto viridis = [](double t) { return QColor::fromRgb(gradient(ColorMap::Viridis).color(t, QCPRange(0, 1))); };
    QCOMPARE(view.matrix()->cellColor(0, 1), viridis(s(0, 1)));
    DisplaySettings d;
    d.attentionScale = "row";
    ViewStyle::instance().setDisplay(d);
    for (int i : {0, 3, 7}) {
      double top = 0;
      for (int k = 0; k < 8; ++k)
        if (k != i) top = std::max(top, double(float(a.similarity[order[i]][order[k]])));
      for (int j : {0, 2, 5})
        if (j != i) QCOMPARE(view.matrix()->cellColor(i, j), viridis(double(float(s(i, j)) / float(top))));
    }
    QVERIFY(view.matrix()->title().endsWith(" · each row to its max"));
    QCOMPARE(view.matrix()->colorBarLabel(), QString("weight ÷ row max"));
    d.attentionScale = "log";
    ViewStyle::instance().setDisplay(d);
    QCOMPARE(view.matrix()->cellColor(0, 1), viridis((std::log10(s(0, 1)) + 3) / 3));
    QVERIFY(view.matrix()->title().endsWith(" · log colours"));
    ViewStyle::instance().setDisplay(DisplaySettings{});
    QCOMPARE(view.matrix()->cellColor(0, 1), viridis(s(0, 1)));
  }

  void contextsShowTheSnippetsAndAClickLoadsOne() {
    Fixture f;
    HeadContextsView view(&f.store);
    Params p;
    p.selection.layer = 1;
    p.selection.head = 2;
    const ResultPtr r = compute(p);
    showIn(view, view, f, r);
    QCOMPARE(int(view.list()->contexts().size()), 1);
    QCOMPARE(view.list()->contexts()[0].text, std::string("the cat sat"));
    view.kindBox()->setCurrentIndex(1);
    QCOMPARE(view.list()->contexts()[0].text, std::string("a dog ran"));
    QSignalSpy edits(&view, &TraceView::paramsRequested);
    QTest::mouseClick(view.list(), Qt::LeftButton, {}, view.list()->rowRect(0).center());
    QCOMPARE(edits.count(), 1);
    QCOMPARE(edits.at(0).at(0).value<Params>().sentence, std::string("a dog ran"));
    const ViewNumbers n = view.numbers(*r);
    const LabelledMatrix* c = matrix(n, "context_attention_edge_0");
    QVERIFY(c);
    QCOMPARE(c->colLabels, (std::vector<std::string>{"a", "dog", "ran"}));
    QCOMPARE(c->values(0, 1), double(0.9f));
  }

  void openingACorpusScansItAndRefinesTheViews() {
    Fixture f;
    HeadContextsView view(&f.store);
    Params p;
    p.selection.layer = 1;
    p.selection.head = 2;
    const ResultPtr r = compute(p);
    showIn(view, view, f, r);
    QSignalSpy edits(&view, &TraceView::paramsRequested);
    view.openCorpus({"corpus.txt"});
    QCOMPARE(edits.count(), 1);
    const Params withCorpus = edits.at(0).at(0).value<Params>();
    QCOMPARE(withCorpus.atlas.corpus, std::vector<std::string>{"corpus.txt"});
    QSignalSpy refined(&f.store, &AtlasStore::atlasChanged);
    auto r2 = std::make_shared<ComputeResult>(*r);
    r2->params = withCorpus;
    view.showResult(r2);
    view.waitForAnalyses();
    QVERIFY(view.isReady());
    QVERIFY(refined.count() >= 2);  // the first window's refinement, then the finished scan
    QCOMPARE(f.store.atlas()->corpusTokens, 200LL);
    // One corpus size in the view: the title's and the status line's (which kept the first window's 100).
    QVERIFY2(view.statusText().contains("corpus: 200 tokens"), qPrintable(view.statusText()));
    QCOMPARE(int(view.list()->contexts().size()), 2);
    QVERIFY(view.notesText().contains("bad.bin"));
  }

  void aCorpusWithoutTextIsAMessage() {
    Fixture f;
    HeadContextsView view(&f.store);
    Params p;
    p.atlas.corpus = {"empty.txt"};
    showIn(view, view, f, compute(p));
    QVERIFY(view.isReady());
    QVERIFY(f.store.error().contains("empty.txt"));
    QVERIFY(f.store.atlas());  // the probe's atlas stays
  }

  void scoresExportWithTheProbe() {
    Fixture f;
    HeadScatterView view(&f.store);
    const ResultPtr r = compute();
    showIn(view, view, f, r);
    const ViewNumbers n = view.numbers(*r);
    QCOMPARE(n.view, std::string("heads"));
    const LabelledMatrix* prev = matrix(n, "score_previous_token");
    QVERIFY(prev);
    QCOMPARE(prev->values(1, 2), 0.6);
    const LabelledMatrix* ids = matrix(n, "probe_ids");
    QVERIFY(ids);
    QCOMPARE(ids->colLabels, (std::vector<std::string>{"<bos>", "a", "b", "c", "a", "b", "c"}));
    QCOMPARE(ids->values(0, 3), 9.0);
    const LabelledMatrix* drawn = matrix(n, "scatter");
    QVERIFY(drawn);
    QCOMPARE(drawn->rowLabels.size(), std::size_t(8));
    for (const std::string& label : drawn->rowLabels) QVERIFY2(label.size() == 4 && label[0] == 'L', label.c_str());
  }

  void csvHeadLabelsAreUnambiguousWithTenOrMoreHeads() {
    // Issue 31: "0.10" (head 10) read as 0.1 (head 1) in a spreadsheet; "L0H10" cannot be.
    HeadAtlas a;
    a.layers = 2;
    a.heads = 11;
    const int n = a.layers * a.heads;
    a.similarity.assign(n, std::vector<double>(n, 0.5));
    for (int i = 0; i < n; ++i) a.map2d.push_back({static_cast<double>(i), 0.0});
    ViewNumbers numbers;
    appendSimilarity(numbers, a);
    const LabelledMatrix& s = numbers.matrices.at(0);
    QCOMPARE(s.rowLabels[1], std::string("L0H1"));
    QCOMPARE(s.rowLabels[10], std::string("L0H10"));
    QCOMPARE(s.rowLabels[11], std::string("L1H0"));
    QCOMPARE(std::set<std::string>(s.rowLabels.begin(), s.rowLabels.end()).size(), std::size_t(n));
    const std::string csv = numbersToCsv(numbers);
    QVERIFY(csv.find("similarity,L0H0,L0H1,") == 0);
    QVERIFY(csv.find("\nL0H10,") != std::string::npos && csv.find("0.10") == std::string::npos);
    QCOMPARE(numbers.matrices.at(1).rowLabels[21], std::string("L1H10"));  // map2d
  }
};

ATTNLAB_TEST_MAIN(TestHeadsViews)
#include "test_heads_views.moc"
