// The two-text forms of dump, generate and predict (issue 33). The decoder's input is what Hugging Face feeds it for
// labels = the target tokenizer's encoding (special tokens included, e.g. BART's <s> … </s>): shifted right behind
// decoder_start_token_id, the final </s> dropped (it is the last label, never an input). Without a target, dump
// translates greedily on the KV cache, then runs source + translation once more for the maps.
#include "app/cli_encdec.h"

#include <algorithm>
#include <iostream>
#include <limits>
#include <sstream>

#include "app/cli_document_out.h"
#include "app/cli_predict_json.h"
#include "core/atlas/corpus_reader.h"
#include "core/base/errors.h"
#include "core/base/json_stream.h"
#include "core/checkpoint/encdec_folder.h"
#include "core/model/encdec_trace_json.h"
#include "core/model/generate.h"
#include "core/predict/prediction.h"
#include "core/run/encdec_generate.h"
#include "core/run/encdec_run.h"
#include "core/run/model_factory.h"
#include "core/train/shipped_models.h"

namespace attnlab::cli {
namespace {

const char* const kBuiltinNoHead =
    "the built-in model has no output head (no vocabulary, no logits), so it cannot translate or predict";

/// The model and, when a text (not ids) is given, its tokenizers.
struct Opened {
  std::shared_ptr<const EncDecModel> model;
  std::shared_ptr<const TextTokenizer> source, target;  ///< null in the ids-only form
  std::string dir;
};

/// One side's tokens: ids and the strings shown for them.
struct Side {
  std::vector<int> ids;
  std::vector<std::string> tokens;
};

bool hasTargetText(const Args& a) { return a.has("target") || a.has("target-ids"); }

Opened open(const Args& a) {
  if (!a.has("model") && a.value("mode", "") == "encdec")
    throw InputError(std::string("--mode encdec (rung 7): ") + kBuiltinNoHead +
                     "; predict and generate need an encoder–decoder folder (--model DIR). attnlab dump --mode encdec "
                     "--source TEXT --target TEXT writes rung 7's trace");
  if (!a.has("model")) throw InputError("the two-text form (--source) needs --model DIR of an encoder–decoder");
  for (const char* one : {"sentence", "sentence-file", "params"})
    if (a.has(one))
      throw InputError(std::string("--") + one + " is one text's; with --source give the target as --target");
  Opened o;
  o.dir = a.value("model");
  // builtin:reverse: its embedded files written to a folder (as the window opens it); o.dir keeps the name given.
  const std::string folder = isShippedEncDecName(o.dir) ? shippedEncDecFolder(o.dir) : o.dir;
  const bool needsText = a.has("source") || a.has("source-file") || a.has("target");
  if (needsText) {
    EncDecFolder f = openEncDecFolder(folder);
    o.model = std::move(f.model);
    o.source = std::move(f.source);
    o.target = std::move(f.target);
  } else {
    o.model = EncDecModel::open(folder);
  }
  return o;
}

/// A typed text: refused when empty (only white space) or not UTF-8, naming the option.
std::string checkedText(const std::string& text, const std::string& option) {
  if (text.find_first_not_of(" \t\r\n") == std::string::npos) throw InputError(option + " is empty");
  if (const std::size_t bad = firstInvalidUtf8(text); bad != std::string::npos)
    throw InputError(option + " is not valid UTF-8 (byte offset " + std::to_string(bad) + ")");
  return text;
}

/// "5,17,42" → ids (range-checked against the vocabulary by the model).
std::vector<int> parseIds(const std::string& list, const std::string& option) {
  std::vector<int> out;
  std::stringstream s(list);
  std::string item;
  while (std::getline(s, item, ',')) {
    std::size_t used = 0;
    long long id = -1;
    try {
      id = std::stoll(item, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (item.empty() || used != item.size() || id < 0 || id > std::numeric_limits<int>::max())
      throw InputError(option + " expects token ids as I,J,... (e.g. 5,17,1), got '" + item + "'");
    out.push_back(static_cast<int>(id));
  }
  if (out.empty()) throw InputError(option + " is empty");
  return out;
}

std::string pieceOf(const TextTokenizer* t, int id) { return t ? t->pieceOf(id) : std::to_string(id); }

Side sideOf(const std::vector<int>& ids, const TextTokenizer* t) {
  Side s{ids, {}};
  for (int id : ids) s.tokens.push_back(pieceOf(t, id));
  return s;
}

/// The source: --source TEXT, --source-file FILE or --source-ids I,J,... (exactly one), checked against the positions.
Side sourceOf(const Args& a, const Opened& o) {
  const int given = int(a.has("source")) + int(a.has("source-file")) + int(a.has("source-ids"));
  if (given != 1) throw InputError("give one of --source TEXT, --source-file FILE or --source-ids I,J,...");
  std::vector<int> ids;
  if (a.has("source-ids")) {
    ids = parseIds(a.value("source-ids"), "--source-ids");
  } else {
    const std::string text = a.has("source") ? checkedText(a.value("source"), "--source")
                                             : checkedText(readSentenceFile(a.value("source-file")),
                                                           "--source-file '" + a.value("source-file") + "'");
    ids = o.source->encode(text, true).ids;
  }
  const EncDecConfig& c = o.model->config();
  if (static_cast<long long>(ids.size()) > c.maxPositions)
    throw InputError("the source text has " + std::to_string(ids.size()) + " tokens; this model reads at most " +
                     std::to_string(c.maxPositions) + " (max_position_embeddings)");
  return sideOf(ids, o.source.get());
}

/// The decoder's input: decoder_start_token_id, then the target's labels (--target TEXT through the target tokenizer
/// with its special tokens, or --target-ids as given) without a final </s>. Without a target: the start token alone.
Side decoderInputOf(const Args& a, const Opened& o) {
  const EncDecConfig& c = o.model->config();
  if (a.has("target") && a.has("target-ids")) throw InputError("give --target TEXT or --target-ids I,J,..., not both");
  std::vector<int> ids{c.decoderStartId};
  // The window's rule (decoderInputOf): one decoder input for a target text everywhere; no --target reads as the
  // empty text (BART: [start, <s>], as the window's empty target bar) when the folder has a target tokenizer.
  if (a.has("target") || (!a.has("target-ids") && o.target))
    ids = decoderInputOf(c, *o.target, a.has("target") ? checkedText(a.value("target"), "--target") : "").ids;
  if (a.has("target-ids")) ids = decoderInputIds(c, parseIds(a.value("target-ids"), "--target-ids"));
  if (static_cast<long long>(ids.size()) > c.maxPositions)
    throw InputError("the target text has " + std::to_string(ids.size()) +
                     " tokens with the decoder's start token; this model reads at most " +
                     std::to_string(c.maxPositions) + " (max_position_embeddings)");
  return sideOf(ids, o.target.get());
}

nlohmann::json configJson(const Opened& o) {
  const EncDecConfig& c = o.model->config();
  return {{"kind", toString(c.family)},
          {"model_type", c.modelType},
          {"model", o.dir},
          {"encoder_layers", c.encoderLayers},
          {"decoder_layers", c.decoderLayers},
          {"encoder_heads", c.encoderHeads},
          {"decoder_heads", c.decoderHeads},
          {"d_model", c.dModel},
          {"vocab_size", c.vocabSize},
          {"decoder_vocab_size", c.decoderVocabSize},
          {"max_position_embeddings", c.maxPositions},
          {"decoder_start_token_id", c.decoderStartId},
          {"eos_token_id", c.eosId}};
}

/// --only, --no-qkv and --no-streams as for one text; a head L.H is that head of every stack that has it.
TraceJsonOptions writtenParts(const Args& a, const EncDecConfig& c) {
  TraceJsonOptions w;
  if (a.has("only")) {
    w.allMaps = false;
    const int layers = std::max(c.encoderLayers, c.decoderLayers), heads = std::max(c.encoderHeads, c.decoderHeads);
    for (const HeadRef& h : parseHeadList(a.value("only"), "--only")) {
      if (h.layer < 0 || h.layer >= layers || h.head < 0 || h.head >= heads)
        throw InputError("--only: head " + std::to_string(h.layer) + "." + std::to_string(h.head) +
                         " does not exist: the encoder has layers 0–" + std::to_string(c.encoderLayers - 1) +
                         " and heads 0–" + std::to_string(c.encoderHeads - 1) + ", the decoder layers 0–" +
                         std::to_string(c.decoderLayers - 1) + " and heads 0–" + std::to_string(c.decoderHeads - 1));
      w.mapsOf.emplace_back(h.layer, h.head);
    }
  }
  w.qkv = !a.has("no-qkv");
  w.streams = !a.has("no-streams");
  return w;
}

/// The decoder's last logits after running `input` (start token first) on the KV cache.
Vec lastLogits(const Opened& o, const std::vector<int>& source, const std::vector<int>& input) {
  std::unique_ptr<EncDecDecodeSession> s = o.model->startDecoding(source);
  Vec logits;
  for (int id : input) logits = s->step(id);
  return logits;
}

}  // namespace

bool hasSource(const Args& a) { return a.has("source") || a.has("source-file") || a.has("source-ids"); }

std::vector<Option> encDecOptions(bool target, bool maxNew) {
  std::vector<Option> o{
      {"source", true, "TEXT: an encoder–decoder's source text (the two-text form; with --model DIR)"},
      {"source-file", true, "FILE: read the source text from a file"},
      {"source-ids", true, "I,J,...: the source as the encoder's token ids (no tokenizer files needed)"}};
  if (target) {
    o.push_back({"target", true,
                 "TEXT: the target text (with --source): the decoder reads its start token, then the target as the "
                 "target tokenizer encodes it, without the final </s>"});
    o.push_back({"target-ids", true, "I,J,...: the target as the decoder's token ids (the labels, before the shift)"});
  }
  if (maxNew)
    o.push_back({"max-new", true,
                 "N: without --target, the greedy translation's length limit (default: until </s> or 64 tokens)"});
  return o;
}

int runEncDecDump(const Args& a) {
  if (a.has("npy") && a.has("out")) throw InputError("give --out FILE or --npy DIR, not both");
  if (a.has("npy") && a.value("npy").empty()) throw InputError("--npy needs a folder");
  for (const char* one : {"only-layers", "variants", "performer-curve", "spectrum"})
    if (a.has(one)) throw InputError(std::string("--") + one + " is not available with two texts (--source)");
  const Opened o = open(a);
  const Side source = sourceOf(a, o);
  Side input = decoderInputOf(a, o);
  const EncDecConfig& c = o.model->config();
  std::string from = a.has("target") ? "text" : a.has("target-ids") ? "ids" : "greedy";
  if (!hasTargetText(a)) {
    const int room = c.maxPositions - 1;  // the start token takes a position
    const int maxNew = a.intValue("max-new", std::min(64, room), 1, std::max(1, room));
    std::vector<int> ids{c.decoderStartId};  // the greedy loop's own start (BART: its forced <s> comes next)
    for (int id : o.model->generateGreedy(source.ids, maxNew)) ids.push_back(id);
    if (ids.size() > 1 && ids.back() == c.eosId) ids.pop_back();  // the last label: never an input
    input = sideOf(ids, o.target.get());
  } else if (a.has("max-new")) {
    throw InputError("--max-new sets the greedy translation's length: it does not combine with --target");
  }
  const TraceJsonOptions written = writtenParts(a, c);
  EncDecTrace trace = o.model->forward(source.ids, input.ids, false);  // the dump writes no logits
  trace.encoder.tokens = source.tokens;
  trace.decoder.tokens = input.tokens;
  const nlohmann::json extra = {{"target_from", from}};
  const int indent = a.intValue("indent", -1, 0, 16);
  if (a.has("npy")) {
    writeNpyFolder(a.value("npy"), indent,
                   [&](const NpyFileSink& w) { return encDecTraceToNpy(trace, configJson(o), written, extra, w); });
    return 0;
  }
  writeJsonDocument(a.value("out"), indent,
                    [&](JsonStreamWriter& json) { writeEncDecTraceJson(json, trace, configJson(o), written, extra); });
  return 0;
}

bool isBuiltinEncDec(const Params& p) { return p.modelDir.empty() && p.model.mode == Mode::EncDec; }

int runBuiltinEncDecDump(const Args& a, Params p) {
  if (a.has("npy") && a.has("out")) throw InputError("give --out FILE or --npy DIR, not both");
  if (a.has("npy") && a.value("npy").empty()) throw InputError("--npy needs a folder");
  for (const char* one : {"only-layers", "variants", "performer-curve", "spectrum", "keep-last"})
    if (a.has(one)) throw InputError(std::string("--") + one + " is not available with two texts (--mode encdec)");
  for (const char* ids : {"source-ids", "target-ids"})
    if (a.has(ids))
      throw InputError(std::string("--") + ids +
                       " names vocabulary ids; the built-in model has no vocabulary: give "
                       "the texts (--source, --target)");
  const int given =
      int(a.has("source")) + int(a.has("source-file")) + int(a.has("sentence")) + int(a.has("sentence-file"));
  if (given > 1)
    throw InputError("give the source once: --source TEXT, --source-file FILE, --sentence or --sentence-file");
  if (a.has("source")) p.sentence = checkedText(a.value("source"), "--source");
  if (a.has("source-file"))
    p.sentence =
        checkedText(readSentenceFile(a.value("source-file")), "--source-file '" + a.value("source-file") + "'");
  if (!a.has("target"))
    throw InputError(
        "--mode encdec (rung 7) needs --target TEXT, the text the decoder reads: the built-in model has no output head "
        "(no vocabulary, no logits), so it cannot translate the source itself");
  if (a.has("max-new")) throw InputError("--max-new sets a greedy translation's length: rung 7 has no output head");
  p.target = checkedText(a.value("target"), "--target");
  const PipelineResult r = runPipeline(p);
  // The run hands each stack to its side; the document is the whole pair again.
  EncDecTrace trace = *r.encdec->trace;
  trace.encoder = r.encdec->encoderSide->trace;
  trace.decoder = r.trace;
  nlohmann::json config = describeModel(p, *r.encdec->model);
  config["name"] = r.encdec->model->name();
  config["encoder_layers"] = config["decoder_layers"] = r.info.layers;
  config["encoder_heads"] = config["decoder_heads"] = r.info.heads;
  EncDecConfig shape;  // what --only checks heads against
  shape.encoderLayers = shape.decoderLayers = r.info.layers;
  shape.encoderHeads = shape.decoderHeads = r.info.heads;
  const TraceJsonOptions written = writtenParts(a, shape);
  const nlohmann::json extra = {{"target_from", "text"}};
  const int indent = a.intValue("indent", -1, 0, 16);
  if (a.has("npy")) {
    writeNpyFolder(a.value("npy"), indent,
                   [&](const NpyFileSink& w) { return encDecTraceToNpy(trace, config, written, extra, w); });
    return 0;
  }
  writeJsonDocument(a.value("out"), indent,
                    [&](JsonStreamWriter& json) { writeEncDecTraceJson(json, trace, config, written, extra); });
  return 0;
}

namespace {

/// --ablate (decoder self-attention), --ablate-encoder, --ablate-cross and --ablate-mode (zero or mean) of a
/// two-text predict or generate; empty when none is given.
EncDecAblation ablationOf(const Args& a) {
  EncDecAblation ab;
  if (a.has("ablate")) ab.decoder.ablate = parseHeadList(a.value("ablate"), "--ablate");
  if (a.has("ablate-encoder")) ab.encoder.ablate = parseHeadList(a.value("ablate-encoder"), "--ablate-encoder");
  if (a.has("ablate-cross")) ab.cross.ablate = parseHeadList(a.value("ablate-cross"), "--ablate-cross");
  if (a.has("ablate-mode") && ab.empty())
    throw InputError("--ablate-mode needs heads: --ablate, --ablate-encoder or --ablate-cross");
  const AblationMode mode = parseAblationMode(a.value("ablate-mode", "zero"), "--ablate-mode");
  if (mode == AblationMode::Resample)
    throw InputError("--ablate-mode resample is not available with two texts (--source): use zero or mean");
  ab.encoder.mode = ab.decoder.mode = ab.cross.mode = mode;
  return ab;
}

}  // namespace

int runEncDecGenerate(const Args& a) {
  if (!a.has("steps")) throw InputError("--steps N is required");
  const EncDecAblation ablation = ablationOf(a);
  const SamplingOptions so = samplingOptionsFromArgs(a);
  const int steps = a.intValue("steps", 0, 1, 100000);
  const Opened o = open(a);
  const Side source = sourceOf(a, o);
  const Side input = decoderInputOf(a, o);
  const EncDecConfig& c = o.model->config();
  if (static_cast<long long>(input.ids.size()) + steps - 1 > c.maxPositions)
    throw InputError("--steps " + std::to_string(steps) + " after " + std::to_string(input.ids.size()) +
                     " target tokens passes this model's " + std::to_string(c.maxPositions) +
                     " positions (max_position_embeddings)");
  // The window's Generate N loop on ids (generateIds): the KV cache, or with heads switched off the full ablated
  // pass each step — what predict --ablate* gives at each step; the folder's generation rules before the sampler.
  generateIds(
      *o.model, source.ids, input.ids, steps, so, {}, [&o](int id) { return pieceOf(o.target.get(), id); },
      [](const GeneratedToken& t) {
        const nlohmann::json j{{"step", t.step}, {"id", t.id}, {"token", t.piece}, {"prob", t.prob}};
        std::cout << jsonText(j) << "\n" << std::flush;
      },
      ablation);
  return 0;
}

std::vector<Option> encDecAblationOptions() {
  return {{"ablate-encoder", true,
           "L.H,L.H,...: with --source, heads of the encoder's self-attention switched off (--ablate: the decoder's "
           "self-attention)"},
          {"ablate-cross", true, "L.H,L.H,...: with --source, heads of the decoder's cross-attention switched off"}};
}

int runEncDecPredict(const Args& a) {
  for (const char* one : {"position", "resample-text", "logit-lens"})
    if (a.has(one)) throw InputError(std::string("--") + one + " is not available with two texts (--source)");
  const EncDecAblation ablation = ablationOf(a);
  const Opened o = open(a);
  const Side source = sourceOf(a, o);
  const Side input = decoderInputOf(a, o);
  const int k = a.intValue("top", 10, 1, 1000);
  const double temperature = a.doubleValue("temperature", 1.0, 1e-3, 1e3);
  // Heads switched off: one full pass with them (the cached decoding session runs the plain model).
  const Vec logits =
      ablation.empty() ? lastLogits(o, source.ids, input.ids)
                       : Vec(o.model->forward(source.ids, input.ids, true, ablation).logits.bottomRows(1).transpose());
  requireFiniteLogits(logits);
  const VecD p = softmaxAt(logits, temperature);
  std::vector<int> order(static_cast<std::size_t>(logits.size()));
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int>(i);
  const std::size_t top = std::min<std::size_t>(static_cast<std::size_t>(k), order.size());
  std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(top), order.end(),
                    [&](int x, int y) { return logits(x) > logits(y) || (logits(x) == logits(y) && x < y); });
  std::vector<TokenScore> scores;
  for (std::size_t i = 0; i < top; ++i)
    scores.push_back({order[i], pieceOf(o.target.get(), order[i]), logits(order[i]), p(order[i])});
  nlohmann::json j = {{"schema", "attnlab.predict/1"}, {"source_tokens", source.tokens},
                      {"source_ids", source.ids},      {"tokens", input.tokens},
                      {"token_ids", input.ids},        {"position", static_cast<int>(input.ids.size()) - 1},
                      {"top", scoresJson(scores)}};
  if (!ablation.empty()) {  // the heads as given, per attention
    j["ablate"] = formatHeadList(ablation.decoder.ablate);
    j["ablate_encoder"] = formatHeadList(ablation.encoder.ablate);
    j["ablate_cross"] = formatHeadList(ablation.cross.ablate);
    j["ablate_mode"] = ablationModeName(ablation.decoder.mode);
  }
  writeText(a.value("out"), jsonText(j, a.intValue("indent", -1, 0, 16)) + "\n");
  return 0;
}

}  // namespace attnlab::cli
