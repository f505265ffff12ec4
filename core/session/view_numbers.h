#pragma once
// The numbers behind a view, for `attnlab export --format csv|json|npy` and the GUI's "Export
// numbers": a list of named matrices with token (or index) labels on rows and columns. Every view
// describes what it draws this way; the writers below turn it into files.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/base/tensor.h"

namespace attnlab {

inline constexpr const char* kNumbersSchema = "attnlab.numbers/1";

struct LabelledMatrix {
  std::string name;                    ///< short identifier, e.g. "attention_L0_H1"
  std::string title;                   ///< what the panel shows, e.g. "Attention · layer 0 · head 1"
  MatD values;                         ///< [rows, cols]
  std::vector<std::string> rowLabels;  ///< one per row (tokens, or indices)
  std::vector<std::string> colLabels;  ///< one per column
};

struct ViewNumbers {
  std::string view;                                  ///< the view's export name
  std::string title;                                 ///< the figure's title
  nlohmann::json params = nlohmann::json::object();  ///< the parameters that produced them
  std::vector<LabelledMatrix> matrices;
};

enum class NumbersFormat { Csv, Json, Npy };

/// "csv", "json" or "npy"; throws InputError otherwise.
NumbersFormat parseNumbersFormat(const std::string& s);
bool isNumbersFormat(const std::string& s);

/// CSV (RFC 4180): one block per matrix, blocks separated by an empty line. A block's first row is
/// the matrix name followed by the column labels; every further row is a row label and its values.
/// Values are written in the shortest form that reads back to the same double.
std::string numbersToCsv(const ViewNumbers& n);

/// {"schema": "attnlab.numbers/1", "view", "title", "params",
///  "matrices": [{"name", "title", "shape": [r, c], "rows": [...], "cols": [...], "values": [[...]]}]}
/// Non-finite values become null (JSON has no NaN).
nlohmann::json numbersToJson(const ViewNumbers& n);

/// One .npy array: the matrix called `matrix` when given; else the only matrix, or all of them
/// stacked [count, rows, cols] when they share a shape. Throws InputError (naming the matrices to
/// choose from) when there is no single array to write.
std::string numbersToNpy(const ViewNumbers& n, const std::string& matrix = {});

/// The names of the matrices, comma separated (for messages).
std::string matrixNames(const ViewNumbers& n);

/// Writes the numbers in `format` (the bytes of the file).
std::string numbersToBytes(const ViewNumbers& n, NumbersFormat format, const std::string& matrix = {});

}  // namespace attnlab
