#pragma once
#include <QStringList>

#include "ui/views/common/trace_view.h"

namespace attnlab::ui {

/// Names of every view, in tab order (the names `attnlab export --view` accepts).
QStringList viewNames();
/// A new view by name, or nullptr for an unknown name.
TraceView* createView(const QString& name, QWidget* parent = nullptr);

}  // namespace attnlab::ui
