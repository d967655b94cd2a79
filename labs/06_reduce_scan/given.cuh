// Lab 06_reduce_scan, given (you use it, you do not edit it): the checks every launcher makes.
//
// The starter and the reference solution include this one copy, so that the difference between
// them is only the lesson.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "reduce_scan.h"
#include "workbook/workspace.h"

namespace reduce_scan_lab {

enum class Output { kOneSum, kPrefixSums };

// What every launcher checks before it launches. A problem a step cannot sum correctly is refused
// with a message that says why, never summed wrongly. `output`: a reduction writes one int, a
// scan n of them.
inline void validate(const SumProblem& p, const char* step, Output output) {
  const std::string where = std::string(step) + ": ";
  if (p.out == nullptr && (output == Output::kOneSum || p.n > 0)) throw std::invalid_argument(where + "out must not be null");
  if (p.n == 0) return;
  if (p.in == nullptr) throw std::invalid_argument(where + "in must not be null");
  const auto in_address = reinterpret_cast<std::uintptr_t>(p.in), out_address = reinterpret_cast<std::uintptr_t>(p.out);
  if (in_address % alignof(std::int32_t) != 0 || out_address % alignof(std::int32_t) != 0)
    throw std::invalid_argument(where + "in and out must be 4-byte aligned");
  const std::uintptr_t in_bytes = p.n * sizeof(std::int32_t);
  const std::uintptr_t out_bytes = (output == Output::kOneSum ? 1 : p.n) * sizeof(std::int32_t);
  if (in_address < out_address + out_bytes && out_address < in_address + in_bytes)
    throw std::invalid_argument(where + "in and out overlap");
}

// The problem's workspace, after checking that it holds `bytes` (what your *_workspace_bytes()
// asked for) and is 16-byte aligned. nullptr when bytes is 0.
inline void* workspace_of(const SumProblem& p, const char* step, std::size_t bytes) {
  return workbook::checked_workspace(p, step, bytes);
}

}  // namespace reduce_scan_lab
