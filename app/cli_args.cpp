#include "app/cli_args.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <limits>
#include <sstream>

#include "app/cli_variants.h"
#include "core/base/atomic_file.h"
#include "core/base/errors.h"
#include "core/base/json_file.h"
#include "core/run/encdec_run.h"
#include "core/session/params_json.h"
#include "core/session/params_keys.h"
#include "core/session/session.h"
#include "core/session/token_pins.h"
#include "core/train/shipped_models.h"

namespace attnlab::cli {

std::string Args::value(const std::string& name, const std::string& fallback) const {
  const auto it = values.find(name);
  return it == values.end() ? fallback : it->second;
}

double Args::doubleValue(const std::string& name, double fallback, double lo, double hi) const {
  const auto it = values.find(name);
  if (it == values.end()) return fallback;
  char* end = nullptr;
  const double v = std::strtod(it->second.c_str(), &end);
  if (it->second.empty() || *end != '\0' || !std::isfinite(v))
    throw InputError("--" + name + " expects a number, got '" + it->second + "'");
  if (v < lo || v > hi) {
    // %g: "between 1e-09 and 1", not std::to_string's "between 0.000000 and 1.000000" (a bound of 1e-9 shown as 0).
    char range[96];
    std::snprintf(range, sizeof range, "between %g and %g, got %s", lo, hi, it->second.c_str());
    throw InputError("--" + name + " must be " + range);
  }
  return v;
}

int Args::intValue(const std::string& name, int fallback, int lo, int hi) const {
  const auto it = values.find(name);
  if (it == values.end()) return fallback;
  char* end = nullptr;
  const long long v = std::strtoll(it->second.c_str(), &end, 10);
  if (it->second.empty() || *end != '\0')
    throw InputError("--" + name + " expects an integer, got '" + it->second + "'");
  if (v < lo || v > hi)
    throw InputError("--" + name + " must be between " + std::to_string(lo) + " and " + std::to_string(hi));
  return static_cast<int>(v);
}

const std::vector<Option>& paramOptions() {
  static const std::vector<Option> options = [] {
    std::vector<Option> o{
        {"params", true, "FILE.json: every parameter from one file (the GUI's session/params format)"},
        {"sentence", true, "TEXT: the input sentence"},
        {"sentence-file", true, "FILE: read the input sentence from a text file (a page, thousands of tokens)"},
        {"keep-last", true,
         "N: of a text longer than the model takes, keep the last N tokens (at most the model's limit; a leading "
         "BOS stays); default: refuse it"},
        {"model", true, "DIR: a Hugging Face checkpoint folder (default: the built-in model)"},
        {"d-model", true, "N: model width of the built-in model (default 64)"},
        {"heads", true, "N: attention heads (default 4)"},
        {"layers", true, "N: layers (default 2)"},
        {"seed", true, "N: seed of the built-in model's weights and embeddings (default 42)"},
        {"mode", true,
         "basic|qkv|scaled|multihead|causal|block|encdec: rung of the teaching ladder (default block; encdec: dump "
         "with "
         "--source and --target)"},
        {"position", true, "none|learned|sinusoidal: position information (default sinusoidal)"},
        {"norm", true, "pre|post|none: LayerNorm placement in block mode (default pre)"},
        {"activation", true, "gelu|relu: MLP activation (default gelu)"},
        {"scale-scores", false, "divide scores by sqrt(d_head) (default on)"},
        {"no-scale", false, "do not scale scores"},
        {"causal", false, "causal mask (query i sees keys j <= i)"},
        {"no-causal", false, "no causal mask"},
        {"skip", false, "residual connections in block mode (default on)"},
        {"no-skip", false, "no residual connections"},
        {"mlp", false, "MLP sub-block in block mode (default on)"},
        {"no-mlp", false, "no MLP sub-block"},
        {"no-lowercase", false, "keep the sentence's case"},
        {"layer", true, "N: selected layer (0-based)"},
        {"head", true, "N: selected head (0-based)"},
        {"pin", true,
         "I[,J...]: pin these tokens (0-based): outlined in heatmaps, their lines alone in the head view, "
         "their summed attention read out"},
    };
    o.insert(o.end(), variantOptions().begin(), variantOptions().end());
    return o;
  }();
  return options;
}

Args parse(int argc, char** argv, int first, const std::vector<Option>& options) {
  Args args;
  for (int i = first; i < argc; ++i) {
    const std::string word = argv[i];
    if (word.rfind("--", 0) != 0) throw InputError("unexpected argument '" + word + "' (options start with --)");
    std::string name = word.substr(2), inlineValue;
    bool hasInline = false;
    if (const auto eq = name.find('='); eq != std::string::npos) {
      inlineValue = name.substr(eq + 1);
      name = name.substr(0, eq);
      hasInline = true;
    }
    const Option* opt = nullptr;
    for (const Option& o : options)
      if (o.name == name) opt = &o;
    if (!opt) throw InputError("unknown option --" + name + " (see attnlab --help)");
    if (!opt->takesValue) {
      if (hasInline) throw InputError("--" + name + " takes no value");
      args.flags.insert(name);
      continue;
    }
    if (hasInline) {
      args.values[name] = inlineValue;
    } else {
      if (i + 1 >= argc) throw InputError("--" + name + " needs a value");
      args.values[name] = argv[++i];
    }
    args.repeated[name].push_back(args.values[name]);
  }
  return args;
}

Params paramsFromFile(const std::string& path, const Params& base) {
  // readTextFile: a regular file of bounded size only (/dev/zero was read until memory ran out, a FIFO blocked).
  const nlohmann::json j = parseJsonText(readTextFile(path), path);
  requireReadableSession(j);  // a session of a newer program is refused, as the window refuses it
  Params p = paramsFromJson(j, base);
  // A key this program does not read (misspelled, or a newer version's field) is named, and the run goes on.
  if (const std::string unknown = unknownKeysMessage(unknownParamsKeys(j)); !unknown.empty())
    std::cerr << "warning: " << path << ": " << unknown << "\n";
  return p;
}

std::string readSentenceFile(const std::string& path) {
  std::string text = readTextFile(path);
  if (const auto nul = text.find('\0'); nul != std::string::npos)
    throw InputError("--sentence-file '" + path + "' is not text: a NUL byte at byte offset " + std::to_string(nul));
  if (text.find_first_not_of(" \t\r\n") == std::string::npos)
    throw InputError("--sentence-file '" + path + "' holds no text");
  return text;
}

std::string jsonText(const nlohmann::json& j, int indent) {
  return j.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

void writeText(const std::string& path, const std::string& text) {
  if (path.empty() || path == "-") {
    std::cout << text;
    std::cout.flush();
    if (!std::cout) throw InputError("cannot write to standard output");
    return;
  }
  writeFileAtomically(path, text);  // the old file stays if the disk is full; a device is written directly
}

Params paramsFromArgs(const Args& a) {
  Params p;
  if (a.has("params")) p = paramsFromFile(a.value("params"), p);
  ModelConfig& m = p.model;
  if (a.has("sentence") && a.has("sentence-file")) throw InputError("give --sentence or --sentence-file, not both");
  if (a.has("sentence")) p.sentence = a.value("sentence");
  if (a.has("sentence-file")) p.sentence = readSentenceFile(a.value("sentence-file"));
  if (a.has("model")) p.modelDir = a.value("model");
  if (a.has("keep-last")) p.keepLastTokens = a.intValue("keep-last", 0, 1, Params::kKeepAsManyAsFit);
  m.dModel = a.intValue("d-model", m.dModel, 1, 4096);
  m.heads = a.intValue("heads", m.heads, 1, 256);
  m.layers = a.intValue("layers", m.layers, 1, 128);
  if (a.has("seed")) m.seed = static_cast<uint64_t>(a.intValue("seed", 0, 0, 2147483647));
  if (a.has("mode")) m.mode = parseMode(a.value("mode"));
  if (a.has("position")) m.position = parsePosition(a.value("position"));
  if (a.has("norm")) m.norm = parseNorm(a.value("norm"));
  if (a.has("activation")) m.activation = parseActivation(a.value("activation"));
  const auto toggle = [&](const char* on, const char* off, bool& field) {
    if (a.flags.count(on)) field = true;
    if (a.flags.count(off)) field = false;
  };
  toggle("scale-scores", "no-scale", m.scale);
  toggle("causal", "no-causal", m.causal);
  toggle("skip", "no-skip", m.skip);
  toggle("mlp", "no-mlp", m.mlp);
  if (a.flags.count("no-lowercase")) p.lowercase = false;
  p.selection.layer = a.intValue("layer", p.selection.layer, 0, 1023);
  p.selection.head = a.intValue("head", p.selection.head, 0, 1023);
  if (a.values.count("pin")) p.selection.pinned = parsePinList(a.value("pin"), "--pin");
  validate(m);
  applyVariantArgs(a, p.variants);
  return p;
}

Params oneTextParamsFromArgs(const Args& args) {
  Params p = paramsFromArgs(args);
  if (!p.modelDir.empty() && (isShippedEncDecName(p.modelDir) || isEncDecFolder(p.modelDir)))
    throw InputError(p.modelDir +
                     " is an encoder–decoder (a source and a target text): attnlab dump, generate and predict read it "
                     "with --source TEXT [--target TEXT]");
  if (p.modelDir.empty() && p.model.mode == Mode::EncDec)
    throw InputError(
        "--mode encdec (rung 7) reads a source and a target text and has no output head (no vocabulary, no logits): "
        "attnlab dump --mode encdec --source TEXT --target TEXT writes its trace; predict and generate need a model "
        "that predicts");
  return p;
}

SamplingOptions samplingOptionsFromArgs(const Args& args) {
  const bool sampled = args.has("temperature") || args.has("top-k") || args.has("top-p");
  if (args.has("greedy") && sampled)
    throw InputError(
        "--greedy takes the most probable token: it does not combine with --temperature, --top-k or "
        "--top-p");
  SamplingOptions o;
  o.greedy = !sampled;
  o.temperature = args.doubleValue("temperature", 1.0, 1e-6, 1e6);
  o.seed = static_cast<std::uint64_t>(args.intValue("seed", 0, 0, std::numeric_limits<int>::max()));
  o.topK = args.intValue("top-k", 0, 0, std::numeric_limits<int>::max());
  o.topP = args.doubleValue("top-p", 1.0, 1e-9, 1.0);
  return o;
}

}  // namespace attnlab::cli
