#include "ui/views/common/head_names.h"

#include <QObject>

#include "core/atlas/head_atlas.h"

namespace attnlab::ui {

QString headLabel(int layer, int head) { return QString::fromStdString(headName(layer, head)); }

QString kvSuffix(const Trace& trace, int head) {
  if (trace.kvHeadCount() == trace.headCount() || head < 0 || head >= trace.headCount()) return {};
  return QObject::tr(" (kv %1)").arg(trace.kvHeadOf(head));
}

}  // namespace attnlab::ui
