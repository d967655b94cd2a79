// Mutant: decoupled look-back with each tile's flag and value in two arrays, the value written and
// then the flag, with no fence between them. Another SM may see the flag before the value, and add
// the value that was there before (the workspace's garbage, or 0). Wrong only now and then: the
// grader's many timed calls, each checked in full, are its stress run.
#include "every_step.h"
#include "given.cuh"
#include "tile_scan.cuh"
#include "workbook/launch.cuh"

namespace {
using namespace reduce_scan_mutant;

__global__ void unfenced_scan_kernel(const unsigned* in, unsigned* out, std::size_t n, volatile unsigned* flags,
                                     volatile unsigned* values, unsigned* next_tile) {
  __shared__ unsigned tile_shared, tile_prefix;
  if (threadIdx.x == 0) tile_shared = atomicAdd(next_tile, 1u);
  __syncthreads();
  const unsigned tile = tile_shared;
  const std::size_t first = std::size_t(tile) * kTileInts + threadIdx.x * std::size_t(kTileItems);
  unsigned items[kTileItems];
  unsigned total = 0;
  const unsigned prefix = block_exclusive_scan(load_thread_items(in, first, n, items), total);
  if (threadIdx.x == 0) {
    unsigned before = 0;
    if (tile > 0) {
      values[tile] = total;
      flags[tile] = 1;  // the defect: no __threadfence() between the value and its flag
      for (long long j = static_cast<long long>(tile) - 1; j >= 0; --j) {
        unsigned flag;
        while ((flag = flags[j]) == 0) {
        }
        before += values[j];
        if (flag == 2) break;
      }
    }
    values[tile] = before + total;
    flags[tile] = 2;  // and again
    tile_prefix = before;
  }
  __syncthreads();
  store_thread_prefix_sums(out, first, n, items, tile_prefix + prefix);
}

std::size_t tiles_of(std::size_t n) { return (n + kTileInts - 1) / kTileInts; }
}  // namespace

namespace reduce_scan_mutant {
void wrong_sum(const reduce_scan_lab::SumProblem&, cudaStream_t) { not_this_mutant("sums"); }
std::size_t sum_workspace_bytes(const reduce_scan_lab::SumProblem&) { return 0; }
std::size_t scan_workspace_bytes(const reduce_scan_lab::SumProblem& shape) {
  return (2 * tiles_of(shape.n) + 1) * sizeof(unsigned);
}
void wrong_scan(const reduce_scan_lab::SumProblem& p, cudaStream_t s) {
  reduce_scan_lab::validate(p, "look_back_unfenced", reduce_scan_lab::Output::kPrefixSums);
  if (p.n == 0) return;
  const std::size_t tiles = tiles_of(p.n);
  const std::size_t bytes = reduce_scan_mutant::scan_workspace_bytes(p);
  auto* const flags = static_cast<unsigned*>(reduce_scan_lab::workspace_of(p, "look_back_unfenced", bytes));
  CUDA_CHECK(cudaMemsetAsync(flags, 0, tiles * sizeof(unsigned), s));  // flags cleared; values left as garbage
  CUDA_CHECK(cudaMemsetAsync(flags + 2 * tiles, 0, sizeof(unsigned), s));
  workbook::launch(unfenced_scan_kernel, dim3(static_cast<unsigned>(tiles)), dim3(kTileThreads), 0, s,
                   reinterpret_cast<const unsigned*>(p.in), reinterpret_cast<unsigned*>(p.out), p.n,
                   static_cast<volatile unsigned*>(flags), static_cast<volatile unsigned*>(flags + tiles), flags + 2 * tiles);
}
}  // namespace reduce_scan_mutant
