// Mutant: decoupled look-back whose tile states are one 64-bit word each, written whole, but read as
// two 32-bit halves: the value first, then the flag. Between the two reads a tile may move from
// "aggregate" to "inclusive prefix": the reader then takes the tile's own total for the sum of
// everything before it. Wrong only now and then: the grader's many checked calls are its stress run.
#include "every_step.h"
#include "given.cuh"
#include "tile_scan.cuh"
#include "workbook/launch.cuh"

namespace {
using namespace reduce_scan_mutant;

constexpr unsigned long long kAggregate = 1, kPrefix = 2;

__device__ void publish(unsigned long long* states, unsigned tile, unsigned long long flag, unsigned value) {
  atomicExch(states + tile, (flag << 32) | value);
}

__global__ void torn_scan_kernel(const unsigned* in, unsigned* out, std::size_t n, unsigned long long* states,
                                 unsigned* next_tile) {
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
      publish(states, tile, kAggregate, total);
      for (long long j = static_cast<long long>(tile) - 1; j >= 0; --j) {
        const volatile unsigned* halves = reinterpret_cast<const volatile unsigned*>(states + j);
        unsigned value, flag;
        do {
          value = halves[0];  // the defect: two reads of one word, the value before the flag
          flag = halves[1];
        } while (flag == 0);
        before += value;
        if (flag == kPrefix) break;
      }
    }
    publish(states, tile, kPrefix, before + total);
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
  return (tiles_of(shape.n) + 1) * sizeof(unsigned long long);
}
void wrong_scan(const reduce_scan_lab::SumProblem& p, cudaStream_t s) {
  reduce_scan_lab::validate(p, "look_back_torn", reduce_scan_lab::Output::kPrefixSums);
  if (p.n == 0) return;
  const std::size_t tiles = tiles_of(p.n);
  const std::size_t bytes = reduce_scan_mutant::scan_workspace_bytes(p);
  void* const workspace = reduce_scan_lab::workspace_of(p, "look_back_torn", bytes);
  CUDA_CHECK(cudaMemsetAsync(workspace, 0, bytes, s));
  auto* const states = static_cast<unsigned long long*>(workspace);
  workbook::launch(torn_scan_kernel, dim3(static_cast<unsigned>(tiles)), dim3(kTileThreads), 0, s,
                   reinterpret_cast<const unsigned*>(p.in), reinterpret_cast<unsigned*>(p.out), p.n, states,
                   reinterpret_cast<unsigned*>(states + tiles));
}
}  // namespace reduce_scan_mutant
