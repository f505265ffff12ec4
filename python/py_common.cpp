#include "python/py_common.h"

#include <cmath>
#include <limits>

#include "core/base/errors.h"
#include "core/text/token_display.h"

namespace attnlab::py_module {

TokenDisplayStyle styleOf(const ModelInfo& info) {
  if (info.pieceStyle == "byte-level") return TokenDisplayStyle::ByteLevel;
  if (info.pieceStyle == "metaspace") return TokenDisplayStyle::Metaspace;
  return TokenDisplayStyle::Auto;
}

namespace {

bool isIntegerScalar(py::handle h) {
  if (py::isinstance<py::bool_>(h)) return false;
  if (py::isinstance<py::int_>(h)) return true;
  return py::hasattr(h, "dtype") && py::hasattr(h, "ndim") && h.attr("ndim").cast<int>() == 0 &&
         py::str(h.attr("dtype").attr("kind")).cast<std::string>().find_first_of("iu") != std::string::npos;
}

/// A sequence of ints (list, tuple, 1-D integer array) as ids; false when it is not one.
bool idsOf(py::handle h, std::vector<int>& ids) {
  if (py::isinstance<py::str>(h) || py::isinstance<py::bytes>(h)) return false;
  if (py::isinstance<py::array>(h)) {
    const py::array a = py::reinterpret_borrow<py::array>(h);
    const char kind = a.dtype().kind();
    if (a.ndim() != 1 || (kind != 'i' && kind != 'u')) return false;
    const py::array_t<long long, py::array::forcecast> v(a);
    ids.assign(v.data(), v.data() + v.size());
    for (std::size_t i = 0; i < ids.size(); ++i)
      if (v.data()[i] != ids[i]) throw InputError("token id " + std::to_string(v.data()[i]) + " is out of range");
    return true;
  }
  if (!py::isinstance<py::sequence>(h)) return false;
  const py::sequence s = py::reinterpret_borrow<py::sequence>(h);
  if (s.size() == 0) return false;
  ids.clear();
  for (py::handle item : s) {
    if (!isIntegerScalar(item)) return false;
    const long long id = item.cast<long long>();
    if (id < std::numeric_limits<int>::min() || id > std::numeric_limits<int>::max())
      throw InputError("token id " + std::to_string(id) + " is out of range");
    ids.push_back(static_cast<int>(id));
  }
  return true;
}

[[noreturn]] void badInput(py::handle input) {
  throw InputError(
      "expected a text (str), a list of texts, token ids (a list or 1-D array of ints) or a batch of "
      "them (a list of lists or a 2-D int array); got " +
      py::str(py::type::handle_of(input).attr("__name__")).cast<std::string>());
}

}  // namespace

TokenizedText textOfIds(const LoadedModel& m, const std::vector<int>& ids) {
  const int vocab = m.model->vocabularySize();
  if (vocab <= 0)
    throw InputError("the model '" + m.info.name + "' reads words and has no token ids: give it the text");
  if (ids.empty()) throw InputError("no tokens: give at least one token id");
  TokenizedText t;
  t.ids = ids;
  for (int id : ids) {
    if (id < 0 || id >= vocab)
      throw InputError("token id " + std::to_string(id) + " is outside the vocabulary (0–" + std::to_string(vocab - 1) +
                       ")");
    Token token;
    token.text = m.model->vocabularyPiece(id);  // as the tokenizers name their tokens ("Ġcat")
    t.tokens.push_back(std::move(token));
  }
  return t;
}

std::vector<TokenizedText> inputsOf(const LoadedModel& m, py::handle input) {
  std::vector<TokenizedText> texts;
  std::vector<int> ids;
  if (py::isinstance<py::str>(input)) {
    texts.push_back(m.model->tokenize(input.cast<std::string>()));
  } else if (idsOf(input, ids)) {
    texts.push_back(textOfIds(m, ids));
  } else if (py::isinstance<py::array>(input) && py::reinterpret_borrow<py::array>(input).ndim() == 2) {
    for (py::handle row : input) {
      if (!idsOf(row, ids)) badInput(input);
      texts.push_back(textOfIds(m, ids));
    }
  } else if (py::isinstance<py::sequence>(input) && !py::isinstance<py::bytes>(input)) {
    for (py::handle item : input) {
      if (py::isinstance<py::str>(item))
        texts.push_back(m.model->tokenize(item.cast<std::string>()));
      else if (idsOf(item, ids))
        texts.push_back(textOfIds(m, ids));
      else
        badInput(item);
    }
  } else {
    badInput(input);
  }
  if (texts.empty()) throw InputError("an empty batch: give at least one text");
  for (std::size_t b = 0; b < texts.size(); ++b) {
    if (texts[b].tokens.empty()) throw InputError("text " + std::to_string(b) + " has no tokens");
    if (texts[b].tokens.size() != texts[0].tokens.size())
      throw InputError("a batch runs texts of the same length: text 0 has " + std::to_string(texts[0].tokens.size()) +
                       " tokens, text " + std::to_string(b) + " has " + std::to_string(texts[b].tokens.size()));
  }
  return texts;
}

py::capsule ownerCapsule(std::shared_ptr<const void> owner) {
  auto* held = new std::shared_ptr<const void>(std::move(owner));
  return py::capsule(held, [](void* p) { delete static_cast<std::shared_ptr<const void>*>(p); });
}

py::array floatView(const float* data, std::vector<py::ssize_t> shape, std::vector<py::ssize_t> strides,
                    py::handle base) {
  py::array a(py::dtype::of<float>(), std::move(shape), std::move(strides), data, base);
  // The views show the trace itself: writing into them would change what later reads of the cache see.
  py::detail::array_proxy(a.ptr())->flags &= ~py::detail::npy_api::NPY_ARRAY_WRITEABLE_;
  return a;
}

py::array rowsView(const Mat& m, py::handle base) {
  const py::ssize_t n = m.rows(), d = m.cols(), f = sizeof(float);
  return floatView(m.data(), {1, n, d}, {n * d * f, f, n * f}, base);
}

py::array ownedRowsView(Mat m) {
  auto owner = std::make_shared<const Mat>(std::move(m));
  const py::capsule base = ownerCapsule(owner);
  return rowsView(*owner, base);
}

py::array_t<float> newFloatArray(const std::vector<py::ssize_t>& shape) { return py::array_t<float>(shape); }

py::array_t<double> toArray(const VecD& v) {
  py::array_t<double> a(static_cast<py::ssize_t>(v.size()));
  std::copy(v.data(), v.data() + v.size(), a.mutable_data());
  return a;
}

py::array_t<double> toArray(const MatD& m) {
  py::array_t<double> a({static_cast<py::ssize_t>(m.rows()), static_cast<py::ssize_t>(m.cols())});
  Eigen::Map<Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>(a.mutable_data(), m.rows(),
                                                                                     m.cols()) = m;
  return a;
}

namespace {

/// Whether j is a non-empty array of numbers (null allowed) or of such arrays of one shape; `shape` gets the shape.
bool numericShape(const nlohmann::json& j, std::vector<py::ssize_t>& shape) {
  if (!j.is_array() || j.empty()) return false;
  bool anyNumber = false;
  if (j[0].is_array()) {
    std::vector<py::ssize_t> inner;
    if (!numericShape(j[0], inner)) return false;
    for (const auto& item : j) {
      std::vector<py::ssize_t> s;
      if (!numericShape(item, s) || s != inner) return false;
    }
    shape = {static_cast<py::ssize_t>(j.size())};
    shape.insert(shape.end(), inner.begin(), inner.end());
    return true;
  }
  for (const auto& item : j) {
    if (!(item.is_number() || item.is_null())) return false;
    anyNumber = anyNumber || item.is_number();
  }
  shape = {static_cast<py::ssize_t>(j.size())};
  return anyNumber;
}

void flatten(const nlohmann::json& j, double*& out) {
  if (j.is_array()) {
    for (const auto& item : j) flatten(item, out);
  } else {
    *out++ = j.is_null() ? std::numeric_limits<double>::quiet_NaN() : j.get<double>();
  }
}

}  // namespace

py::object fromJson(const nlohmann::json& j) {
  switch (j.type()) {
    case nlohmann::json::value_t::null:
      return py::none();
    case nlohmann::json::value_t::boolean:
      return py::bool_(j.get<bool>());
    case nlohmann::json::value_t::number_integer:
      return py::int_(j.get<long long>());
    case nlohmann::json::value_t::number_unsigned:
      return py::int_(j.get<unsigned long long>());
    case nlohmann::json::value_t::number_float:
      return py::float_(j.get<double>());
    case nlohmann::json::value_t::string:
      return py::str(j.get<std::string>());
    case nlohmann::json::value_t::object: {
      py::dict d;
      for (const auto& [key, value] : j.items()) d[py::str(key)] = fromJson(value);
      return std::move(d);
    }
    case nlohmann::json::value_t::array: {
      std::vector<py::ssize_t> shape;
      if (numericShape(j, shape)) {
        py::array_t<double> a(shape);
        double* out = a.mutable_data();
        flatten(j, out);
        return std::move(a);
      }
      py::list l;
      for (const auto& item : j) l.append(fromJson(item));
      return std::move(l);
    }
    default:
      return py::none();
  }
}

void requireVocabulary(const LoadedModel& m, const char* what) {
  if (!m.model->unembedding())
    throw InputError(std::string(what) + " needs a model with a vocabulary and an unembedding; '" + m.info.name +
                     "' has none");
}

}  // namespace attnlab::py_module
