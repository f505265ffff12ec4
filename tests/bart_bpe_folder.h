#pragma once
// A tiny BART with BART's byte-level BPE tokenizer (tests/reference/encdec/bart's weights, a hand-made tokenizer.json)
// for the tests of byte-level target text (issue 33), and weights for it whose greedy decoder writes a chosen chain
// of ids: a character split over several byte pieces, one piece at a time.
#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <map>
#include <string>
#include <vector>

#include "core/checkpoint/safetensors.h"
#include "core/checkpoint/safetensors_writer.h"

namespace attnlab::test {

/// BART's tokenizer in miniature: byte-level BPE with RobertaProcessing (<s> A </s>), as facebook/bart-base's
/// tokenizer.json has it. Ids 0–3 the specials (BART's order), 4–29 a–z, 30 "Ġ" (a space), 31 "at", 32 "cat", 33 "Ġs".
/// By hand: "cat sat" → "cat" | "Ġsat"; c a t → c at → cat; Ġ s a t → Ġ s at → Ġs at: labels [<s>, 32, 33, 31, </s>].
inline const char kBartTokenizer[] = R"({"version": "1.0",
  "added_tokens": [{"id": 0, "content": "<s>", "special": true}, {"id": 1, "content": "<pad>", "special": true},
                   {"id": 2, "content": "</s>", "special": true}, {"id": 3, "content": "<unk>", "special": true}],
  "normalizer": null,
  "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": true, "use_regex": true},
  "post_processor": {"type": "RobertaProcessing", "sep": ["</s>", 2], "cls": ["<s>", 0], "trim_offsets": true,
                     "add_prefix_space": false},
  "decoder": {"type": "ByteLevel"},
  "model": {"type": "BPE", "dropout": null, "unk_token": null, "continuing_subword_prefix": "", "end_of_word_suffix": "",
            "fuse_unk": false, "byte_fallback": false, "vocab": VOCAB, "merges": ["a t", "c at", "Ġ s"]}})";

/// tests/reference/encdec/bart's weights (vocab 96) with kBartTokenizer. Ids 34–39 are single byte stand-ins (OpenAI's
/// bytes_to_unicode, by hand: a printable Latin-1 byte is itself, the others 256 + their rank among the unprintable):
/// "Ã" C3, "©" A9 (é = C3 A9), "ð" F0, "Ł" 9F (U+0141), "ĺ" 98 (U+013A), "Ģ" 80 (U+0122) (😀 = F0 9F 98 80).
inline QString bartBpeFolder(const QTemporaryDir& tmp) {
  const QString dir = tmp.filePath("bart-bpe");
  QDir(tmp.path()).mkdir("bart-bpe");
  for (const char* f : {"config.json", "model.safetensors"})
    QFile::copy(QString(ATTNLAB_TEST_DATA) + "/reference/encdec/bart/" + f, dir + "/" + f);
  QJsonObject vocab{{"<s>", 0}, {"<pad>", 1}, {"</s>", 2}, {"<unk>", 3}};
  for (int i = 0; i < 26; ++i) vocab[QString(QChar('a' + i))] = 4 + i;
  vocab["Ġ"] = 30;
  vocab["at"] = 31;
  vocab["cat"] = 32;
  vocab["Ġs"] = 33;
  const char* bytePieces[] = {"Ã", "©", "ð", "Ł", "ĺ", "Ģ"};
  for (int i = 0; i < 6; ++i) vocab[QString::fromUtf8(bytePieces[i])] = 34 + i;
  QFile f(dir + "/tokenizer.json");
  if (f.open(QIODevice::WriteOnly))
    f.write(QByteArray(kBartTokenizer).replace("VOCAB", QJsonDocument(vocab).toJson(QJsonDocument::Compact)));
  return dir;
}

/// Rewrites `dir`/model.safetensors (bartBpeFolder's: d_model 16, 2 + 2 layers, FFN 32, 96 ids, tied lm_head) so
/// that the decoder's next token depends on its last input token alone, as `next` maps it (at most 16 pairs, ids
/// distinct): token t's embedding is 4·e_k (k its rank in `next`), every other token's 0; the decoder's positions,
/// attention outputs (self and cross) and layer 0's MLP are zeroed, every LayerNorm is the identity's (1, 0), so the
/// stream after layer 0 is LN(4·e_k). Layer 1's MLP: hidden unit j fires for token t_j (fc1 row 2·e_k, bias −3:
/// 2·3.87 − 3 = 4.7 against 2·(−0.26) − 3 = −3.5, GELU ≈ 0) and writes 10·(e_next − e_k); the final LayerNorm then
/// points at e_next, whose tied unembedding row 4·e_next gives the largest logit (≈ 11; other tokens ≤ 1, zero-embedded
/// ones 0). The encoder keeps its weights (the cross-attention's output is zeroed, so the source does not matter).
inline bool writeChainWeights(const QString& dir, const std::map<int, int>& next) {
  const std::string path = (dir + "/model.safetensors").toStdString();
  std::vector<TensorToWrite> out;
  {
    SafetensorsFile in(path);
    for (const TensorInfo& t : in.header().tensors) {
      const float* f = in.floats(t);
      out.push_back({t.name, t.shape, std::vector<float>(f, f + t.elementCount())});
    }
  }
  std::map<int, int> rank;
  for (const auto& [from, to] : next) rank.emplace(from, static_cast<int>(rank.size()));
  for (const auto& [from, to] : next)
    if (!rank.count(to)) rank.emplace(to, static_cast<int>(rank.size()));
  if (rank.size() > 16) return false;
  const auto ends = [](const std::string& s, const std::string& e) {
    return s.size() >= e.size() && s.compare(s.size() - e.size(), e.size(), e) == 0;
  };
  for (TensorToWrite& t : out) {
    const std::string& n = t.name;
    std::vector<float>& w = t.data;
    if (n == "model.shared.weight") {
      std::fill(w.begin(), w.end(), 0.f);
      for (const auto& [id, k] : rank) w[id * 16 + k] = 4.f;
    } else if (n.rfind("model.decoder.", 0) == 0 || n == "final_logits_bias") {
      const bool norm = n.find("layer_norm") != std::string::npos || n.find("layernorm") != std::string::npos;
      if (norm) {
        std::fill(w.begin(), w.end(), ends(n, ".weight") ? 1.f : 0.f);
      } else if (n == "model.decoder.embed_positions.weight" || n.find("out_proj") != std::string::npos ||
                 n == "final_logits_bias" || n.rfind("model.decoder.layers.0.fc", 0) == 0) {
        std::fill(w.begin(), w.end(), 0.f);
      } else if (n == "model.decoder.layers.1.fc1.weight") {  // [32, 16]
        std::fill(w.begin(), w.end(), 0.f);
        int j = 0;
        for (const auto& [from, to] : next) w[j++ * 16 + rank.at(from)] = 2.f;
      } else if (n == "model.decoder.layers.1.fc1.bias") {
        std::fill(w.begin(), w.end(), -10.f);  // silent units
        for (std::size_t j = 0; j < next.size(); ++j) w[j] = -3.f;
      } else if (n == "model.decoder.layers.1.fc2.weight") {  // [16, 32]
        std::fill(w.begin(), w.end(), 0.f);
        int j = 0;
        for (const auto& [from, to] : next) {
          w[rank.at(to) * 32 + j] += 10.f;
          w[rank.at(from) * 32 + j] -= 10.f;
          ++j;
        }
      } else if (n == "model.decoder.layers.1.fc2.bias") {
        std::fill(w.begin(), w.end(), 0.f);
      }
    }
  }
  writeSafetensors(path, out);
  return true;
}

}  // namespace attnlab::test
