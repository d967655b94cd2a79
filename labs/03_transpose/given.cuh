// Lab 03_transpose, given (you use it, you do not edit it): the checks every launcher makes, the
// largest matrix the lab transposes, and the index of an element.
//
// The starter and the reference solution include this one copy, so that the difference between
// them is only the lesson.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "transpose.h"

namespace transpose_lab {

// gridDim.y is at most 65535, and a row of blocks covers at least 32 rows of the matrix. 03.4 may
// use one row of blocks more than the rows need (its windows can start up to one 32-byte sector,
// 8 floats, before a row does), so every step takes at most this many rows.
inline constexpr int kSpareRows = 8;
inline constexpr int kMaxRows = 65535 * 32 - kSpareRows;

// What every launcher checks before it launches. A shape a step cannot transpose correctly is
// refused with a message that says why, never transposed wrongly. False: nothing to do (rows or
// cols is 0).
inline bool validate(const TransposeProblem& p, const char* step) {
  const std::string where = std::string(step) + ": ";
  if (p.rows < 0 || p.cols < 0)
    throw std::invalid_argument(where + "rows and cols must not be negative, not " + std::to_string(p.rows) +
                                " x " + std::to_string(p.cols));
  if (p.rows == 0 || p.cols == 0) return false;
  if (p.in == nullptr || p.out == nullptr) throw std::invalid_argument(where + "in and out must not be null");
  const auto in_address = reinterpret_cast<std::uintptr_t>(p.in);
  const auto out_address = reinterpret_cast<std::uintptr_t>(p.out);
  if (in_address % alignof(float) != 0 || out_address % alignof(float) != 0)
    throw std::invalid_argument(where + "in and out must be 4-byte aligned");
  const std::uintptr_t bytes = std::uintptr_t(p.rows) * std::uintptr_t(p.cols) * sizeof(float);
  if (in_address < out_address + bytes && out_address < in_address + bytes)
    throw std::invalid_argument(where + "in and out overlap: this transpose is out of place");
  if (p.rows > kMaxRows)
    throw std::invalid_argument(where + "at most " + std::to_string(kMaxRows) + " rows, not " + std::to_string(p.rows));
  return true;
}

// Element (r, c) of a row-major matrix `width` floats wide. 64-bit: 16384 x 16384 floats are 2^28.
__host__ __device__ inline std::size_t at(int r, int c, int width) { return std::size_t(r) * width + c; }

}  // namespace transpose_lab
