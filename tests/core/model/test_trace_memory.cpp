// traceBytes against the trace's shapes worked out by hand (trace.h): a pass that keeps its maps holds, per
// layer, concat, the attention and MLP outputs and the output [n, d], per head q [n, d_head] and K, V once per kv head,
// plus scores and attention [n, n]; a long input's (tiled) pass of GPT-2 or a decoder holds no maps and no attention or
// MLP outputs (its model recomputes them: layer_outputs.h), but each head's two t × t summary thumbnails
// (t = min(n, 64)) and its t row bands' four sums (double). The activation budget's per-token count
// (activationFloatsPerToken) is the same arithmetic. humanBytes on fixed sizes.
#include <unistd.h>

#include <QtTest>

#include "core/checkpoint/checkpoint.h"
#include "core/model/trace_memory.h"
#include "tests/harness/test_registry.h"

using namespace attnlab;

class TestTraceMemory : public QObject {
  Q_OBJECT
 private slots:
  void bytesFollowTheShapes_data() {
    QTest::addColumn<QString>("dir");
    QTest::newRow("gpt2") << "reference/models/gpt2_tiny";
    QTest::newRow("llama-gqa") << "reference/decoders/llama-gqa";  // 4 query heads read 2 kv heads
  }
  void bytesFollowTheShapes() {
    QFETCH(QString, dir);
    const auto model = loadCheckpoint(std::string(ATTNLAB_TEST_DATA) + "/" + dir.toStdString());
    const ModelInfo info = model->info();
    TokenizedText text;
    for (int i = 0; i < 13; ++i) {
      text.ids.push_back((5 + 31 * i) % model->vocabularySize());
      text.tokens.push_back(Token{model->vocabularyPiece(text.ids.back())});
    }
    const double n = static_cast<double>(text.tokens.size()), d = info.dModel, dh = info.dHead, L = info.layers,
                 H = info.heads, kv = info.kvHeads > 0 ? info.kvHeads : H, t = std::min(n, 64.0);
    Intervention keep, tile;
    keep.maps = MapKeeping::Always;
    tile.maps = MapKeeping::Never;
    const double heads = L * n * (H * dh + 2 * kv * dh);  // q per query head, K and V per kv head
    const double kept = n * d + L * n * (H * dh + 3 * d) + heads, tiled = n * d + L * n * (H * dh + d) + heads;
    QCOMPARE(traceBytes(model->forward(text, {}, keep)), 4 * (kept + L * H * 2 * n * n));
    // A tiled head's summary: thumbnails of the mean, the max and the raw sums [t, t], four band sums per row band.
    QCOMPARE(traceBytes(model->forward(text, {}, tile)), 4 * (tiled + L * H * 3 * t * t) + L * H * t * 4 * 8);
    QCOMPARE(n * d + L * n * activationFloatsPerToken(info.dModel, info.heads * info.dHead, kv * info.dHead, true),
             kept);
    QCOMPARE(n * d + L * n * activationFloatsPerToken(info.dModel, info.heads * info.dHead, kv * info.dHead, false),
             tiled);
    QCOMPARE(traceBytes(Trace{}), 0.0);
  }

  void activationBudgetIsHalfTheMemory() {
    // At least 2 GB, else half of the physical memory: 12 GB on the 24 GB machine the README's numbers come from.
    QVERIFY(activationBudgetBytes() >= kMinActivationBudgetBytes);
    const double pages = static_cast<double>(sysconf(_SC_PHYS_PAGES)) * static_cast<double>(sysconf(_SC_PAGE_SIZE));
    QVERIFY(std::abs(activationBudgetBytes() - std::max(kMinActivationBudgetBytes, pages / 2)) < 1.0);
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

ATTNLAB_TEST_GUILESS_MAIN(TestTraceMemory)
#include "test_trace_memory.moc"
