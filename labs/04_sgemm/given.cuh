// Lab 04_sgemm, given (you use it, you do not edit it): the checks every launcher makes, and the
// index of an element.
//
// The starter and the reference solution include this one copy, so that the difference between
// them is only the lesson.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "sgemm.h"
#include "workbook/launch.cuh"
#include "workbook/workspace.h"

namespace sgemm_lab {

// What every launcher checks before it launches. A shape a step cannot multiply correctly is
// refused with a message that says why, never multiplied wrongly. False: nothing to do (C is
// empty). rows_per_block: the rows of C one block computes (gridDim.y is at most 65535).
inline bool validate(const GemmProblem& p, const char* step, int rows_per_block) {
  const std::string where = std::string(step) + ": ";
  if (p.m < 0 || p.n < 0 || p.k < 0) throw std::invalid_argument(where + "m, n and k must not be negative");
  if (p.m == 0 || p.n == 0) return false;
  if (p.c == nullptr || (p.k > 0 && (p.a == nullptr || p.b == nullptr)))
    throw std::invalid_argument(where + "a, b and c must not be null");
  const auto overlap = [](const void* x, std::size_t x_floats, const void* y, std::size_t y_floats) {
    const auto xa = reinterpret_cast<std::uintptr_t>(x), ya = reinterpret_cast<std::uintptr_t>(y);
    return xa < ya + y_floats * sizeof(float) && ya < xa + x_floats * sizeof(float);
  };
  const std::size_t c_floats = std::size_t(p.m) * p.n;
  if (p.k > 0 && (overlap(p.c, c_floats, p.a, std::size_t(p.m) * p.k) || overlap(p.c, c_floats, p.b, std::size_t(p.k) * p.n)))
    throw std::invalid_argument(where + "c overlaps a or b");
  for (const void* pointer : {static_cast<const void*>(p.a), static_cast<const void*>(p.b), static_cast<const void*>(p.c)})
    if (reinterpret_cast<std::uintptr_t>(pointer) % alignof(float) != 0)
      throw std::invalid_argument(where + "a, b and c must be 4-byte aligned");
  if (workbook::ceil_div(p.m, rows_per_block) > 65535)
    throw std::invalid_argument(where + "m is too large for this step's grid (at most " +
                                std::to_string(65535 * rows_per_block) + ")");
  return true;
}

// The problem's workspace as floats, after checking that it holds `bytes` (what the step's
// *_workspace_bytes() asked for) and is 16-byte aligned for float4. nullptr when bytes is 0.
inline float* workspace_of(const GemmProblem& p, const char* step, std::size_t bytes) {
  return static_cast<float*>(workbook::checked_workspace(p, step, bytes));
}

// Element (i, j) of a row-major matrix `width` floats wide. 64-bit: 8192^2 floats are 2^26.
__host__ __device__ inline std::size_t at(int i, int j, int width) { return std::size_t(i) * width + j; }

}  // namespace sgemm_lab
