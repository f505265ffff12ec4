// The rooms of core/ and ui/ keep their dependencies one-way (issue "The house and the window").
// Every #include "core/ROOM/…" or "ui/ROOM/…" in a .h/.cpp under core/ or ui/ must reach the file's own
// room, a room the table below lets it use, or a room below those; the rooms must not include each
// other in a circle; core/ includes neither Qt nor ui/; every file sits in a room. The table is the
// rooms' CMake links, which are checked against it too.
#include <QDirIterator>
#include <QFile>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>
#include <functional>
#include <map>
#include <set>

#include "tests/harness/test_registry.h"

namespace {

/// Room -> the rooms it links directly; "core" stands for every room of core/.
using RoomTable = std::map<QString, QStringList>;

// Bottom up, as core/CMakeLists.txt and ui/CMakeLists.txt add them.
const RoomTable kRooms = {
    {"core/base", {}},
    {"core/compute", {"core/base"}},
    {"core/text", {"core/base"}},
    {"core/model", {"core/text", "core/compute"}},
    {"core/spectra", {"core/model", "core/compute"}},
    {"core/checkpoint", {"core/model", "core/compute"}},
    {"core/predict", {"core/model"}},
    {"core/atlas", {"core/predict"}},
    {"core/variants", {"core/spectra"}},
    {"core/collapse", {"core/spectra"}},
    {"core/train", {"core/checkpoint"}},
    {"core/session", {"core/variants", "core/collapse"}},
    {"core/run", {"core/session", "core/train"}},
    {"ui/plots", {"core"}},
    {"ui/views/common", {"ui/plots"}},
    {"ui/views/attention", {"ui/views/common"}},
    {"ui/views/inside_head", {"ui/views/common"}},
    {"ui/views/variants", {"ui/views/common"}},
    {"ui/views/spectra", {"ui/views/common"}},
    {"ui/views/depth", {"ui/views/common"}},
    {"ui/views/training", {"ui/views/common"}},
    {"ui/views/prediction", {"ui/views/common"}},
    {"ui/views/heads", {"ui/views/common"}},
    {"ui/shell",
     {"ui/views/attention", "ui/views/inside_head", "ui/views/variants", "ui/views/spectra", "ui/views/depth",
      "ui/views/training", "ui/views/prediction", "ui/views/heads"}},
};

/// Where an include between two rooms was seen first, for the cycle message.
struct Edge {
  QString from, to, where;
};

class RoomChecker {
 public:
  explicit RoomChecker(RoomTable table) : table_(std::move(table)) {
    for (const auto& [room, deps] : table_) allowed_[room] = below(room);
  }

  /// Every broken rule under `root` (a source tree), as "path:line: what".
  QStringList check(const QString& root) const {
    QStringList failures;
    std::vector<Edge> edges;
    for (const QString& top : {QStringLiteral("core"), QStringLiteral("ui")}) {
      QDirIterator it(root + "/" + top, {"*.h", "*.cpp"}, QDir::Files, QDirIterator::Subdirectories);
      while (it.hasNext()) {
        const QString path = it.next();
        checkFile(path, QDir(root).relativeFilePath(path), failures, edges);
      }
    }
    findCycles(edges, failures);
    checkCMake(root, failures);
    failures.sort();
    return failures;
  }

 private:
  /// The room whose folder holds `path` directly (core/model/trace.h -> core/model), or "".
  QString roomOf(const QString& path) const {
    const QString dir = path.section('/', 0, -2);
    return table_.count(dir) ? dir : QString();
  }

  /// The rooms `room` may include: itself and, recursively, what it links.
  std::set<QString> below(const QString& room) const {
    std::set<QString> out{room};
    std::vector<QString> todo{room};
    while (!todo.empty()) {
      const QString r = todo.back();
      todo.pop_back();
      const auto it = table_.find(r);
      if (it == table_.end()) continue;
      for (const QString& d : it->second) {
        QStringList reach{d};
        if (d == "core") {
          reach.clear();
          for (const auto& [name, deps] : table_)
            if (name.startsWith("core/")) reach << name;
        }
        for (const QString& x : reach)
          if (out.insert(x).second) todo.push_back(x);
      }
    }
    return out;
  }

  void checkFile(const QString& path, const QString& rel, QStringList& failures, std::vector<Edge>& edges) const {
    const QString room = roomOf(rel);
    if (room.isEmpty()) {
      failures << rel + ": not in a room (core/ROOM/ or ui/ROOM/ of the table)";
      return;
    }
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) {
      failures << rel + ": cannot be read";
      return;
    }
    static const QRegularExpression project("^\\s*#\\s*include\\s*\"((core|ui)/[^\"]+)\"");
    static const QRegularExpression qt("^\\s*#\\s*include\\s*<(Q[A-Z]\\w*|Qt\\w*)[/>]");
    const bool inCore = room.startsWith("core/");
    const QStringList lines = QString::fromUtf8(f.readAll()).split('\n');
    for (int i = 0; i < lines.size(); ++i) {
      const QString where = rel + ":" + QString::number(i + 1);
      if (inCore && qt.match(lines[i]).hasMatch()) failures << where + ": core includes Qt: " + lines[i].trimmed();
      const QRegularExpressionMatch m = project.match(lines[i]);
      if (!m.hasMatch()) continue;
      const QString target = m.captured(1), targetRoom = roomOf(target);
      if (inCore && target.startsWith("ui/")) {
        failures << where + ": core includes ui: " + target;
        continue;
      }
      if (targetRoom.isEmpty()) {
        failures << where + ": includes " + target + ", which is in no room";
        continue;
      }
      if (!allowed_.at(room).count(targetRoom))
        failures << where + ": " + room + " may not include " + targetRoom + " (" + target + ")";
      if (targetRoom != room) edges.push_back({room, targetRoom, where});
    }
  }

  /// Depth-first search over the rooms' include graph; a back edge closes a cycle.
  static void findCycles(const std::vector<Edge>& edges, QStringList& failures) {
    // One edge per pair of rooms (the first include seen), so a cycle is reported once, not once per file.
    std::map<QString, std::vector<const Edge*>> out;
    std::set<std::pair<QString, QString>> pairs;
    for (const Edge& e : edges)
      if (pairs.insert({e.from, e.to}).second) out[e.from].push_back(&e);
    std::map<QString, int> state;  // 0 unvisited, 1 on the stack, 2 done
    std::vector<const Edge*> stack;
    std::set<QString> reported;
    std::function<void(const QString&)> visit = [&](const QString& room) {
      state[room] = 1;
      const auto edgesOut = out.find(room);
      if (edgesOut != out.end()) {
        for (const Edge* e : edgesOut->second) {
          if (state[e->to] == 1) {
            QString cycle = e->to;
            bool in = false;
            for (const Edge* s : stack) {
              in = in || s->from == e->to;
              if (in) cycle += " -> " + s->to + " (" + s->where + ")";
            }
            cycle += " -> " + e->to + " (" + e->where + ")";
            if (reported.insert(cycle).second) failures << "cycle between rooms: " + cycle;
          } else if (state[e->to] == 0) {
            stack.push_back(e);
            visit(e->to);
            stack.pop_back();
          }
        }
      }
      state[room] = 2;
    };
    for (const auto& [room, list] : out)
      if (state[room] == 0) visit(room);
  }

  static QString targetName(const QString& room) { return "attnlab_" + QString(room).replace('/', '_'); }

  /// Each room's CMakeLists.txt links exactly the rooms the table gives it.
  void checkCMake(const QString& root, QStringList& failures) const {
    std::map<QString, QString> roomOfTarget{{"attnlab_core", "core"}};
    for (const auto& [room, deps] : table_) roomOfTarget[targetName(room)] = room;
    static const QRegularExpression target("\\battnlab_(core|ui)\\w*");
    for (const auto& [room, deps] : table_) {
      const QString rel = room + "/CMakeLists.txt";
      QFile f(root + "/" + rel);
      if (!f.open(QIODevice::ReadOnly)) {
        failures << rel + ": missing";
        continue;
      }
      std::set<QString> linked;
      auto it = target.globalMatch(QString::fromUtf8(f.readAll()));
      while (it.hasNext()) {
        const QString name = it.next().captured(0);
        if (name != targetName(room) && roomOfTarget.count(name)) linked.insert(roomOfTarget.at(name));
      }
      if (linked != std::set<QString>(deps.begin(), deps.end()))
        failures << rel + ": links " + QStringList(linked.begin(), linked.end()).join(", ") +
                        "; the table in tests/test_room_dependencies.cpp says " + deps.join(", ");
    }
  }

  RoomTable table_;
  std::map<QString, std::set<QString>> allowed_;
};

void writeFile(const QString& path, const QByteArray& text) {
  QDir().mkpath(path.section('/', 0, -2));
  QFile f(path);
  QVERIFY(f.open(QIODevice::WriteOnly));
  f.write(text);
}

}  // namespace

class TestRoomDependencies : public QObject {
  Q_OBJECT
 private slots:
  void sourceTreeKeepsTheRoomsOneWay() {
    const QStringList failures = RoomChecker(kRooms).check(ATTNLAB_SOURCE_DIR);
    for (const QString& f : failures) qWarning().noquote() << f;  // QVERIFY2 would cut a long list
    QVERIFY2(failures.isEmpty(), qPrintable(QString::number(failures.size()) + " broken rule(s), listed above"));
  }

  // The checker on a small tree of three rooms: clean first, then each broken rule is named with its line.
  void checkerNamesEveryBrokenRule() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString root = dir.path();
    const RoomTable table = {{"core/low", {}}, {"core/high", {"core/low"}}, {"ui/top", {"core"}}};
    writeFile(root + "/core/low/CMakeLists.txt", "add_library(attnlab_core_low STATIC a.cpp)\n");
    writeFile(root + "/core/high/CMakeLists.txt", "target_link_libraries(attnlab_core_high PUBLIC attnlab_core_low)\n");
    writeFile(root + "/ui/top/CMakeLists.txt", "target_link_libraries(attnlab_ui_top PUBLIC attnlab_core)\n");
    writeFile(root + "/core/low/a.h", "#pragma once\n#include <vector>\n");
    writeFile(root + "/core/high/b.h", "#pragma once\n#include \"core/low/a.h\"\n");
    writeFile(root + "/ui/top/w.h", "#pragma once\n#include <QWidget>\n#include \"core/high/b.h\"\n");
    RoomChecker checker(table);
    QCOMPARE(checker.check(root), QStringList());

    writeFile(root + "/core/low/a.cpp", "#include \"core/low/a.h\"\n#include \"core/high/b.h\"\n");
    writeFile(root + "/core/low/q.h", "#pragma once\n\n#include <QString>\n");
    writeFile(root + "/core/low/u.h", "#pragma once\n#include \"ui/top/w.h\"\n");
    writeFile(root + "/core/stray.h", "#pragma once\n");
    writeFile(root + "/core/high/CMakeLists.txt", "add_library(attnlab_core_high STATIC b.cpp)\n");
    const QStringList failures = checker.check(root);
    const QStringList expected = {
        "core/high/CMakeLists.txt: links ; the table in tests/test_room_dependencies.cpp says core/low",
        "core/low/a.cpp:2: core/low may not include core/high (core/high/b.h)",
        "core/low/q.h:3: core includes Qt: #include <QString>",
        "core/low/u.h:2: core includes ui: ui/top/w.h",
        "core/stray.h: not in a room (core/ROOM/ or ui/ROOM/ of the table)",
    };
    for (const QString& e : expected)
      QVERIFY2(failures.contains(e), qPrintable(e + "\nnot in:\n" + failures.join('\n')));
    const QStringList cycles = failures.filter("cycle between rooms: ");
    QCOMPARE(cycles.size(), 1);
    QVERIFY2(cycles[0].contains("core/low/a.cpp:2") && cycles[0].contains("core/high/b.h:2"), qPrintable(cycles[0]));
    QCOMPARE(failures.size(), expected.size() + 1);
  }
};

ATTNLAB_TEST_GUILESS_MAIN(TestRoomDependencies)
#include "test_room_dependencies.moc"
