# `import attnlab` (python/): built with Debian's pybind11 (pybind11-dev, python3-dev, python3-numpy) when they are
# installed; without them the module is skipped with a message and everything else builds as before.
option(ATTNLAB_PYTHON "Build the Python module attnlab (python/) when pybind11 is found" ON)
set(ATTNLAB_PYTHON_FOUND OFF)
if(ATTNLAB_PYTHON)
  # Debian's python3 (with python3-numpy), not a python3 another tool (pyenv, a venv) put first on PATH.
  if(NOT DEFINED Python3_EXECUTABLE AND EXISTS /usr/bin/python3)
    set(Python3_EXECUTABLE /usr/bin/python3 CACHE FILEPATH "The Python the module is built for and tested with")
  endif()
  find_package(Python3 COMPONENTS Interpreter Development.Module NumPy QUIET)
  if(Python3_FOUND AND Python3_NumPy_FOUND)
    find_package(pybind11 CONFIG QUIET)
  endif()
  if(Python3_FOUND AND Python3_NumPy_FOUND AND pybind11_FOUND)
    set(ATTNLAB_PYTHON_FOUND ON)
    message(STATUS "attnlab: Python module with pybind11 ${pybind11_VERSION} for Python ${Python3_VERSION}")
  else()
    message(STATUS "attnlab: pybind11, python3-dev or python3-numpy not found; the Python module is not built "
                   "(apt install pybind11-dev python3-dev python3-numpy)")
  endif()
endif()
