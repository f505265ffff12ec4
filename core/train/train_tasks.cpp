#include "core/train/train_tasks.h"

#include <algorithm>
#include <numeric>

#include "core/base/enum_names.h"
#include "core/base/errors.h"
#include "core/base/rng.h"
#include "core/train/tiny_config.h"

namespace attnlab {
namespace {

constexpr int kSortAlphabet = 10, kSortLength = 10;
constexpr int kSourceMatchingInput = -2;  ///< sort: any input position holding the answer's symbol
constexpr uint64_t kProbeSeed = 0x5EED0F0F0Bull;

/// `count` tokens from [lo, hi): distinct when the range allows it (so "the previous occurrence" of a
/// token is unique), with repetition otherwise.
std::vector<int> drawSymbols(Rng& rng, int count, int lo, int hi) {
  std::vector<int> out;
  const int range = hi - lo;
  if (count <= range) {
    std::vector<int> pool(static_cast<std::size_t>(range));
    std::iota(pool.begin(), pool.end(), lo);
    for (int i = 0; i < count; ++i) {  // partial Fisher–Yates
      const int j = i + static_cast<int>(rng.next() % static_cast<uint64_t>(range - i));
      std::swap(pool[static_cast<std::size_t>(i)], pool[static_cast<std::size_t>(j)]);
      out.push_back(pool[static_cast<std::size_t>(i)]);
    }
  } else {
    for (int i = 0; i < count; ++i) out.push_back(lo + static_cast<int>(rng.next() % static_cast<uint64_t>(range)));
  }
  return out;
}

}  // namespace

namespace {
constexpr EnumNames<TrainTask, 5> kTaskNames{{{"induction", TrainTask::Induction},
                                              {"reverse", TrainTask::Reverse},
                                              {"copy", TrainTask::Copy},
                                              {"sort", TrainTask::Sort},
                                              {"recall", TrainTask::Recall}}};
}  // namespace

const char* toString(TrainTask t) { return nameOf(t, kTaskNames); }

std::vector<std::string> trainTaskNames() {
  std::vector<std::string> names;
  for (const auto& entry : kTaskNames) names.push_back(entry.first);
  return names;
}

TrainTask parseTrainTask(const std::string& s) { return parseEnum(s, kTaskNames, "task"); }

const char* primaryScore(TrainTask t) {
  switch (t) {
    case TrainTask::Induction:
      return "induction";
    case TrainTask::Reverse:
      return "mirror";
    case TrainTask::Copy:
      return "diagonal";
    case TrainTask::Sort:
      return "sort_source";
    case TrainTask::Recall:
      return "recall_value";
  }
  return "induction";
}

TaskGenerator::TaskGenerator(TrainTask task, int vocab, int context) : task_(task), vocab_(vocab), context_(context) {
  const int symbols = vocab - kTinyFirstSymbol;
  auto need = [&](bool ok, const std::string& what) {
    if (!ok) throw InputError(std::string("the ") + toString(task) + " task needs " + what);
  };
  switch (task) {
    case TrainTask::Induction:
      length_ = (context - 1) / 2;
      tokens_ = context;
      need(length_ >= 2, "a context of at least 5 tokens");
      need(symbols >= length_, "at least " + std::to_string(length_ + kTinyFirstSymbol) + " tokens in the vocabulary");
      break;
    case TrainTask::Copy:
    case TrainTask::Reverse:
      length_ = (context - 2) / 2;
      tokens_ = 2 * length_ + 2;
      need(length_ >= 2, "a context of at least 6 tokens");
      need(symbols >= 2, "a vocabulary of at least 4 tokens");
      break;
    case TrainTask::Sort:
      length_ = std::min(kSortLength, (context - 2) / 2);
      tokens_ = 2 * length_ + 2;
      need(length_ >= 2, "a context of at least 6 tokens");
      need(symbols >= 2, "a vocabulary of at least 4 tokens");
      break;
    case TrainTask::Recall:
      length_ = (context - 1) / 4;
      tokens_ = 1 + 4 * length_;
      need(length_ >= 1, "a context of at least 5 tokens");
      need(symbols / 2 >= length_, "at least " + std::to_string(2 * length_ + kTinyFirstSymbol) +
                                       " tokens in the vocabulary (keys and values)");
      break;
  }
}

TaskBatch TaskGenerator::sample(int batch, uint64_t seed) const {
  TaskBatch out;
  out.batch = batch, out.tokens = tokens_;
  const std::size_t n = static_cast<std::size_t>(batch) * tokens_;
  out.ids.assign(n, kTinyBos), out.targets.assign(n, -1), out.source.assign(n, -1);
  for (int b = 0; b < batch; ++b) fill(b, mixSeed(seed, static_cast<uint64_t>(b)), false, out);
  return out;
}

TaskBatch TaskGenerator::probe(int count) const {
  TaskBatch out;
  out.batch = count, out.tokens = tokens_;
  const std::size_t n = static_cast<std::size_t>(count) * tokens_;
  out.ids.assign(n, kTinyBos), out.targets.assign(n, -1), out.source.assign(n, -1);
  for (int b = 0; b < count; ++b) fill(b, mixSeed(kProbeSeed, static_cast<uint64_t>(b)), true, out);
  return out;
}

void TaskGenerator::fill(int b, uint64_t seed, bool probe, TaskBatch& out) const {
  Rng rng(seed);
  const int T = tokens_;
  int* ids = out.ids.data() + static_cast<std::ptrdiff_t>(b) * T;
  int* tgt = out.targets.data() + static_cast<std::ptrdiff_t>(b) * T;
  int* src = out.source.data() + static_cast<std::ptrdiff_t>(b) * T;
  const int S = length_;
  ids[0] = kTinyBos;
  switch (task_) {
    case TrainTask::Induction: {
      const int lo = std::min(4, S);
      const int period = probe ? S : lo + static_cast<int>(rng.next() % static_cast<uint64_t>(S - lo + 1));
      const std::vector<int> s = drawSymbols(rng, period, kTinyFirstSymbol, vocab_);
      for (int t = 1; t < T; ++t) ids[t] = s[static_cast<std::size_t>((t - 1) % period)];
      // From position period + 1 on, the token at t occurred at t − period; the one after that
      // occurrence (t − period + 1) is the next token.
      for (int t = period + 1; t < T; ++t) {
        src[t] = t - period + 1;
        if (t + 1 < T) tgt[t] = ids[t + 1];
      }
      break;
    }
    case TrainTask::Copy:
    case TrainTask::Reverse:
    case TrainTask::Sort: {
      const bool sort = task_ == TrainTask::Sort;
      const int hi = sort ? std::min(vocab_, kTinyFirstSymbol + kSortAlphabet) : vocab_;
      // Sort draws with repetition (as minGPT's demo): S distinct symbols of an S-symbol alphabet would
      // always sort to the same sequence, learnable without looking at the input.
      std::vector<int> s;
      if (sort)
        for (int j = 0; j < S; ++j)
          s.push_back(kTinyFirstSymbol + static_cast<int>(rng.next() % static_cast<uint64_t>(hi - kTinyFirstSymbol)));
      else
        s = drawSymbols(rng, S, kTinyFirstSymbol, hi);
      std::vector<int> second = s;
      if (task_ == TrainTask::Reverse) std::reverse(second.begin(), second.end());
      if (sort) std::sort(second.begin(), second.end());
      for (int j = 0; j < S; ++j) ids[1 + j] = s[static_cast<std::size_t>(j)];
      ids[S + 1] = kTinySep;
      for (int j = 0; j < S; ++j) ids[S + 2 + j] = second[static_cast<std::size_t>(j)];
      for (int t = S + 1; t <= 2 * S; ++t) {
        tgt[t] = ids[t + 1];
        const int j = t - S - 1;  // index into `second` of the answer
        if (sort)
          src[t] = kSourceMatchingInput;
        else
          src[t] = task_ == TrainTask::Copy ? 1 + j : 1 + (S - 1 - j);
      }
      break;
    }
    case TrainTask::Recall: {
      const int half = (vocab_ - kTinyFirstSymbol) / 2;
      const std::vector<int> keys = drawSymbols(rng, S, kTinyFirstSymbol, kTinyFirstSymbol + half);
      std::vector<int> order(static_cast<std::size_t>(S));
      std::iota(order.begin(), order.end(), 0);
      for (int i = S - 1; i > 0; --i)
        std::swap(order[static_cast<std::size_t>(i)],
                  order[static_cast<std::size_t>(rng.next() % static_cast<uint64_t>(i + 1))]);
      std::vector<int> values(static_cast<std::size_t>(S));
      for (int j = 0; j < S; ++j)
        values[static_cast<std::size_t>(j)] =
            kTinyFirstSymbol + half +
            static_cast<int>(rng.next() % static_cast<uint64_t>(vocab_ - kTinyFirstSymbol - half));
      for (int j = 0; j < S; ++j) {
        ids[1 + 2 * j] = keys[static_cast<std::size_t>(j)];
        ids[2 + 2 * j] = values[static_cast<std::size_t>(j)];
      }
      for (int i = 0; i < S; ++i) {
        const int j = order[static_cast<std::size_t>(i)];
        const int q = 1 + 2 * S + 2 * i;
        ids[q] = keys[static_cast<std::size_t>(j)];
        ids[q + 1] = values[static_cast<std::size_t>(j)];
        tgt[q] = ids[q + 1];
        src[q] = 2 + 2 * j;  // the stored value; its key is one position earlier
      }
      break;
    }
  }
}

std::map<std::string, double> headScores(TrainTask task, const TaskBatch& probe,
                                         const std::vector<const Eigen::MatrixXf*>& attention) {
  const int T = probe.tokens;
  double prev = 0, main = 0, key = 0;
  long long prevCount = 0, mainCount = 0;
  for (int b = 0; b < probe.batch && b < static_cast<int>(attention.size()); ++b) {
    const Eigen::MatrixXf& a = *attention[static_cast<std::size_t>(b)];
    const int* ids = probe.ids.data() + static_cast<std::ptrdiff_t>(b) * T;
    const int* tgt = probe.targets.data() + static_cast<std::ptrdiff_t>(b) * T;
    const int* src = probe.source.data() + static_cast<std::ptrdiff_t>(b) * T;
    for (int i = 1; i < T; ++i, ++prevCount) prev += a(i, i - 1);
    for (int t = 0; t < T; ++t) {
      if (src[t] == kSourceMatchingInput) {  // sort: every input copy of the placed symbol
        const int S = (T - 2) / 2;
        double w = 0;
        for (int j = 1; j <= S; ++j)
          if (ids[j] == tgt[t]) w += a(t, j);
        main += w, ++mainCount;
      } else if (src[t] >= 0) {
        main += a(t, src[t]);
        if (task == TrainTask::Recall) key += a(t, src[t] - 1);
        ++mainCount;
      }
    }
  }
  std::map<std::string, double> s;
  s["previous_token"] = prevCount ? prev / static_cast<double>(prevCount) : 0.0;
  const double m = mainCount ? main / static_cast<double>(mainCount) : 0.0;
  s[primaryScore(task)] = m;
  if (task == TrainTask::Recall) s["recall_key"] = mainCount ? key / static_cast<double>(mainCount) : 0.0;
  return s;
}

}  // namespace attnlab
