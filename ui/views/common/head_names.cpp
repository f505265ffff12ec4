#include "ui/views/common/head_names.h"

#include <QObject>

namespace attnlab::ui {

QString kvSuffix(const Trace& trace, int head) {
  if (trace.kvHeadCount() == trace.headCount() || head < 0 || head >= trace.headCount()) return {};
  return QObject::tr(" (kv %1)").arg(trace.kvHeadOf(head));
}

}  // namespace attnlab::ui
