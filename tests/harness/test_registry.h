#pragma once
// Many Qt Test classes in one executable (one executable per room: the build links 18 programs instead of
// 74), each still run on its own as one ctest entry: `test_core_model builtin_engine [QTest options]`.
// A test file ends with ATTNLAB_TEST_MAIN(TestClass) (a QApplication, as QTEST_MAIN), ATTNLAB_TEST_GUILESS_MAIN
// (a QCoreApplication) or ATTNLAB_TEST_APPLESS_MAIN (none), which registers the class under its unit name, the
// file's name without "test_" and ".cpp" (tests/core/model/test_builtin_engine.cpp → builtin_engine).
// tests/harness/test_main.cpp creates the application object the unit asks for and runs it through QTest::qExec.
#include <QtTest>

namespace attnlab_test {

/// The application object a test class runs under, as QTest's three main macros make them.
enum class TestApp { None, Core, Widgets };

/// Runs the registered class's slots: QTest::qExec on a new instance with these arguments.
using RunTestClass = int (*)(int argc, char** argv);

/// Adds the class defined in `sourceFile` (its __FILE__); returns true so it can initialise a static.
bool registerTestClass(const char* sourceFile, TestApp app, RunTestClass run);

}  // namespace attnlab_test

#define ATTNLAB_TEST_REGISTER(TestObject, App)                                                    \
  namespace {                                                                                     \
  int attnlabRunTestClass(int argc, char** argv) {                                                \
    TestObject tc;                                                                                \
    return QTest::qExec(&tc, argc, argv);                                                         \
  }                                                                                               \
  [[maybe_unused]] const bool attnlabTestClassRegistered =                                        \
      attnlab_test::registerTestClass(__FILE__, attnlab_test::TestApp::App, attnlabRunTestClass); \
  }

#define ATTNLAB_TEST_MAIN(TestObject) ATTNLAB_TEST_REGISTER(TestObject, Widgets)
#define ATTNLAB_TEST_GUILESS_MAIN(TestObject) ATTNLAB_TEST_REGISTER(TestObject, Core)
#define ATTNLAB_TEST_APPLESS_MAIN(TestObject) ATTNLAB_TEST_REGISTER(TestObject, None)
