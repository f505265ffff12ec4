#pragma once
// The weights of one checkpoint: a single model.safetensors, or the shards a
// model.safetensors.index.json names ({"metadata": {…}, "weight_map": {"tensor name": "shard file", …}}),
// as Hugging Face writes models above a few GB. Every shard is mapped; a tensor is looked up by name in
// the shard the index assigns it. Messages name the index and the shard.
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/checkpoint/safetensors.h"

namespace attnlab {

class SafetensorsSet {
 public:
  /// One file, not sharded.
  explicit SafetensorsSet(std::shared_ptr<SafetensorsFile> file);
  /// Reads the index and maps every shard it names. Throws InputError: malformed index, a shard name
  /// with a path in it, a missing shard file, a tensor the index places in a shard that lacks it.
  static std::shared_ptr<SafetensorsSet> fromIndex(const std::string& indexPath);

  /// The single file, or the index, for messages.
  const std::string& path() const { return path_; }
  /// nullptr when no shard has the tensor.
  const TensorInfo* find(const std::string& name) const;
  /// As SafetensorsFile::floats / release, in the tensor's own shard.
  const float* floats(const TensorInfo& t);
  void release(const TensorInfo& t);
  /// The raw bytes of the tensor (its dtype says how to read them).
  const unsigned char* bytes(const TensorInfo& t) const;
  /// The shard holding a tensor (for messages).
  const std::string& shardPath(const TensorInfo& t) const;

  std::size_t shardCount() const { return shards_.size(); }
  /// Shard i (0 ≤ i < shardCount()): its path and header, for the model's card (core/run/model_card.h).
  const SafetensorsFile& shard(std::size_t i) const { return *shards_.at(i); }
  /// Sum of every tensor's bytes as stored.
  std::uint64_t storedBytes() const;

 private:
  SafetensorsSet() = default;
  SafetensorsFile& owner(const TensorInfo& t) const;

  std::string path_;
  std::vector<std::shared_ptr<SafetensorsFile>> shards_;
  std::map<std::string, std::size_t> shardOf_;  ///< tensor name → index into shards_
};

}  // namespace attnlab
