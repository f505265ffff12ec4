// Keys a params / session / lesson-step JSON holds that the program does not read (a misspelled `modelDir` used to
// fall back to the default model in silence): each named with the closest known key at its place, nested ones with
// their path; a session's own block and every field toJson writes are known; and no params, session or lesson file
// committed in resources/ and tests/ has one.
#include <QDirIterator>
#include <QFile>
#include <QtTest>

#include "core/session/params_json.h"
#include "core/session/params_keys.h"
#include "core/session/session.h"
#include "tests/harness/test_registry.h"

using namespace attnlab;
using nlohmann::json;

namespace {

std::string listed(const std::vector<UnknownKey>& keys) {
  std::string out;
  for (const UnknownKey& k : keys) out += k.path + "→" + k.suggestion + ";";
  return out;
}

}  // namespace

class TestParamsKeys : public QObject {
  Q_OBJECT
 private slots:
  void misspelledKeysNameTheClosest() {
    const json j = json::parse(R"({"schema": "attnlab.params/1", "modelDir": "/m", "sentence": "hi",
      "prediction": {"ablateCross": ["0.1"], "temperature": 2, "topk": 5},
      "selecton": {"layer": 1}, "zzzzzz": 1, "display": {"colourmap": "magma"},
      "future": {"anything": {"deep": 1}}})");
    QCOMPARE(listed(unknownParamsKeys(j)),
             std::string("display.colourmap→display.colormap;future→;modelDir→model_dir;prediction.ablateCross→"
                         "prediction.ablate_cross;prediction.topk→prediction.top_k;selecton→selection;zzzzzz→;"));
    QCOMPARE(
        unknownKeysMessage(unknownParamsKeys(json::parse(R"({"modelDir": "", "prediction": {"ablateCross": []}})"))),
        std::string("unknown key “modelDir” (did you mean “model_dir”?); unknown key “prediction.ablateCross” "
                    "(did you mean “prediction.ablate_cross”?)"));
    QCOMPARE(unknownKeysMessage(unknownParamsKeys(json::parse(R"({"qqqq": 1})"))), std::string("unknown key “qqqq”"));
    // The file is still read: the warning does not change what is known.
    const Params p = paramsFromJson(j);
    QCOMPARE(p.sentence, std::string("hi"));
    QCOMPARE(p.modelDir, std::string());  // the misspelled key is not taken for model_dir
  }

  void closestKeyLimits() {
    QCOMPARE(closestKey("MODEL-DIR", {"model_dir", "model"}), std::string("model_dir"));
    QCOMPARE(closestKey("lowercse", {"lowercase", "layer"}), std::string("lowercase"));
    QCOMPARE(closestKey("colour", {"colormap", "theme"}), std::string());  // 3 edits of 6 letters: too far
    QCOMPARE(closestKey("x", {"y", "layer"}), std::string("y"));           // short keys: up to 2 edits
  }

  void writtenFilesAreKnown() {
    Params p;
    p.target = "cat";
    p.targetPending = {36};
    p.prediction.ablateCross = {{0, 1}};
    QVERIFY(unknownParamsKeys(toJson(p)).empty());
    QVERIFY(unknownParamsKeys(sessionToJson(p)).empty());
    QVERIFY(unknownParamsKeys(json::parse("[1, 2]")).empty());  // not an object: paramsFromJson refuses it
  }

  /// Every params, session and lesson JSON committed: no unknown key (each lesson step's "params" read as params).
  void committedFilesHaveNone() {
    int files = 0, objects = 0;
    for (const QString root : {QString(ATTNLAB_TEST_DATA), QString(ATTNLAB_TEST_DATA) + "/../resources"}) {
      QDirIterator it(root, {"*.json"}, QDir::Files, QDirIterator::Subdirectories);
      while (it.hasNext()) {
        const QString path = it.next();
        QFile f(path);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const json j = json::parse(f.readAll().toStdString(), nullptr, false);
        if (!j.is_object()) continue;
        const std::string schema = j.value("schema", std::string());
        std::vector<json> params;
        if (schema.rfind("attnlab.lesson/", 0) == 0) {
          for (const json& step : j.value("steps", json::array()))
            if (step.is_object() && step.contains("params")) params.push_back(step["params"]);
        } else if (schema.rfind("attnlab.params/", 0) == 0 || j.contains("session")) {
          try {
            requireReadableSession(j);
          } catch (const std::exception&) {
            continue;  // a newer session (the fuzz corpus's): refused before its keys are read
          }
          params.push_back(j);
        } else {
          continue;
        }
        ++files;
        for (const json& one : params) {
          ++objects;
          QVERIFY2(unknownParamsKeys(one).empty(),
                   qPrintable(path + ": " + QString::fromStdString(unknownKeysMessage(unknownParamsKeys(one)))));
        }
      }
    }
    qInfo("%d files, %d params objects", files, objects);
    QVERIFY(files >= 15);  // 12 lessons and the fuzz corpus's sessions, at least
  }
};

ATTNLAB_TEST_GUILESS_MAIN(TestParamsKeys)
#include "test_params_keys.moc"
