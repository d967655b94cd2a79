// What the labs' device-side checks share (CUDA code only): the generator, so that a check computes
// the truth from an input's seed, and the way a failing element is counted.
#pragma once

#include "harness/buffers.h"
#include "harness/random.cuh"

namespace workbook {

// Counts element i as failing, and keeps the lowest failing index.
__device__ inline void note_mismatch(DeviceMismatches* result, std::size_t i) {
  atomicAdd(&result->count, 1ull);
  atomicMin(&result->first, static_cast<unsigned long long>(i));
}

// A grid-stride loop of kCheckThreads-thread blocks over `count` elements: enough blocks to fill
// any GPU, never more than needed.
inline constexpr unsigned kCheckThreads = 256;
inline dim3 check_grid(std::size_t count) {
  constexpr std::size_t kMaxBlocks = 4096;
  const std::size_t blocks = (count + kCheckThreads - 1) / kCheckThreads;
  return dim3(static_cast<unsigned>(blocks < 1 ? 1 : blocks > kMaxBlocks ? kMaxBlocks : blocks));
}

}  // namespace workbook
