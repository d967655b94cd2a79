// The correct parts of a tiled scan, for the mutants whose defect is elsewhere (the look-back, the
// order of tiles): 256 threads, 16 consecutive ints each, a block-wide exclusive scan of the
// threads' totals. Written for the mutants, apart from the reference solution.
#pragma once

#include <cstddef>
#include <cstdint>

namespace reduce_scan_mutant {

constexpr int kTileThreads = 256;
constexpr int kTileItems = 16;
constexpr int kTileInts = kTileThreads * kTileItems;

// This thread's 16 ints of the tile, zeros past n, and their sum.
__device__ inline unsigned load_thread_items(const unsigned* in, std::size_t first, std::size_t n,
                                             unsigned (&items)[kTileItems]) {
  unsigned total = 0;
  for (int j = 0; j < kTileItems; ++j) {
    items[j] = first + j < n ? in[first + j] : 0u;
    total += items[j];
  }
  return total;
}

// Exclusive scan of one value per thread of the block (shared memory, Hillis-Steele), and the total.
__device__ inline unsigned block_exclusive_scan(unsigned value, unsigned& total) {
  __shared__ unsigned values[kTileThreads];
  const int t = threadIdx.x;
  values[t] = value;
  __syncthreads();
  for (int offset = 1; offset < kTileThreads; offset *= 2) {
    const unsigned before = t >= offset ? values[t - offset] : 0u;
    __syncthreads();
    values[t] += before;
    __syncthreads();
  }
  total = values[kTileThreads - 1];
  return values[t] - value;
}

__device__ inline void store_thread_prefix_sums(unsigned* out, std::size_t first, std::size_t n,
                                                const unsigned (&items)[kTileItems], unsigned prefix) {
  for (int j = 0; j < kTileItems; ++j) {
    if (first + j < n) out[first + j] = prefix;
    prefix += items[j];
  }
}

}  // namespace reduce_scan_mutant
