#include "ui/views/common/compute_result.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <string>

#include "core/session/params_json.h"
#include "core/text/bpe_tokenizer.h"
#include "core/text/token_display.h"
#include "core/text/utf8.h"

namespace attnlab::ui {

std::string ComputeResult::modelIdentity() const {
  return params.modelDir + "|" + toJson(params.model).dump() + "|" + (params.lowercase ? "lc" : "cs");
}
namespace {

/// Stand-in code point → byte (−1: not a stand-in). The 256 stand-ins lie below U+0144.
const std::array<int, 0x144>& standInBytes() {
  static const std::array<int, 0x144> table = [] {
    std::array<int, 0x144> t;
    t.fill(-1);
    const std::vector<std::string>& standIns = byteStandIns();
    for (int b = 0; b < 256; ++b) t[utf8::decode(standIns[b], 0).value] = b;
    return t;
  }();
  return table;
}

/// The bytes a piece stands for; false when a character of it is not a stand-in.
bool piecesBytes(const std::string& piece, std::string& bytes) {
  const auto& table = standInBytes();
  for (std::size_t pos = 0; pos < piece.size();) {
    const utf8::CodePoint cp = utf8::decode(piece, pos);
    if (!cp.valid || cp.value >= table.size() || table[cp.value] < 0) return false;
    bytes += static_cast<char>(table[cp.value]);
    pos += cp.size;
  }
  return true;
}

QString byteMark(unsigned char b) { return QString("<0x%1>").arg(b, 2, 16, QChar('0')).toUpper().replace("0X", "0x"); }

QStringList labelsOf(const std::vector<std::string>& v) {
  QStringList l;
  for (const std::string& s : v) l << QString::fromStdString(s);
  return l;
}

}  // namespace

QString byteLevelDisplay(const std::string& piece) {
  std::string bytes;
  if (!piecesBytes(piece, bytes)) return QString::fromStdString(piece);
  QString out;
  for (std::size_t pos = 0; pos < bytes.size();) {
    const utf8::CodePoint cp = utf8::decode(bytes, pos);
    const auto first = static_cast<unsigned char>(bytes[pos]);
    pos += cp.valid ? cp.size : 1;
    if (!cp.valid)
      out += byteMark(first);  // part of a character whose other bytes are in a neighbouring token
    else if (cp.value == ' ')
      out += QChar(0x00B7);  // ·
    else if (cp.value == '\n')
      out += QChar(0x21B5);  // ↵
    else if (cp.value == '\t')
      out += QChar(0x21E5);  // ⇥
    else if (cp.value < 0x20 || cp.value == 0x7F)
      out += byteMark(first);
    else
      out += QString::fromUcs4(&cp.value, 1);
  }
  return out;
}

QString pieceLabel(const std::string& piece, const std::string& style) {
  if (style == "byte-level") return byteLevelDisplay(piece);
  if (style != "metaspace") return QString::fromStdString(piece);
  // SentencePiece pieces: "▁" is a space and <0xNN> a byte; shown with the same marks as byte-level ones.
  // A byte-fallback piece holding part of a character (<0xC3>) stays as written, like byte-level parts.
  const bool bytePiece = piece.size() == 6 && piece.compare(0, 3, "<0x") == 0 && piece[5] == '>' &&
                         std::isxdigit(static_cast<unsigned char>(piece[3])) &&
                         std::isxdigit(static_cast<unsigned char>(piece[4]));
  if (bytePiece && std::stoi(piece.substr(3, 2), nullptr, 16) >= 0x80) return QString::fromStdString(piece);
  QString s = QString::fromStdString(tokenDisplayText(piece, TokenDisplayStyle::Metaspace));
  s.replace(' ', QChar(0x00B7)).replace('\n', QChar(0x21B5)).replace('\t', QChar(0x21E5));
  return s;
}

QStringList ComputeResult::tokenLabels() const {
  if (!run) return {};
  QStringList labels;
  for (const std::string& t : run->trace.tokens) labels << pieceLabel(t, run->info.pieceStyle);
  return labels;
}

QString ComputeResult::idLabel(int id) const {
  if (!run || !run->model) return QString::number(id);
  if (run->info.pieceStyle.empty())
    for (std::size_t i = 0; i < run->text.ids.size() && i < run->text.tokens.size(); ++i)
      if (run->text.ids[i] == id && run->text.tokens[i].byteEnd > run->text.tokens[i].byteBegin)
        return QString::fromStdString(run->text.tokens[i].text);
  return pieceLabel(run->model->vocabularyPiece(id), run->info.pieceStyle);
}

QStringList ComputeResult::rawTokenLabels() const {
  if (!run) return {};
  return labelsOf(run->trace.tokens);
}

void ComputeResult::useRawTokens(ViewNumbers& n) const {
  const QStringList shown = tokenLabels();
  if (shown == rawTokenLabels()) return;
  for (LabelledMatrix& m : n.matrices)
    for (std::vector<std::string>* labels : {&m.rowLabels, &m.colLabels})
      if (labelsOf(*labels) == shown) *labels = run->trace.tokens;
}

int ComputeResult::layer() const {
  if (!run || run->trace.layerCount() == 0) return 0;
  return std::clamp(params.selection.layer, 0, run->trace.layerCount() - 1);
}

int ComputeResult::head() const {
  if (!run || run->trace.headCount() == 0) return 0;
  return std::clamp(params.selection.head, 0, run->trace.headCount() - 1);
}

}  // namespace attnlab::ui
