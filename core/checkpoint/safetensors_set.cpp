#include "core/checkpoint/safetensors_set.h"

#include "core/base/errors.h"
#include "core/base/json_file.h"

namespace attnlab {

SafetensorsSet::SafetensorsSet(std::shared_ptr<SafetensorsFile> file) : path_(file->path()) {
  for (const TensorInfo& t : file->header().tensors) shardOf_[t.name] = 0;
  shards_.push_back(std::move(file));
}

std::shared_ptr<SafetensorsSet> SafetensorsSet::fromIndex(const std::string& indexPath) {
  const nlohmann::json j = readJsonFile(indexPath);
  if (!j.is_object() || !j.contains("weight_map") || !j["weight_map"].is_object())
    throw InputError(indexPath + ": no \"weight_map\" object: not a safetensors index");
  const std::size_t slash = indexPath.rfind('/');
  const std::string dir = slash == std::string::npos ? "." : indexPath.substr(0, slash);
  std::shared_ptr<SafetensorsSet> set(new SafetensorsSet());
  set->path_ = indexPath;
  std::map<std::string, std::size_t> shardIndex;  // shard file name → index into shards_
  for (const auto& [tensor, shard] : j["weight_map"].items()) {
    if (!shard.is_string()) throw InputError(indexPath + ": the shard of \"" + tensor + "\" is not a file name");
    const std::string file = shard.get<std::string>();
    if (file.empty() || file.find('/') != std::string::npos || file.find('\\') != std::string::npos || file == "..")
      throw InputError(indexPath + ": shard \"" + file + "\" must be a file name in the same folder");
    auto it = shardIndex.find(file);
    if (it == shardIndex.end()) {
      const std::string path = dir + "/" + file;
      if (!fileExists(path))
        throw InputError(indexPath + " names the shard \"" + file + "\", which is not in the folder");
      set->shards_.push_back(std::make_shared<SafetensorsFile>(path));
      it = shardIndex.emplace(file, set->shards_.size() - 1).first;
    }
    if (!set->shards_[it->second]->find(tensor))
      throw InputError(indexPath + " places tensor \"" + tensor + "\" in " + file + ", which does not hold it");
    set->shardOf_[tensor] = it->second;
  }
  if (set->shards_.empty()) throw InputError(indexPath + ": the weight_map is empty");
  return set;
}

const TensorInfo* SafetensorsSet::find(const std::string& name) const {
  const auto it = shardOf_.find(name);
  return it == shardOf_.end() ? nullptr : shards_[it->second]->find(name);
}

SafetensorsFile& SafetensorsSet::owner(const TensorInfo& t) const { return *shards_[shardOf_.at(t.name)]; }

const float* SafetensorsSet::floats(const TensorInfo& t) { return owner(t).floats(t); }
void SafetensorsSet::release(const TensorInfo& t) { owner(t).release(t); }
const unsigned char* SafetensorsSet::bytes(const TensorInfo& t) const { return owner(t).bytes(t); }
const std::string& SafetensorsSet::shardPath(const TensorInfo& t) const { return owner(t).path(); }

std::uint64_t SafetensorsSet::storedBytes() const {
  std::uint64_t total = 0;
  for (const auto& s : shards_)
    for (const TensorInfo& t : s->header().tensors) total += t.end - t.begin;
  return total;
}

}  // namespace attnlab
