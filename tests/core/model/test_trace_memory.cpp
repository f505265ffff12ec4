// traceBytes against the trace's shapes worked out by hand (trace.h): a pass that keeps its maps holds, per
// layer, five [n, d] streams and per head q, k, v, output [n, d_head] plus scores and attention [n, n]; a tiled
// pass holds no maps but each head's two t × t summary thumbnails (t = min(n, 64)). humanBytes on fixed sizes.
#include <QtTest>

#include "core/checkpoint/checkpoint.h"
#include "core/model/trace_memory.h"

using namespace attnlab;

class TestTraceMemory : public QObject {
  Q_OBJECT
 private slots:
  void bytesFollowTheShapes() {
    const auto model = loadCheckpoint(std::string(ATTNLAB_TEST_DATA) + "/reference/models/gpt2_tiny");
    const ModelInfo info = model->info();
    const TokenizedText text = model->tokenize("The cat sat on the mat because it was warm and soft");
    const double n = static_cast<double>(text.tokens.size()), d = info.dModel, dh = info.dHead, L = info.layers,
                 H = info.heads, t = std::min(n, 64.0);
    Intervention keep, tile;
    keep.maps = MapKeeping::Always;
    tile.maps = MapKeeping::Never;
    const double streams = n * d + L * 5 * n * d, heads = L * H * 4 * n * dh;
    QCOMPARE(traceBytes(model->forward(text, {}, keep)), 4 * (streams + heads + L * H * 2 * n * n));
    QCOMPARE(traceBytes(model->forward(text, {}, tile)), 4 * (streams + heads + L * H * 2 * t * t));
    QCOMPARE(traceBytes(Trace{}), 0.0);
  }

  void humanSizes() {
    QCOMPARE(humanBytes(0), std::string("0 B"));
    QCOMPARE(humanBytes(512), std::string("512 B"));
    QCOMPARE(humanBytes(1536), std::string("1.5 KB"));
    QCOMPARE(humanBytes(170.0 * 1024 * 1024), std::string("170 MB"));
    QCOMPARE(humanBytes(5.1 * 1024 * 1024 * 1024), std::string("5.1 GB"));
    QCOMPARE(humanBytes(6.0 * 1024 * 1024 * 1024), std::string("6.0 GB"));
  }
};

QTEST_GUILESS_MAIN(TestTraceMemory)
#include "test_trace_memory.moc"
