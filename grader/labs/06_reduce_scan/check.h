// Lab 06's device-side work of the grader (check.cu): CUB, the line to beat, and the check of every
// timed call's output against the truth computed from the input's seed. Plain C++.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "harness/buffers.h"

namespace reduce_scan_check {

// CUB's temporary storage for a sum or a scan of n ints, in bytes (at least 1).
std::size_t cub_sum_temp_bytes(std::size_t n);
std::size_t cub_scan_temp_bytes(std::size_t n);
// cub::DeviceReduce::Sum and cub::DeviceScan::ExclusiveSum, with storage sized as above.
void cub_sum(const std::int32_t* in, std::int32_t* out, std::size_t n, void* temp, std::size_t temp_bytes,
             cudaStream_t stream);
void cub_exclusive_sum(const std::int32_t* in, std::int32_t* out, std::size_t n, void* temp, std::size_t temp_bytes,
                       cudaStream_t stream);

// Where the check computes the truth: n ints of input and n of prefix sums (scans), or one (sums),
// and CUB's storage. Allocated once per timed measurement, by the grader.
struct TruthScratch {
  std::int32_t* values = nullptr;  // the input, drawn again from its seed
  std::int32_t* truth = nullptr;   // its sum (one int) or its exclusive scan (n ints)
  void* temp = nullptr;
  std::size_t temp_bytes = 0;
};

// Adds to *result the sum in *out if it is not the sum of the n ints fill_random() drew with `seed`.
void count_wrong_sum(const std::int32_t* out, std::size_t n, std::uint64_t seed, const TruthScratch& scratch,
                     workbook::DeviceMismatches* result, cudaStream_t stream);
// Adds to *result every element of out that is not the exclusive prefix sum of those ints.
void count_wrong_prefix_sums(const std::int32_t* out, std::size_t n, std::uint64_t seed, const TruthScratch& scratch,
                             workbook::DeviceMismatches* result, cudaStream_t stream);

}  // namespace reduce_scan_check
