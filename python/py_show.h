#pragma once
// attnlab.figure and attnlab.show (issue 34): a notebook's run looked at with the program's own views. The module
// links core/ only (no Qt), so both hand a session file (core/session) to the program's executable: `attnlab export
// --params FILE` renders a figure headlessly, `attnlab FILE.attnlab.json` opens the window on it (a detached child).
// A cache stands for its model and text: Model.run_with_cache is wrapped here to remember them (a side table keyed
// by the cache's first trace, so that py_cache.* stays as it is).
#include "python/py_common.h"

namespace attnlab::py_module {

/// Adds executable, figure, show and read_session to the module, and wraps Model.run_with_cache to remember the
/// model and text of each cache it makes. Call after Model and ActivationCache are bound.
void registerShow(py::module_& m);

}  // namespace attnlab::py_module
