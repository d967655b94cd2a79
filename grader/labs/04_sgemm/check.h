// Lab 04's device-side check (check.cu): every element of C against a double-precision product on
// the GPU, with the tolerance of oracle.h. Used after every timed call and for the correctness
// shapes too large for the CPU oracle. Plain C++.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "harness/buffers.h"
#include "oracle.h"

namespace sgemm_check {

// Adds to *result every element of c (m x n) farther from the double-precision A B than
// `tolerance` allows (NaN included). A (m x k) and B (k x n), row-major, are the matrices the
// generator drew with a_seed and b_seed: computed here from the seeds, not read from buffers that
// the kernel under test could have changed.
void count_outside_tolerance(std::uint64_t a_seed, std::uint64_t b_seed, const float* c, int m, int n, int k,
                             sgemm_oracle::Tolerance tolerance, workbook::DeviceMismatches* result,
                             cudaStream_t stream);

}  // namespace sgemm_check
