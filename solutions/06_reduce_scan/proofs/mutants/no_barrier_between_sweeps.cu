// Mutant (racecheck): Blelloch's scan with the root cleared by the block's last thread, and no
// barrier between the up-sweep and that clearing: thread 255 may read the root before thread 0 has
// added the last level into it, and thread 0's down-sweep may read it before it is cleared. The
// answer is often right anyway (warps of one block run close together); compute-sanitizer's
// racecheck sees the hazard every time.
#include "every_step.h"
#include "given.cuh"
#include "workbook/launch.cuh"

namespace {
constexpr int kThreads = 256, kElements = 2 * kThreads;

__device__ int padded(int i) { return i + i / 32; }

__global__ void racy_blelloch_kernel(const unsigned* in, unsigned* out, std::size_t n, unsigned* totals) {
  __shared__ unsigned tree[kElements + kElements / 32];
  const int t = threadIdx.x;
  const std::size_t base = blockIdx.x * std::size_t(kElements);
  tree[padded(t)] = base + t < n ? in[base + t] : 0u;
  tree[padded(t + kThreads)] = base + t + kThreads < n ? in[base + t + kThreads] : 0u;
  int stride = 1;
  for (int active = kElements / 2; active > 0; active /= 2) {
    __syncthreads();
    if (t < active) tree[padded(stride * (2 * t + 2) - 1)] += tree[padded(stride * (2 * t + 1) - 1)];
    stride *= 2;
  }
  // The defect: no __syncthreads() here, and the clearing thread is not the one that wrote the root.
  if (t == kThreads - 1) {
    if (totals != nullptr) totals[blockIdx.x] = tree[padded(kElements - 1)];
    tree[padded(kElements - 1)] = 0;
  }
  for (int active = 1; active < kElements; active *= 2) {
    stride /= 2;
    if (active > 1) __syncthreads();  // and none before the first level either
    if (t < active) {
      const int left = padded(stride * (2 * t + 1) - 1), right = padded(stride * (2 * t + 2) - 1);
      const unsigned left_value = tree[left];
      tree[left] = tree[right];
      tree[right] += left_value;
    }
  }
  __syncthreads();
  if (base + t < n) out[base + t] = tree[padded(t)];
  if (base + t + kThreads < n) out[base + t + kThreads] = tree[padded(t + kThreads)];
}

__global__ void add_offsets_kernel(unsigned* out, std::size_t n, const unsigned* offsets) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x)
    out[i] += offsets[i / kElements];
}

std::size_t level_sums(std::size_t n) {
  std::size_t sums = 0;
  for (std::size_t blocks = (n + kElements - 1) / kElements; blocks > 1; blocks = (blocks + kElements - 1) / kElements)
    sums += blocks;
  return sums;
}

void scan_levels(const unsigned* in, unsigned* out, std::size_t n, unsigned* scratch, cudaStream_t s) {
  const std::size_t blocks = (n + kElements - 1) / kElements;
  unsigned* const totals = blocks > 1 ? scratch : nullptr;
  workbook::launch(racy_blelloch_kernel, dim3(static_cast<unsigned>(blocks)), dim3(kThreads), 0, s, in, out, n, totals);
  if (blocks == 1) return;
  scan_levels(totals, totals, blocks, scratch + blocks, s);
  workbook::launch(add_offsets_kernel, dim3(1024), dim3(256), 0, s, out, n, static_cast<const unsigned*>(totals));
}
}  // namespace

namespace reduce_scan_mutant {
void wrong_sum(const reduce_scan_lab::SumProblem&, cudaStream_t) { not_this_mutant("sums"); }
std::size_t sum_workspace_bytes(const reduce_scan_lab::SumProblem&) { return 0; }
std::size_t scan_workspace_bytes(const reduce_scan_lab::SumProblem& shape) { return level_sums(shape.n) * sizeof(unsigned); }
void wrong_scan(const reduce_scan_lab::SumProblem& p, cudaStream_t s) {
  reduce_scan_lab::validate(p, "no_barrier_between_sweeps", reduce_scan_lab::Output::kPrefixSums);
  if (p.n == 0) return;
  const std::size_t bytes = reduce_scan_mutant::scan_workspace_bytes(p);
  auto* const scratch = static_cast<unsigned*>(reduce_scan_lab::workspace_of(p, "no_barrier_between_sweeps", bytes));
  scan_levels(reinterpret_cast<const unsigned*>(p.in), reinterpret_cast<unsigned*>(p.out), p.n, scratch, s);
}
}  // namespace reduce_scan_mutant
