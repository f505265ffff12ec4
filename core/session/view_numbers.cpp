#include "core/session/view_numbers.h"

#include <charconv>
#include <cmath>

#include "core/base/errors.h"
#include "core/base/npy.h"

namespace attnlab {
namespace {

std::string csvField(const std::string& s) {
  if (s.find_first_of(",\"\r\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) {
    if (c == '"') q += '"';  // RFC 4180: a quote inside a quoted field is doubled
    q += c;
  }
  return q + "\"";
}

std::string number(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[64];
  // Shortest form that reads back to the same value; a value that is exactly a float (the forward
  // pass's precision) is written as that float's shortest form: 0.1f, not 0.10000000149011612.
  const float f = static_cast<float>(v);
  const auto res =
      static_cast<double>(f) == v ? std::to_chars(buf, buf + sizeof buf, f) : std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, res.ptr);
}

std::string label(const std::vector<std::string>& labels, Eigen::Index i) {
  return i < static_cast<Eigen::Index>(labels.size()) ? labels[static_cast<std::size_t>(i)] : std::to_string(i);
}

}  // namespace

NumbersFormat parseNumbersFormat(const std::string& s) {
  if (s == "csv") return NumbersFormat::Csv;
  if (s == "json") return NumbersFormat::Json;
  if (s == "npy") return NumbersFormat::Npy;
  throw InputError("unknown numbers format '" + s + "' (use csv, json or npy)");
}

bool isNumbersFormat(const std::string& s) { return s == "csv" || s == "json" || s == "npy"; }

std::string matrixNames(const ViewNumbers& n) {
  std::string s;
  for (const LabelledMatrix& m : n.matrices) s += (s.empty() ? "" : ", ") + m.name;
  return s;
}

std::string numbersToCsv(const ViewNumbers& n) {
  std::string out;
  for (std::size_t k = 0; k < n.matrices.size(); ++k) {
    const LabelledMatrix& m = n.matrices[k];
    if (k) out += "\r\n";
    out += csvField(m.name);
    for (Eigen::Index j = 0; j < m.values.cols(); ++j) out += "," + csvField(label(m.colLabels, j));
    out += "\r\n";
    for (Eigen::Index i = 0; i < m.values.rows(); ++i) {
      out += csvField(label(m.rowLabels, i));
      for (Eigen::Index j = 0; j < m.values.cols(); ++j) out += "," + number(m.values(i, j));
      out += "\r\n";
    }
  }
  return out;
}

nlohmann::json numbersToJson(const ViewNumbers& n) {
  using nlohmann::json;
  json matrices = json::array();
  for (const LabelledMatrix& m : n.matrices) {
    json rows = json::array(), cols = json::array(), values = json::array();
    for (Eigen::Index i = 0; i < m.values.rows(); ++i) rows.push_back(label(m.rowLabels, i));
    for (Eigen::Index j = 0; j < m.values.cols(); ++j) cols.push_back(label(m.colLabels, j));
    for (Eigen::Index i = 0; i < m.values.rows(); ++i) {
      json row = json::array();
      for (Eigen::Index j = 0; j < m.values.cols(); ++j) {
        const double v = m.values(i, j);
        row.push_back(std::isfinite(v) ? json(v) : json(nullptr));
      }
      values.push_back(std::move(row));
    }
    matrices.push_back({{"name", m.name},
                        {"title", m.title},
                        {"shape", {m.values.rows(), m.values.cols()}},
                        {"rows", rows},
                        {"cols", cols},
                        {"values", values}});
  }
  return json{
      {"schema", kNumbersSchema}, {"view", n.view}, {"title", n.title}, {"params", n.params}, {"matrices", matrices}};
}

std::string numbersToNpy(const ViewNumbers& n, const std::string& matrix) {
  if (n.matrices.empty()) throw InputError("the view '" + n.view + "' has no numbers to export");
  if (!matrix.empty()) {
    for (const LabelledMatrix& m : n.matrices)
      if (m.name == matrix) return npyBytes(m.values);
    throw InputError("the view '" + n.view + "' has no matrix '" + matrix + "' (it has: " + matrixNames(n) + ")");
  }
  if (n.matrices.size() == 1) return npyBytes(n.matrices[0].values);
  std::vector<MatD> stack;
  for (const LabelledMatrix& m : n.matrices) {
    if (m.values.rows() != n.matrices[0].values.rows() || m.values.cols() != n.matrices[0].values.cols())
      throw InputError("the view '" + n.view +
                       "' shows matrices of different shapes and an .npy file holds one "
                       "array: choose one with --matrix NAME (" +
                       matrixNames(n) + "), or use csv or json");
    stack.push_back(m.values);
  }
  return npyBytes(stack);
}

std::string numbersToBytes(const ViewNumbers& n, NumbersFormat format, const std::string& matrix) {
  switch (format) {
    case NumbersFormat::Csv:
      return numbersToCsv(n);
    case NumbersFormat::Json:
      return numbersToJson(n).dump(1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
    case NumbersFormat::Npy:
      break;
  }
  return numbersToNpy(n, matrix);
}

}  // namespace attnlab
