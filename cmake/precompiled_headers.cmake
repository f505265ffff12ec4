# Precompiled headers: Eigen, nlohmann/json, Qt and the standard library are parsed once per kind of target
# instead of once per source file (Eigen/Dense alone is ~1 s of every core unit, QtWidgets ~2 s of every ui one).
# Three kinds, because a precompiled header only serves units compiled with the same flags: "core" (no Qt, no
# -fPIC), "ui" (the Qt rooms, the program and the benchmarks) and "tests" (with QtTest). The first target of a
# kind compiles the header; the others reuse it (REUSE_FROM), so each is compiled once per build.
# -DATTNLAB_PCH=OFF turns them off (e.g. to check that every file includes what it uses).
option(ATTNLAB_PCH "Precompile the heavy third-party headers" ON)

set(ATTNLAB_PCH_HEADERS_core <algorithm> <cmath> <cstdint> <functional> <limits> <map> <memory> <string>
    <string_view> <utility> <vector> <Eigen/Dense> <nlohmann/json.hpp>)
set(ATTNLAB_PCH_HEADERS_ui ${ATTNLAB_PCH_HEADERS_core} <QtWidgets> <QtGui> <QtCore> <QtSvg> <QtPrintSupport>
    <qcustomplot.h>)
set(ATTNLAB_PCH_HEADERS_tests ${ATTNLAB_PCH_HEADERS_ui} <QtTest>)

# attnlab_precompile_headers(TARGET KIND): KIND is core, ui or tests.
function(attnlab_precompile_headers target kind)
  if(NOT ATTNLAB_PCH)
    return()
  endif()
  get_property(owner GLOBAL PROPERTY ATTNLAB_PCH_OWNER_${kind})
  if(owner)
    target_precompile_headers(${target} REUSE_FROM ${owner})
  else()
    target_precompile_headers(${target} PRIVATE ${ATTNLAB_PCH_HEADERS_${kind}})
    set_property(GLOBAL PROPERTY ATTNLAB_PCH_OWNER_${kind} ${target})
  endif()
endfunction()
