// core/predict against the independent float64 PyTorch computation of tests/reference/make_predict_reference.py
// (gpt2_tiny, llama-gqa, qwen2-bias): last-position logits and probabilities, head (0, 1) zero- and
// mean-ablated, one head's patching effect, all ≤ 1e-4; direct logit attribution adds up to the logit; the
// residual patching map is 1 where it must be; the resumed patched runs (core/model/resumed_runs.h) equal full
// forward passes on GPT-2 and the decoder fixtures; the logit lens ends at the prediction; bad input is refused.
#include <QtTest>

#include <memory>

#include "core/base/errors.h"
#include "core/base/json_file.h"
#include "core/checkpoint/checkpoint.h"
#include "core/model/full_forward_model.h"
#include "core/model/layer_outputs.h"
#include "core/predict/attribution.h"
#include "core/predict/patching.h"
#include "core/predict/prediction.h"
#include "tests/harness/test_registry.h"

using namespace attnlab;

namespace {

constexpr double kTolerance = 1e-4;

nlohmann::json reference() {
  return readJsonFile(std::string(ATTNLAB_TEST_DATA) + "/reference/predict_reference.json");
}

std::shared_ptr<const HfModel> open(const nlohmann::json& c) {
  return loadCheckpoint(std::string(ATTNLAB_TEST_DATA) + "/reference/" + c["model"].get<std::string>());
}

TokenizedText fromIds(const nlohmann::json& ids) {
  TokenizedText t;
  for (const auto& id : ids) {
    t.ids.push_back(id.get<int>());
    t.tokens.push_back(Token{std::to_string(id.get<int>())});
  }
  return t;
}

/// Largest error, relative above 1 and absolute below.
double worst(const Vec& got, const nlohmann::json& expected) {
  double w = 0.0;
  for (Eigen::Index i = 0; i < got.size(); ++i) {
    const double e = expected[static_cast<size_t>(i)].get<double>();
    w = std::max(w, std::abs(got(i) - e) / std::max(1.0, std::abs(e)));
  }
  return w;
}

Vec lastLogits(const Model& m, const Trace& t) {
  return rowLogits(*m.unembedding(), t.layers.back().residualOut.row(t.tokenCount() - 1).transpose());
}

/// Every head patch and every residual patch, each alone, from clean into corrupt.
std::vector<Intervention> everyPatch(const Trace& clean) {
  std::vector<Intervention> ivs;
  Intervention patch;
  patch.source = &clean;
  for (int l = 0; l < clean.layerCount(); ++l)
    for (int h = 0; h < clean.headCount(); ++h) {
      ivs.push_back(patch);
      ivs.back().patchHeads = {{l, h}};
    }
  for (int l = 0; l <= clean.layerCount(); ++l)
    for (int i = 0; i < clean.tokenCount(); ++i) {
      ivs.push_back(patch);
      ivs.back().residualLayer = l;
      ivs.back().residualPosition = i;
    }
  ivs.push_back(patch);  // two heads of different layers at once
  ivs.back().patchHeads = {{clean.layerCount() - 1, 0}, {0, clean.headCount() - 1}};
  return ivs;
}

}  // namespace

class TestPredict : public QObject {
  Q_OBJECT

 private slots:
  void logitsAndProbabilitiesMatchReference() {
    for (const auto& c : reference()["cases"]) {
      const auto model = open(c);
      const Trace t = model->forward(fromIds(c["token_ids"]));
      const Vec logits = lastLogits(*model, t);
      QCOMPARE(logits.size(), static_cast<Eigen::Index>(c["logits"].size()));
      QVERIFY2(worst(logits, c["logits"]) <= kTolerance, c["model"].get<std::string>().c_str());
      QVERIFY(worst(softmaxAt(logits).cast<float>(), c["probs"]) <= kTolerance);
      const std::vector<TokenScore> top = predict(*model, t, -1, 3);
      QCOMPARE(top.size(), size_t(3));
      QVERIFY(top[0].prob >= top[1].prob && top[1].prob >= top[2].prob);
      QCOMPARE(top[0].prob, c["probs"][static_cast<size_t>(top[0].id)].get<double>());
    }
  }

  void ablationMatchesReference() {
    for (const auto& c : reference()["cases"]) {
      const auto model = open(c);
      const TokenizedText text = fromIds(c["token_ids"]);
      const Trace clean = model->forward(text);
      for (auto [mode, key] : {std::pair{AblationMode::Zero, "ablated_zero"}, {AblationMode::Mean, "ablated_mean"}}) {
        Intervention iv;
        iv.ablate = {{0, 1}};
        iv.mode = mode;
        const AblationEffect e = ablationEffect(*model, text, clean, iv);
        QVERIFY2(worst(e.ablatedLogits, c[key]) <= kTolerance, key);
        QVERIFY(e.kl > 0.0);
        QVERIFY(std::abs(e.cleanProb - e.ablatedProb) > 0.0);
      }
      Intervention none;
      QCOMPARE(ablationEffect(*model, text, clean, none).kl, 0.0);
    }
  }

  void attributionAddsUpToTheLogit() {
    for (const auto& c : reference()["cases"]) {
      const auto model = open(c);
      const TokenizedText text = fromIds(c["token_ids"]);
      const Trace t = model->forward(text);
      const OutputProjections projections = probeOutputProjections(*model, text, 5);  // several chunks
      const OutputProjections read = readOutputProjections(*model, text);  // W_O from the weights, b_O probed
      for (int l = 0; l < t.layerCount(); ++l) {
        QVERIFY((read.weights[l] - projections.weights[l]).cwiseAbs().maxCoeff() <= 1e-5);
        QVERIFY((read.bias.row(l) - projections.bias.row(l)).cwiseAbs().maxCoeff() <= 1e-5);
      }
      for (int position : {t.tokenCount() - 1, 1}) {
        const HeadContributions parts = headContributions(*model, text, t, position);
        const HeadContributions cached = headContributions(projections, t, position);
        for (int l = 0; l < t.layerCount(); ++l)
          QVERIFY((cached.heads[l] - parts.heads[l]).cwiseAbs().maxCoeff() <= 1e-5);
        QVERIFY((cached.outputBias - parts.outputBias).cwiseAbs().maxCoeff() <= 1e-5);
        for (int l = 0; l < t.layerCount(); ++l) {  // the probe's shares rebuild the layer's attention output
          const RowVec sum = parts.heads[l].colwise().sum() + parts.outputBias.row(l);
          QVERIFY((sum - attentionOutRows(t, l, position, 1)).cwiseAbs().maxCoeff() <= 1e-4);
        }
        for (int versus : {-1, 7}) {
          const Attribution a = directLogitAttribution(*model, t, parts, 5, versus);
          const Vec logits = rowLogits(*model->unembedding(), t.layers.back().residualOut.row(position).transpose());
          const double expected = logits(5) - (versus >= 0 ? logits(7) : 0.0f);
          QVERIFY(std::abs(a.logit - expected) <= kTolerance * std::max(1.0, std::abs(expected)));
          QVERIFY2(std::abs(a.total() - a.logit) <= kTolerance * std::max(1.0, std::abs(a.logit)),
                   qPrintable(
                       QString("%1: %2 vs %3").arg(c["model"].get<std::string>().c_str()).arg(a.total()).arg(a.logit)));
          QCOMPARE(a.heads.rows(), static_cast<Eigen::Index>(t.layerCount()));
          QVERIFY(a.heads.cwiseAbs().maxCoeff() > 0.0);
        }
      }
    }
  }

  void patchingMatchesReference() {
    const nlohmann::json c = reference()["cases"][0];
    const nlohmann::json& p = c["patching"];
    const auto model = open(c);
    const TokenizedText clean = model->tokenize(p["clean"].get<std::string>());
    const TokenizedText corrupt = model->tokenize(p["corrupt"].get<std::string>());
    QCOMPARE(clean.ids, p["clean_ids"].get<std::vector<int>>());
    QCOMPARE(corrupt.ids, p["corrupt_ids"].get<std::vector<int>>());
    std::vector<double> progress;
    RunControl control;
    control.progress = [&progress](double f) { progress.push_back(f); };
    const PatchingResult r = activationPatching(*model, clean, corrupt, p["target"], p["versus"], control);
    QVERIFY(std::abs(r.cleanDiff - p["clean_diff"].get<double>()) <= kTolerance);
    QVERIFY(std::abs(r.corruptDiff - p["corrupt_diff"].get<double>()) <= kTolerance);
    QVERIFY(std::abs(r.heads(1, 2) - p["effect"].get<double>()) <= 1e-3);  // a ratio of float differences
    const int n = static_cast<int>(clean.ids.size()), layers = static_cast<int>(r.heads.rows());
    QCOMPARE(r.resid.rows(), static_cast<Eigen::Index>(layers + 1));
    QVERIFY(std::abs(r.resid(0, 11) - 1.0) <= 1e-4);  // the one position where the two texts differ
    QVERIFY(std::abs(r.resid(layers, n - 1) - 1.0) <= 1e-4);
    for (int i = 0; i < n; ++i)
      if (i != 11) QVERIFY(std::abs(r.resid(0, i)) <= 1e-4);  // the same token in both runs: no effect
    QVERIFY(!progress.empty() && progress.back() == 1.0);
  }

  void resumedRunsEqualFullForwardPasses() {
    for (const char* name : {"models/gpt2_tiny", "decoders/llama-gqa", "decoders/qwen2-bias", "decoders/gemma2-softcap",
                             "decoders/gemma3-pattern", "decoders/mistral-window", "decoders/qwen3-norms",
                             "decoders/llama-dynamic", "decoders/gemma-mqa"}) {
      const auto model = loadCheckpoint(std::string(ATTNLAB_TEST_DATA) + "/reference/" + name);
      TokenizedText clean = model->tokenize("The cat sat on the mat because it was warm and soft");
      TokenizedText corrupt = clean;
      const std::size_t changed = clean.ids.size() - 2;  // inside a sliding window of the last position
      corrupt.ids[changed] = (corrupt.ids[changed] + 7) % static_cast<int>(model->unembedding()->vocab);
      const Trace cleanRun = model->forward(clean), corruptRun = model->forward(corrupt);
      const std::vector<Intervention> ivs = everyPatch(cleanRun);
      const std::vector<Vec> fast = model->lastRowsWith(corrupt, corruptRun, ivs);
      const std::vector<Vec> slow = model->Model::lastRowsWith(corrupt, corruptRun, ivs);
      QCOMPARE(fast.size(), ivs.size());
      const Vec plain = corruptRun.layers.back().residualOut.bottomRows(1).transpose();
      double w = 0.0;
      int changedRuns = 0;
      for (std::size_t i = 0; i < ivs.size(); ++i) {
        w = std::max<double>(w,
                             (fast[i] - slow[i]).cwiseAbs().maxCoeff() / std::max(1.0f, slow[i].cwiseAbs().maxCoeff()));
        changedRuns += slow[i] != plain;  // a patch that copies equal values gives the same row bit for bit
      }
      QVERIFY2(w <= 1e-5, name);
      QVERIFY2(changedRuns >= cleanRun.layerCount(), name);  // the patches do change the stream
    }
  }

  void resumedRowsWithAblationsEqualFullForwardPasses() {
    // The atlas's ablation effect (Model::rowsWith): every head zeroed, a head set to its mean, two heads of
    // different layers, patches and a residual patch in the same batch; rows kept anywhere in the text.
    for (const char* name : {"models/gpt2_tiny", "decoders/llama-gqa", "decoders/qwen2-bias", "decoders/gemma2-softcap",
                             "decoders/gemma3-pattern", "decoders/mistral-window", "decoders/gemma-mqa"}) {
      const auto model = loadCheckpoint(std::string(ATTNLAB_TEST_DATA) + "/reference/" + name);
      const TokenizedText text = model->tokenize("The cat sat on the mat because it was warm and soft");
      TokenizedText other = text;
      other.ids[3] = (other.ids[3] + 5) % static_cast<int>(model->unembedding()->vocab);
      const Trace plain = model->forward(text), otherRun = model->forward(other);
      const int layers = plain.layerCount(), heads = plain.headCount(), n = plain.tokenCount();
      std::vector<Intervention> ivs;
      for (int l = 0; l < layers; ++l)
        for (int h = 0; h < heads; ++h) {
          ivs.emplace_back();
          ivs.back().ablate = {{l, h}};
        }
      ivs.emplace_back();
      ivs.back().ablate = {{layers - 1, 0}};
      ivs.back().mode = AblationMode::Mean;
      ivs.emplace_back();
      ivs.back().ablate = {{0, 1}, {layers - 1, heads - 1}};
      ivs.back().mode = AblationMode::Mean;
      ivs.emplace_back();
      ivs.back().source = &otherRun;
      ivs.back().patchHeads = {{1, 0}};
      ivs.back().ablate = {{1, 1}};
      ivs.emplace_back();
      ivs.back().source = &otherRun;
      ivs.back().residualLayer = layers;
      ivs.back().residualPosition = n - 1;
      const std::vector<int> rows = {0, 3, 4, n - 2, n - 1};
      const std::vector<Mat> fast = model->rowsWith(text, plain, ivs, rows);
      const std::vector<Mat> slow = model->Model::rowsWith(text, plain, ivs, rows);
      QCOMPARE(fast.size(), ivs.size());
      const Mat unchanged = model->Model::rowsWith(text, plain, {Intervention{}}, rows)[0];
      double w = 0.0;
      int changed = 0;
      for (std::size_t i = 0; i < ivs.size(); ++i) {
        QCOMPARE(fast[i].rows(), static_cast<Eigen::Index>(rows.size()));
        w = std::max<double>(w,
                             (fast[i] - slow[i]).cwiseAbs().maxCoeff() / std::max(1.0f, slow[i].cwiseAbs().maxCoeff()));
        changed += (slow[i] - unchanged).cwiseAbs().maxCoeff() > 0;
      }
      QVERIFY2(w <= 1e-5, name);
      QVERIFY2(changed >= layers * heads, name);  // the ablations do change the rows
    }
    const auto model = loadCheckpoint(std::string(ATTNLAB_TEST_DATA) + "/reference/models/gpt2_tiny");
    const TokenizedText text = model->tokenize("The cat sat on the mat");
    const Trace plain = model->forward(text);
    bool refused = false;
    try {
      model->rowsWith(text, plain, {Intervention{}}, {3, 1});
    } catch (const InputError& e) {
      refused = std::string(e.what()).find("in order") != std::string::npos;
    }
    QVERIFY(refused);
  }

  void reusedLayersGiveTheSameTrace() {
    // The window's ablation toggle: the layers before the switched head come from the last run.
    for (const char* name : {"models/gpt2_tiny", "decoders/llama-gqa"}) {
      const auto model = loadCheckpoint(std::string(ATTNLAB_TEST_DATA) + "/reference/" + name);
      const TokenizedText text = model->tokenize("The cat sat on the mat because it was warm");
      const int layers = model->info().layers;
      Intervention before;
      before.ablate = {{0, 0}};
      const Trace last = model->forward(text, {}, before);
      Intervention now;
      now.ablate = {{0, 0}, {layers - 1, 1}};
      const Trace full = model->forward(text, {}, now);
      now.reuse = &last;
      now.reuseLayers = firstDifferingLayer(before, now, layers);
      QCOMPARE(now.reuseLayers, layers - 1);
      const Trace reused = model->forward(text, {}, now);
      QCOMPARE(reused.layerCount(), layers);
      QCOMPARE(reused.layers.back().residualOut, full.layers.back().residualOut);
      QCOMPARE(reused.layers[0].heads[0].attention, full.layers[0].heads[0].attention);
      TokenizedText other = text;  // another sentence: nothing may be copied
      other.ids[1] = (other.ids[1] + 1) % static_cast<int>(model->unembedding()->vocab);
      Intervention plainAblation;
      plainAblation.ablate = now.ablate;
      QCOMPARE(model->forward(other, {}, now).layers.back().residualOut,
               model->forward(other, {}, plainAblation).layers.back().residualOut);
    }
  }

  void fastPatchingMapEqualsTheFullForwardMap() {
    const nlohmann::json c = reference()["cases"][0];
    const nlohmann::json& p = c["patching"];
    const auto model = open(c);
    const TokenizedText clean = model->tokenize(p["clean"].get<std::string>());
    const TokenizedText corrupt = model->tokenize(p["corrupt"].get<std::string>());
    const PatchingResult fast = activationPatching(*model, clean, corrupt, p["target"], p["versus"]);
    const PatchingResult slow = activationPatching(FullForwardModel(*model), clean, corrupt, p["target"], p["versus"]);
    QVERIFY((fast.heads - slow.heads).cwiseAbs().maxCoeff() <= 1e-4);
    QVERIFY((fast.resid - slow.resid).cwiseAbs().maxCoeff() <= 1e-4);
    QVERIFY(slow.heads.cwiseAbs().maxCoeff() > 1e-3);  // the map is not trivially zero
  }

  void logitLensEndsAtThePrediction() {
    const nlohmann::json c = reference()["cases"][0];
    const auto model = open(c);
    const Trace t = model->forward(fromIds(c["token_ids"]));
    const std::vector<LensRow> lens = logitLens(*model, t, -1, 5);
    QCOMPARE(lens.size(), size_t(t.layerCount() + 1));
    QCOMPARE(lens.front().layer, -1);
    const std::vector<TokenScore> top = predict(*model, t, -1, 5);
    QCOMPARE(lens.back().top[0].id, top[0].id);
    QVERIFY(std::abs(lens.back().top[0].prob - top[0].prob) < 1e-5);  // a batched product: float rounding
    const LensGrid g = logitLensGrid(*model, t, {0, t.tokenCount() - 1});
    QCOMPARE(g.topId(t.layerCount(), 1), top[0].id);
    QCOMPARE(g.topId(0, 1), lens.front().top[0].id);
    QVERIFY(std::abs(g.topProb(t.layerCount(), 1) - top[0].prob) < 1e-5);
    const std::vector<TokenScore> kept = samplingKeeps(*model, lastLogits(*model, t), 1.0, 4, 0.5);
    QVERIFY(!kept.empty() && kept.size() <= 4);
    double sum = 0.0;
    for (const TokenScore& k : kept) sum += k.prob;
    QVERIFY(std::abs(sum - 1.0) < 1e-9);
    // readPosition: the same prediction (at a temperature) and lens from one product.
    const PositionReadout r = readPosition(*model, t, -1, 5, 0.7, 5);
    const std::vector<TokenScore> hot = predict(*model, t, -1, 5, 0.7);
    QCOMPARE(r.top.size(), hot.size());
    for (std::size_t i = 0; i < hot.size(); ++i) {
      QCOMPARE(r.top[i].id, hot[i].id);
      QVERIFY(std::abs(r.top[i].prob - hot[i].prob) < 1e-5);
    }
    QCOMPARE(r.lens.size(), lens.size());
    for (std::size_t l = 0; l < lens.size(); ++l) QCOMPARE(r.lens[l].top[0].id, lens[l].top[0].id);
    QVERIFY((r.logits - lastLogits(*model, t)).cwiseAbs().maxCoeff() < 1e-4f);
  }

  void badInputIsRefused() {
    const nlohmann::json c = reference()["cases"][0];
    const auto model = open(c);
    const TokenizedText text = fromIds(c["token_ids"]);
    const Trace t = model->forward(text);
    auto message = [](auto f) {
      try {
        f();
      } catch (const InputError& e) {
        return std::string(e.what());
      }
      return std::string();
    };
    QVERIFY(message([&] { predict(*model, t, 99, 3); }).find("outside the sentence") != std::string::npos);
    QVERIFY(message([&] { resolveToken(*model, "Ġnonexistentpiece"); }).find("unknown token") != std::string::npos);
    QVERIFY(message([&] { resolveToken(*model, "100000"); }).find("outside the vocabulary") != std::string::npos);
    QCOMPARE(resolveToken(*model, "Ġcat"), 302);
    QCOMPARE(resolveToken(*model, " cat"), 302);  // text that is one token
    QVERIFY(message([&] { resolveToken(*model, " cat sat"); }).find("unknown token") != std::string::npos);
    QCOMPARE(resolveToken(*model, "17"), 17);
    Intervention iv;
    iv.ablate = {{5, 0}};
    QVERIFY(message([&] { ablationEffect(*model, text, t, iv); }).find("does not exist") != std::string::npos);
    const TokenizedText shorter = model->tokenize("The cat");
    QVERIFY(message([&] { activationPatching(*model, text, shorter, 1, 2); }).find("same number of tokens") !=
            std::string::npos);
    const auto gemma = loadCheckpoint(std::string(ATTNLAB_TEST_DATA) + "/reference/decoders/gemma2-softcap");
    const TokenizedText g = gemma->tokenize("The cat");
    QVERIFY(message([&] { headContributions(*gemma, g, gemma->forward(g), -1); }).find("non-linear") !=
            std::string::npos);
  }
};

ATTNLAB_TEST_MAIN(TestPredict)
#include "test_predict.moc"
