#include "baseline.h"

#include <algorithm>
#include <cstddef>

#include "given.cuh"
#include "workbook/launch.cuh"

namespace reduce_scan_baseline {

namespace {

using Sum = unsigned int;
constexpr int kThreads = 256;

__global__ void reduce_divergent_kernel(const Sum* in, Sum* partials, std::size_t n) {
  __shared__ Sum partial[kThreads];
  const unsigned t = threadIdx.x;
  const std::size_t i = blockIdx.x * std::size_t(kThreads) + t;
  partial[t] = i < n ? in[i] : 0u;
  __syncthreads();
  for (unsigned s = 1; s < blockDim.x; s *= 2) {
    if (t % (2 * s) == 0) partial[t] += partial[t + s];  // most threads of every warp idle, all levels
    __syncthreads();
  }
  if (t == 0) partials[blockIdx.x] = partial[0];
}

std::size_t blocks_for(std::size_t n) { return workbook::ceil_div(n, std::size_t(kThreads)); }

// Every level's block totals, in Sums.
std::size_t level_sums(std::size_t n) {
  std::size_t sums = 0;
  for (std::size_t blocks = blocks_for(n); blocks > 1; blocks = blocks_for(blocks)) sums += blocks;
  return sums;
}

__global__ void scan_naive_kernel(const Sum* in, Sum* out, std::size_t n, Sum* block_totals) {
  __shared__ Sum values[kThreads];
  const unsigned t = threadIdx.x;
  const std::size_t i = blockIdx.x * std::size_t(kThreads) + t;
  const Sum own = i < n ? in[i] : 0u;
  values[t] = own;
  __syncthreads();
  for (unsigned offset = 1; offset < kThreads; offset *= 2) {
    const Sum before = t >= offset ? values[t - offset] : 0u;
    __syncthreads();  // everyone has read before anyone writes
    values[t] += before;
    __syncthreads();
  }
  if (i < n) out[i] = values[t] - own;  // inclusive minus own: exclusive
  if (block_totals != nullptr && t == kThreads - 1) block_totals[blockIdx.x] = values[t];
}

__global__ void add_offsets_kernel(Sum* out, std::size_t n, const Sum* offsets) {
  const std::size_t i = blockIdx.x * std::size_t(kThreads) + threadIdx.x;
  if (i < n) out[i] += offsets[blockIdx.x];
}

void scan_levels(const Sum* in, Sum* out, std::size_t n, Sum* scratch, cudaStream_t stream) {
  const std::size_t blocks = blocks_for(n);
  Sum* const totals = blocks > 1 ? scratch : nullptr;
  workbook::launch(scan_naive_kernel, dim3(static_cast<unsigned>(blocks)), dim3(kThreads), 0, stream, in, out, n,
                   totals);
  if (blocks == 1) return;
  scan_levels(totals, totals, blocks, scratch + blocks, stream);
  workbook::launch(add_offsets_kernel, dim3(static_cast<unsigned>(blocks)), dim3(kThreads), 0, stream, out, n,
                   static_cast<const Sum*>(totals));
}

}  // namespace

std::size_t reduce_divergent_workspace_bytes(const SumProblem& shape) {
  const std::size_t first = blocks_for(shape.n);
  return (first + blocks_for(first)) * sizeof(Sum);
}

std::size_t scan_naive_workspace_bytes(const SumProblem& shape) { return level_sums(shape.n) * sizeof(Sum); }

void reduce_divergent(const SumProblem& p, cudaStream_t stream) {
  reduce_scan_lab::validate(p, "baseline reduce_divergent", reduce_scan_lab::Output::kOneSum);
  Sum* const scratch = static_cast<Sum*>(
      reduce_scan_lab::workspace_of(p, "baseline reduce_divergent", reduce_divergent_workspace_bytes(p)));
  const Sum* in = reinterpret_cast<const Sum*>(p.in);
  std::size_t n = p.n;
  Sum* buffers[2] = {scratch, scratch + blocks_for(p.n)};
  for (int pass = 0;; ++pass) {
    const std::size_t blocks = blocks_for(n);
    Sum* const result = blocks <= 1 ? reinterpret_cast<Sum*>(p.out) : buffers[pass % 2];
    workbook::launch(reduce_divergent_kernel, dim3(static_cast<unsigned>(std::max<std::size_t>(blocks, 1))),
                     dim3(kThreads), 0, stream, in, result, n);
    if (blocks <= 1) break;
    in = result;
    n = blocks;
  }
}

void scan_naive(const SumProblem& p, cudaStream_t stream) {
  reduce_scan_lab::validate(p, "baseline scan_naive", reduce_scan_lab::Output::kPrefixSums);
  if (p.n == 0) return;
  Sum* const scratch =
      static_cast<Sum*>(reduce_scan_lab::workspace_of(p, "baseline scan_naive", scan_naive_workspace_bytes(p)));
  scan_levels(reinterpret_cast<const Sum*>(p.in), reinterpret_cast<Sum*>(p.out), p.n, scratch, stream);
}

}  // namespace reduce_scan_baseline
