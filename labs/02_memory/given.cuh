// Lab 02_memory, given (you use it, you do not edit it): the checks every launcher makes.
//
// The starter and the reference solution include this one copy, so that the difference between
// them is only the lesson.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "memory.h"

namespace memory_lab {

// What every launcher checks before it launches. A shape a step cannot copy correctly is refused
// with a message that says why, never copied wrongly. `alignment`: the bytes of the step's widest
// load (alignof(float4) for float4 loads).
inline void validate(const CopyProblem& p, const char* step, std::size_t alignment) {
  const std::string where = std::string(step) + ": ";
  if (p.n == 0) return;
  if (p.in == nullptr || p.out == nullptr) throw std::invalid_argument(where + "in and out must not be null");
  if (p.threads_per_block < 32 || p.threads_per_block > 1024 || p.threads_per_block % 32 != 0)
    throw std::invalid_argument(where + "threads_per_block must be a multiple of 32 in [32, 1024], not " +
                                std::to_string(p.threads_per_block));
  const auto in_address = reinterpret_cast<std::uintptr_t>(p.in);
  const auto out_address = reinterpret_cast<std::uintptr_t>(p.out);
  if (in_address % alignment != 0 || out_address % alignment != 0)
    throw std::invalid_argument(where + "in and out must be " + std::to_string(alignment) +
                                "-byte aligned for its vector loads");
  const std::uintptr_t bytes = p.n * sizeof(float);
  if (in_address < out_address + bytes && out_address < in_address + bytes)
    throw std::invalid_argument(where + "in and out overlap");
}

// What a launcher that drives the bulk-copy engine (workbook/bulk_copy.cuh) checks first: the GPU has one.
// (The grader reports such a step not applicable on an older GPU and never calls it there.)
inline void require_copy_engine(const char* step) {
  int device = 0, major = 0, minor = 0;
  if (cudaGetDevice(&device) != cudaSuccess || cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) != cudaSuccess ||
      cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device) != cudaSuccess)
    throw std::runtime_error(std::string(step) + ": cannot read this GPU's compute capability");
  if (major < 9)
    throw std::runtime_error(std::string(step) + ": the bulk-copy engine needs compute capability 9.0 (Hopper) or newer; "
                             "this GPU is " + std::to_string(major) + "." + std::to_string(minor));
}

}  // namespace memory_lab
