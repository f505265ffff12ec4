#pragma once
// A traced run in one binary file (issue 34): how attnlab.show / attnlab.figure hand a run that Python hooks changed
// to the program, which shows it instead of computing it (core/run/recorded_run.h). Read back bit for bit.
//
//   bytes 0–7    "ATTNRUN\n"
//   bytes 8–11   format version, uint32 little-endian (kRunFileVersion)
//   bytes 12–19  header length H, uint64 little-endian
//   H bytes      a JSON header: {"schema": "attnlab.run/1", "model": {...}, "causal", "kv_heads", "tokens": n,
//                "data_bytes", "data_hash" (run_file.cpp's DataHash, in decimal), "arrays": [{"name", "dtype":
//                f32|i32|u8, "rows", "cols", "offset"}], "heads": [[{options, summary} per head] per layer]}
//   data_bytes   the arrays, each column-major (Eigen's order) at its offset, little-endian
// The arrays carry the JSON dump's hook names (trace_json.h, TransformerLens's): "hook_embed" (the stream into layer
// 0), "blocks.L.hook_resid_post", "blocks.L.hook_attn_out", "blocks.L.hook_mlp_out", "blocks.L.attn.hook_z" [n,
// H·d_head], per head "blocks.L.attn.hook_q.H", "….hook_attn_scores.H", "….hook_pattern.H" (when the pass kept
// maps), per kv head "….hook_k.G" / "….hook_v.G", a tiled head's thumbnails "….thumb_mean.H" / "thumb_max" /
// "thumb_sum"; the tokens as "token_ids" (i32) and their display strings as "token_bytes" (u8, UTF-8 as the tokenizer
// made them) split by "token_lengths" (i32).
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "core/model/model.h"

namespace attnlab {

inline constexpr const char* kRunFileSchema = "attnlab.run/1";
inline constexpr std::uint32_t kRunFileVersion = 1;

/// Which model made the run: the window shows the run only on that model (RecordedRun::problemWith).
struct RunFileModel {
  ModelInfo info;
  std::string modelDir;   ///< the session's model_dir (a folder made absolute, "builtin:NAME", "" = built-in)
  nlohmann::json config;  ///< the built-in random transformer's config (its seed…), null otherwise
  int vocabularySize = 0;
};

struct RunFile {
  RunFileModel model;
  Trace trace;  ///< outputsFrom is null: a reader that needs it sets it (the layers' kept outputs say whether)
};

/// Writes `t` to `path`. Throws InputError when the file cannot be written.
void writeRunFile(const std::string& path, const Trace& t, const RunFileModel& model);

/// Reads a file writeRunFile wrote. Throws InputError naming the problem: not a run file, a newer version, a
/// truncated file (its size and the size its header gives), a corrupt header or data (checksum), arrays that do not
/// fit the shapes the header gives.
RunFile readRunFile(const std::string& path);

}  // namespace attnlab
