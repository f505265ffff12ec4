// The three writers of `attnlab dump` (core/model/trace_json.h, trace_npy.h) give one document: the stream's text is
// the tree's dump() byte for byte (compact and indented, with and without the options that leave parts out); a
// document with parts left out holds exactly the full document's values where it has them, and keeps every layer's
// and head's place; the .npy folder's index is the document with each matrix replaced by a reference to a file
// that holds the same float32 values. A built-in causal model (maps kept) and GPT-2 tiny run
// as a long input is (no map kept: maps and attention/MLP outputs recomputed while they are written).
#include <QtTest>

#include <cstring>
#include <map>

#include "core/checkpoint/checkpoint.h"
#include "core/model/builtin_model.h"
#include "core/model/trace_json.h"
#include "core/model/trace_npy.h"
#include "tests/harness/test_registry.h"

using namespace attnlab;

Q_DECLARE_METATYPE(attnlab::TraceJsonOptions)

namespace {

/// tiled: GPT-2 tiny (2 layers, 4 heads) without maps kept; else the built-in block model (3 layers, 2 heads).
Trace causalTrace(bool tiled) {
  if (tiled) {
    const auto model = loadCheckpoint(std::string(ATTNLAB_TEST_DATA) + "/reference/models/gpt2_tiny");
    Intervention iv;
    iv.maps = MapKeeping::Never;
    return model->forward(model->tokenize("the quick brown fox jumps over the lazy dog"), {}, iv);
  }
  ModelConfig c;
  c.mode = Mode::Block;
  c.causal = true;
  c.dModel = 16;
  c.heads = 2;
  c.layers = 3;
  const BuiltinModel model(c);
  return model.forward(model.tokenize("the quick brown fox jumps over lazy dogs"));
}

const nlohmann::json kConfig = {{"kind", "builtin"}, {"heads", 2}};
const nlohmann::json kExtra = {{"params", {{"sentence", "caf\xc3 ok"}, {"layer", 0}}}, {"spectrum", {1.5, 2.5}}};

std::string streamed(const Trace& t, const TraceJsonOptions& o, int indent) {
  std::string text;
  JsonStreamWriter w([&](std::string_view piece) { text += piece; }, indent, 4096);
  writeTraceJson(w, t, kConfig, o, kExtra);
  return text;
}

/// Every value of `part` is the same in `whole` (objects: key by key; anything else: equal).
bool containedIn(const nlohmann::json& part, const nlohmann::json& whole) {
  if (!part.is_object()) return part == whole;
  if (!whole.is_object()) return false;
  for (const auto& item : part.items())
    if (!whole.contains(item.key()) || !containedIn(item.value(), whole[item.key()])) return false;
  return true;
}

/// The float32 values of a 2-D .npy file written by npyBytes (header length at bytes 8–9).
Mat readNpy(const std::string& bytes, Eigen::Index rows, Eigen::Index cols) {
  const std::size_t data = 10 + static_cast<unsigned char>(bytes[8]) + 256 * static_cast<unsigned char>(bytes[9]);
  Mat m(rows, cols);
  for (Eigen::Index i = 0; i < rows; ++i)
    for (Eigen::Index j = 0; j < cols; ++j)
      std::memcpy(&m(i, j), bytes.data() + data + 4 * static_cast<std::size_t>(i * cols + j), 4);
  return m;
}

TraceJsonOptions options(bool qkv, bool streams, std::vector<std::pair<int, int>> only, std::vector<int> layers) {
  TraceJsonOptions o;
  o.qkv = qkv;
  o.streams = streams;
  o.allMaps = only.empty();
  o.mapsOf = std::move(only);
  o.layers = std::move(layers);
  return o;
}

}  // namespace

class TestTraceWriters : public QObject {
  Q_OBJECT
 private slots:
  void streamIsTheTreeByteForByte_data() {
    QTest::addColumn<TraceJsonOptions>("o");
    QTest::addColumn<int>("indent");
    QTest::addColumn<bool>("tiled");
    QTest::newRow("everything") << TraceJsonOptions{} << -1 << false;
    QTest::newRow("everything, indent 2") << TraceJsonOptions{} << 2 << false;
    QTest::newRow("everything, maps recomputed") << TraceJsonOptions{} << -1 << true;
    QTest::newRow("--only 1.1 --no-qkv") << options(false, true, {{1, 1}}, {}) << -1 << true;
    QTest::newRow("--only 1.1 --no-qkv --no-streams") << options(false, false, {{1, 1}}, {}) << -1 << true;
    QTest::newRow("--no-streams, indent 1") << options(true, false, {}, {}) << 1 << false;
    QTest::newRow("--only-layers 0,2") << options(true, true, {}, {0, 2}) << -1 << false;
    QTest::newRow("--only-layers 1 --only 1.3 --no-streams, indent 3")
        << options(true, false, {{1, 3}}, {1}) << 3 << true;
  }
  void streamIsTheTreeByteForByte() {
    QFETCH(TraceJsonOptions, o);
    QFETCH(int, indent);
    QFETCH(bool, tiled);
    const Trace t = causalTrace(tiled);
    const nlohmann::json tree = traceToJson(t, kConfig, o, kExtra);
    const std::string text = streamed(t, o, indent);
    QCOMPARE(QString::fromStdString(text),
             QString::fromStdString(tree.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace)));
    // What is left out, and what stays: every layer and head keeps its place.
    const nlohmann::json parsed = nlohmann::json::parse(text);
    QCOMPARE(parsed["layers"].size(), static_cast<std::size_t>(t.layerCount()));
    QCOMPARE(parsed.contains("embeddings"), o.streams);
    QCOMPARE(parsed["spectrum"], kExtra["spectrum"]);
    for (int l = 0; l < t.layerCount(); ++l) {
      const nlohmann::json& layer = parsed["layers"][l];
      const bool written = o.layers.empty() || std::find(o.layers.begin(), o.layers.end(), l) != o.layers.end();
      QCOMPARE(layer.empty(), !written);
      if (!written) continue;
      QCOMPARE(layer["heads"].size(), static_cast<std::size_t>(t.headCount()));
      QCOMPARE(layer.contains("residual_out") && layer.contains("residual_in") && layer.contains("concat") &&
                   layer.contains("attention_out") && layer.contains("mlp_out"),
               o.streams);
      for (int h = 0; h < t.headCount(); ++h) {
        const nlohmann::json& head = layer["heads"][h];
        const bool maps =
            o.allMaps || std::find(o.mapsOf.begin(), o.mapsOf.end(), std::make_pair(l, h)) != o.mapsOf.end();
        QCOMPARE(head.contains("attention") && head.contains("scores"), maps);
        QCOMPARE(head.contains("q") && head.contains("k") && head.contains("v"), o.qkv);
        QCOMPARE(head.contains("output"), o.streams);
        if (maps) QCOMPARE(head["attention"][0][1].get<double>(), 0.0);  // a causal map: nothing above the diagonal
      }
    }
  }

  void leftOutPartsLeaveTheRestEqual() {
    // The reduced documents hold the full one's values where they overlap (the tree is compared above).
    const Trace t = causalTrace(true);
    const nlohmann::json whole = nlohmann::json::parse(streamed(t, {}, -1));
    for (const TraceJsonOptions& o : {options(false, true, {{1, 1}}, {}), options(true, false, {}, {}),
                                      options(false, false, {{0, 3}}, {0}), options(true, true, {}, {1})}) {
      const nlohmann::json part = nlohmann::json::parse(streamed(t, o, -1));
      QVERIFY(part.dump().size() < whole.dump().size());
      for (std::size_t l = 0; l < whole["layers"].size();
           ++l)  // layers and heads are arrays: compare them position by position
        for (std::size_t h = 0; h < part["layers"][l].value("heads", nlohmann::json::array()).size(); ++h)
          QVERIFY(containedIn(part["layers"][l]["heads"][h], whole["layers"][l]["heads"][h]));
      nlohmann::json top = part, wholeTop = whole;
      for (std::size_t l = 0; l < whole["layers"].size(); ++l) {
        top["layers"][l].erase("heads");
        wholeTop["layers"][l].erase("heads");
        QVERIFY(containedIn(top["layers"][l], wholeTop["layers"][l]));
      }
      top.erase("layers");
      QVERIFY(containedIn(top, whole));
    }
  }

  void npyFolderHoldsTheSameValues() {
    const Trace t = causalTrace(true);
    const TraceJsonOptions o = options(false, true, {{1, 0}}, {});
    std::map<std::string, std::string> files;
    const nlohmann::json index = traceToNpy(t, kConfig, o, kExtra, [&](const std::string& name, const std::string& b) {
      QVERIFY2(!files.count(name), name.c_str());  // one file per matrix
      files[name] = b;
    });
    const nlohmann::json doc = nlohmann::json::parse(streamed(t, o, -1));
    QCOMPARE(index["tokens"], doc["tokens"]);
    QCOMPARE(index["params"], kExtra["params"]);
    QCOMPARE(index["layers"].size(), doc["layers"].size());
    int checked = 0;
    const auto check = [&](const nlohmann::json& ref, const nlohmann::json& rows) {
      const std::string name = ref["npy"];
      QVERIFY2(files.count(name), name.c_str());
      QCOMPARE(ref["dtype"], nlohmann::json("float32"));
      const Eigen::Index r = ref["shape"][0], c = ref["shape"][1];
      QCOMPARE(static_cast<std::size_t>(r), rows.size());
      const Mat m = readNpy(files[name], r, c);
      for (Eigen::Index i = 0; i < r; ++i)
        for (Eigen::Index j = 0; j < c; ++j) {
          const nlohmann::json& v = rows[i][j];
          if (v.is_null())
            QVERIFY(!std::isfinite(m(i, j)));  // the .npy keeps what the JSON writes as null
          else
            QCOMPARE(static_cast<double>(m(i, j)), v.get<double>());
        }
      ++checked;
    };
    check(index["embeddings"], doc["embeddings"]);
    QCOMPARE(index["embeddings"]["npy"], nlohmann::json("embeddings.npy"));
    for (std::size_t l = 0; l < doc["layers"].size(); ++l) {
      for (const char* key : {"residual_in", "concat", "attention_out", "mlp_out", "residual_out"})
        check(index["layers"][l][key], doc["layers"][l][key]);
      for (std::size_t h = 0; h < doc["layers"][l]["heads"].size(); ++h)
        for (const auto& item : doc["layers"][l]["heads"][h].items())
          check(index["layers"][l]["heads"][h][item.key()], item.value());
    }
    QCOMPARE(index["layers"][1]["heads"][0]["attention"]["npy"], nlohmann::json("L1_H0_attention.npy"));
    QCOMPARE(checked, static_cast<int>(files.size()));  // every file is named in the index
  }
};

ATTNLAB_TEST_APPLESS_MAIN(TestTraceWriters)
#include "test_trace_writers.moc"
