#pragma once
// NumPy's .npy file format (version 1.0), written without numpy so that `numpy.load` reads what the
// program exports:
//   "\x93NUMPY" 0x01 0x00, uint16 little-endian header length, an ASCII Python dict
//   "{'descr': '<f8', 'fortran_order': False, 'shape': (r, c), }" padded with spaces and ended by '\n'
//   so that the data starts at a multiple of 64 bytes, then the values C-ordered (row-major), little-endian.
#include <cstddef>
#include <string>
#include <vector>

#include "core/base/tensor.h"

namespace attnlab {

enum class NpyType { Float32, Float64 };

/// The bytes of a .npy file holding `values` (row-major, product of `shape` elements).
/// Throws InputError when the sizes disagree.
std::string npyBytes(const std::vector<double>& values, const std::vector<std::size_t>& shape,
                     NpyType type = NpyType::Float64);

/// A matrix as a 2-D array [rows, cols].
std::string npyBytes(const MatD& m, NpyType type = NpyType::Float64);

/// A float matrix as a 2-D float32 array [rows, cols] (a trace's activations, written at their own precision).
std::string npyBytes(const Mat& m);

/// Matrices of one shape stacked into a 3-D array [count, rows, cols]. Throws InputError when the
/// shapes differ or the list is empty.
std::string npyBytes(const std::vector<MatD>& stack, NpyType type = NpyType::Float64);

}  // namespace attnlab
