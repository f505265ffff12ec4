#include "core/checkpoint/checkpoint.h"

#include <sys/stat.h>

#include "core/base/errors.h"
#include "core/base/json_file.h"
#include "core/checkpoint/bert_model.h"
#include "core/checkpoint/decoder_model.h"
#include "core/checkpoint/gpt2_model.h"
#include "core/text/tokenizer_loader.h"

namespace attnlab {

std::shared_ptr<SafetensorsSet> openCheckpointWeights(const std::string& dir) {
  const std::string path = dir + "/model.safetensors";
  if (fileExists(path)) return std::make_shared<SafetensorsSet>(std::make_shared<SafetensorsFile>(path));
  if (fileExists(dir + "/model.safetensors.index.json"))
    return SafetensorsSet::fromIndex(dir + "/model.safetensors.index.json");
  if (fileExists(dir + "/pytorch_model.bin"))
    throw InputError(dir +
                     ": only pytorch_model.bin is there; the program reads model.safetensors (convert the "
                     "checkpoint with Hugging Face's safetensors tools)");
  throw InputError(dir + ": model.safetensors is missing");
}

namespace {

std::unique_ptr<TextTokenizer> tokenizerFor(const std::string& dir, const HfConfig& config) {
  if (config.arch == HfArch::Decoder) return loadTokenizerJsonEngine(dir);
  return loadTokenizer(dir, config.arch == HfArch::Gpt2 ? "gpt2" : "bert");
}

void checkFolder(const std::string& dir) {
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) throw InputError(dir + ": not a folder");
}

}  // namespace

std::unique_ptr<TextTokenizer> loadFolderTokenizer(const std::string& dir) {
  checkFolder(dir);
  if (fileExists(dir + "/config.json")) return tokenizerFor(dir, readHfConfig(dir + "/config.json"));
  if (fileExists(dir + "/tokenizer.json")) return loadTokenizerJsonEngine(dir);
  throw InputError(dir +
                   ": config.json is missing, and there is no tokenizer.json either: is this a Hugging Face "
                   "checkpoint?");
}

std::string checkpointFolderName(std::string dir) {
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  const std::size_t slash = dir.rfind('/');
  return slash == std::string::npos ? dir : dir.substr(slash + 1);
}

std::shared_ptr<const HfModel> loadCheckpoint(const std::string& dir, const RunControl& control) {
  checkFolder(dir);
  const std::string configPath = dir + "/config.json";
  if (!fileExists(configPath)) throw InputError(dir + ": config.json is missing: is this a Hugging Face checkpoint?");
  HfConfig config = readHfConfig(configPath);
  control.checkpoint(0.02);
  auto tokenizer = tokenizerFor(dir, config);
  control.checkpoint(0.05);
  auto file = openCheckpointWeights(dir);
  control.checkpoint(0.07);
  std::shared_ptr<const HfModel> model;
  if (config.arch == HfArch::Decoder)
    model = std::make_shared<DecoderModel>(std::move(config), std::move(tokenizer), std::move(file),
                                           checkpointFolderName(dir), control.part(0.07, 1.0));
  else if (config.arch == HfArch::Gpt2)
    model = std::make_shared<Gpt2Model>(std::move(config), std::move(tokenizer), std::move(file),
                                        checkpointFolderName(dir), control.part(0.07, 1.0));
  else
    model = std::make_shared<BertModel>(std::move(config), std::move(tokenizer), std::move(file),
                                        checkpointFolderName(dir), control.part(0.07, 1.0));
  control.checkpoint(1.0);
  return model;
}

}  // namespace attnlab
