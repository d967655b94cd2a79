// Lab 03's device-side check of a timed call (check.cu). Plain C++.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "harness/buffers.h"

namespace transpose_check {

// Adds to *result every element of out (cols x rows) that is not the transpose of the rows x cols
// matrix fill_random() drew with `in_seed`.
void count_untransposed(const float* out, int rows, int cols, std::uint64_t in_seed, workbook::DeviceMismatches* result,
                        cudaStream_t stream);

}  // namespace transpose_check
