// The main of every room's test executable (see test_registry.h):
//   test_ROOM UNIT [QTest options]   runs one registered class, as its own QTEST_*_MAIN would;
//   test_ROOM --list                 prints the units it holds, one per line.
#include <QApplication>
#include <cstring>
#include <iostream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "tests/harness/test_registry.h"

namespace attnlab_test {
namespace {

struct Entry {
  std::string sourceFile;
  TestApp app;
  RunTestClass run;
};

/// Filled by the static initialisers of the test files, before main.
std::map<std::string, Entry>& registry() {
  static std::map<std::string, Entry> units;
  return units;
}

/// ".../tests/core/model/test_builtin_engine.cpp" → "builtin_engine".
std::string unitName(const std::string& file) {
  std::string name = file.substr(file.find_last_of('/') + 1);
  if (name.rfind("test_", 0) == 0) name.erase(0, 5);
  if (const auto dot = name.rfind('.'); dot != std::string::npos) name.erase(dot);
  return name;
}

}  // namespace

bool registerTestClass(const char* sourceFile, TestApp app, RunTestClass run) {
  const std::string unit = unitName(sourceFile);
  if (!registry().emplace(unit, Entry{sourceFile, app, run}).second) {
    std::cerr << "test harness: two test files named " << unit << " in one executable\n";
    std::abort();
  }
  return true;
}

}  // namespace attnlab_test

int main(int argc, char** argv) {
  using namespace attnlab_test;
  const auto& units = registry();
  if (argc < 2 || std::strcmp(argv[1], "--list") == 0) {
    for (const auto& [name, entry] : units) std::cout << name << "\n";
    return argc < 2 ? 2 : 0;
  }
  const auto found = units.find(argv[1]);
  if (found == units.end()) {
    std::cerr << argv[0] << ": no test unit '" << argv[1] << "' (--list names them)\n";
    return 2;
  }
  // QTest sees the program name and the options after the unit's name.
  std::vector<char*> args{argv[0]};
  args.insert(args.end(), argv + 2, argv + argc);
  int qtArgc = static_cast<int>(args.size());
  args.push_back(nullptr);
  std::unique_ptr<QCoreApplication> app;
  if (found->second.app == TestApp::Widgets)
    app = std::make_unique<QApplication>(qtArgc, args.data());
  else if (found->second.app == TestApp::Core)
    app = std::make_unique<QCoreApplication>(qtArgc, args.data());
  if (app) app->setAttribute(Qt::AA_Use96Dpi, true);  // as QTEST_MAIN's set-up
  QTest::setMainSourcePath(found->second.sourceFile.c_str());
  return found->second.run(qtArgc, args.data());
}
