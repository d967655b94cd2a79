// Lab 06_reduce_scan, reference solution, steps 06.1 to 06.6: Harris's reduction ladder, rewritten
// for today's GPUs. Part of reduce_scan.cu.
//
// Steps 06.1 to 06.4 read the block size from blockDim.x, as Harris's did (their shared arrays
// are sized for 256 threads, the size the launchers use); 06.5 makes it a compile-time constant.
// Steps 06.1 to 06.5 reduce each block's piece of the input to one partial sum, and the launcher
// runs the same kernel again on the partial sums until one is left (Harris's "recursive kernel
// invocation"): 2^28 ints take three passes (2^28 -> 2^20 -> 2^12 -> 16 -> 1 at 256 per block, or
// fewer from 06.3 on, where a block covers twice that). 06.6 needs one pass.
#pragma once

#include <cstddef>
#include <cstdint>

#include "given.cuh"
#include "reduce_scan.h"
#include "workbook/launch.cuh"

namespace reduce_scan_lab {
namespace {

using Sum = unsigned int;  // wraps modulo 2^32 by the language's rules; the bits are the int sum's

struct ReducePolicy {
  static constexpr int kThreads = 256;  // Harris's block size throughout
  static constexpr int kWarp = 32;
  static_assert(kThreads % kWarp == 0 && (kThreads & (kThreads - 1)) == 0, "the tree halves a power of two");
};

// Element i of `in`, or 0 past its end: partial blocks add nothing.
__device__ inline Sum element(const Sum* in, std::size_t i, std::size_t n) { return i < n ? in[i] : 0u; }

// 06.1 (Harris's kernel 2): interleaved addressing with a strided index, so that the threads that
// work at each level are the first ones, whole warps of them, and no warp diverges. The active
// threads now read partial[2 s t] and partial[2 s t + s]: at s = 16 a warp's 32 reads fall in 2
// banks, 16 threads to a bank.
__global__ void reduce_interleaved_kernel(const Sum* __restrict__ in, Sum* __restrict__ partials, std::size_t n) {
  constexpr int kThreads = ReducePolicy::kThreads;
  __shared__ Sum partial[kThreads];
  const unsigned t = threadIdx.x;
  partial[t] = element(in, blockIdx.x * std::size_t(blockDim.x) + t, n);
  __syncthreads();
  for (unsigned s = 1; s < blockDim.x; s *= 2) {
    const unsigned index = 2 * s * t;
    if (index < blockDim.x) partial[index] += partial[index + s];
    __syncthreads();
  }
  if (t == 0) partials[blockIdx.x] = partial[0];
}

// 06.2 (Harris's kernel 3): sequential addressing. Thread t adds partial[t + s] to partial[t], s
// halving from 128: consecutive threads read consecutive words, 32 banks, no conflict.
__global__ void reduce_sequential_kernel(const Sum* __restrict__ in, Sum* __restrict__ partials, std::size_t n) {
  constexpr int kThreads = ReducePolicy::kThreads;
  __shared__ Sum partial[kThreads];
  const unsigned t = threadIdx.x;
  partial[t] = element(in, blockIdx.x * std::size_t(blockDim.x) + t, n);
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s /= 2) {
    if (t < s) partial[t] += partial[t + s];
    __syncthreads();
  }
  if (t == 0) partials[blockIdx.x] = partial[0];
}

// 06.3 (Harris's kernel 4): first add during the load. Half the threads of 06.2 sat idle from the
// first level on; here a block covers 2 x 256 elements and each thread adds two as it loads them.
__global__ void reduce_first_add_kernel(const Sum* __restrict__ in, Sum* __restrict__ partials, std::size_t n) {
  constexpr int kThreads = ReducePolicy::kThreads;
  __shared__ Sum partial[kThreads];
  const unsigned t = threadIdx.x;
  const std::size_t i = blockIdx.x * std::size_t(2 * blockDim.x) + t;
  partial[t] = element(in, i, n) + element(in, i + blockDim.x, n);
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s /= 2) {
    if (t < s) partial[t] += partial[t + s];
    __syncthreads();
  }
  if (t == 0) partials[blockIdx.x] = partial[0];
}

// The sum of `value` over the warp, in lane 0 (and every lane: the butterfly gives all of them).
__device__ inline Sum warp_sum(Sum value) {
#pragma unroll
  for (int offset = ReducePolicy::kWarp / 2; offset > 0; offset /= 2) value += __shfl_xor_sync(0xffffffffu, value, offset);
  return value;
}

// 06.4 (Harris's kernel 5, as it must be written since Volta): the last warp. When s reaches 32,
// only one warp is left, and Harris let it go on without __syncthreads(), through a volatile
// pointer, relying on the warp's threads running in lockstep. Since Volta's independent thread
// scheduling they need not, and that code is a race. The warp's shuffles exchange registers
// instead: no shared memory, no barrier, no race.
__global__ void reduce_last_warp_kernel(const Sum* __restrict__ in, Sum* __restrict__ partials, std::size_t n) {
  constexpr int kThreads = ReducePolicy::kThreads;
  __shared__ Sum partial[kThreads];
  const unsigned t = threadIdx.x;
  const std::size_t i = blockIdx.x * std::size_t(2 * blockDim.x) + t;
  partial[t] = element(in, i, n) + element(in, i + blockDim.x, n);
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > ReducePolicy::kWarp; s /= 2) {
    if (t < s) partial[t] += partial[t + s];
    __syncthreads();
  }
  if (t < ReducePolicy::kWarp) {
    const Sum total = warp_sum(partial[t] + partial[t + ReducePolicy::kWarp]);
    if (t == 0) partials[blockIdx.x] = total;
  }
}

// 06.5 (Harris's kernel 6): complete unrolling. The block size is a template parameter, so the
// loop's bounds are constants and the compiler unrolls it, dropping the loop's own instructions;
// every `if constexpr` whose level the block does not have disappears.
template <int kThreads>
__global__ void __launch_bounds__(kThreads)
    reduce_unrolled_kernel(const Sum* __restrict__ in, Sum* __restrict__ partials, std::size_t n) {
  static_assert(kThreads >= 64 && kThreads <= 1024 && (kThreads & (kThreads - 1)) == 0, "a power of two, 64 to 1024");
  __shared__ Sum partial[kThreads];
  const unsigned t = threadIdx.x;
  const std::size_t i = blockIdx.x * std::size_t(2 * kThreads) + t;
  partial[t] = element(in, i, n) + element(in, i + kThreads, n);
  __syncthreads();
#pragma unroll
  for (int s = kThreads / 2; s > ReducePolicy::kWarp; s /= 2) {
    if (t < s) partial[t] += partial[t + s];
    __syncthreads();
  }
  if (t < ReducePolicy::kWarp) {
    const Sum total = warp_sum(partial[t] + partial[t + ReducePolicy::kWarp]);
    if (t == 0) partials[blockIdx.x] = total;
  }
}

// Runs `kernel` (one partial sum per block of `per_block` elements) pass after pass, until one sum
// is left, which the last pass writes to `out`. `scratch`: room for the first pass's partial sums
// and the second's (reduce_passes_floats()); passes alternate between its two halves.
template <typename Kernel>
void reduce_in_passes(Kernel kernel, int per_block, const Sum* in, std::size_t n, Sum* out, Sum* scratch,
                      cudaStream_t stream) {
  constexpr int kThreads = ReducePolicy::kThreads;
  Sum* buffers[2] = {scratch, scratch + workbook::ceil_div(n, std::size_t(per_block))};
  int pass = 0;
  for (;; ++pass) {
    const std::size_t blocks = workbook::ceil_div(n, std::size_t(per_block));
    // The last pass has one block and writes the sum; n = 0 takes one block too, which writes the
    // sum of nothing: 0.
    Sum* const result = blocks <= 1 ? out : buffers[pass % 2];
    workbook::launch(kernel, dim3(static_cast<unsigned>(blocks == 0 ? 1 : blocks)), dim3(kThreads), 0, stream, in, result, n);
    if (blocks <= 1) return;
    in = result;
    n = blocks;
  }
}

// The scratch reduce_in_passes() needs, in Sums: the first pass's partials and the second's.
std::size_t reduce_passes_sums(std::size_t n, int per_block) {
  const std::size_t first = workbook::ceil_div(n, std::size_t(per_block));
  return first + workbook::ceil_div(first, std::size_t(per_block));
}

// ---------------------------------------------------------------------------------------------
// 06.6: many elements per thread, one pass. Harris's kernel 7 lets each thread add up many
// elements before the tree (Brent's theorem: O(n / log n) threads, each doing O(log n) sequential
// work, is work-efficient), with a grid sized to the GPU rather than to n. Today the rest follows
// from Little's law, as in lab 02: a reduction is a read at memory speed, so each thread keeps
// several 16-byte loads in flight (int4, four at a time), and the blocks stay resident and walk the
// array in strides of the whole grid. Each block's partial sum is then added to the result with
// one atomicAdd (exact: integer addition in any order is the same), after the launcher has zeroed
// the result: one kernel launch for the whole sum.
// Measured on the H100 (experiments/variants.cu): 256, 512 and 1024 threads with 2 or 4 int4 in
// flight all read at 99.4% to 101.5% of CUB's speed at 2^28 ints; 1024 x 4 led.
struct ManyPolicy {
  static constexpr int kThreads = 1024;
  static constexpr int kVectorsInFlight = 4;  // int4 loads per thread per trip: 64 bytes
};

template <typename P>
__global__ void __launch_bounds__(P::kThreads)
    reduce_many_kernel(const Sum* __restrict__ in, Sum* __restrict__ out, std::size_t n) {
  __shared__ Sum warp_totals[P::kThreads / ReducePolicy::kWarp];
  const std::size_t thread = blockIdx.x * std::size_t(P::kThreads) + threadIdx.x;
  const std::size_t threads = std::size_t(gridDim.x) * P::kThreads;
  // The elements before the first 16-byte boundary, and after the last whole int4, one by one.
  const std::size_t misaligned = (16 - reinterpret_cast<std::uintptr_t>(in) % 16) % 16 / sizeof(Sum);
  const std::size_t head = misaligned < n ? misaligned : n;
  const std::size_t vectors = (n - head) / 4;
  const std::size_t tail = head + 4 * vectors;
  Sum sum = 0;
  if (thread < head) sum += in[thread];
  if (tail + thread < n) sum += in[tail + thread];
  const uint4* const body = reinterpret_cast<const uint4*>(in + head);
  std::size_t v = thread;
  // Whole trips of kVectorsInFlight loads, all issued before the first is added.
  for (; v + (P::kVectorsInFlight - 1) * threads < vectors; v += P::kVectorsInFlight * threads) {
    uint4 loaded[P::kVectorsInFlight];
#pragma unroll
    for (int l = 0; l < P::kVectorsInFlight; ++l) loaded[l] = body[v + l * threads];
#pragma unroll
    for (int l = 0; l < P::kVectorsInFlight; ++l) sum += loaded[l].x + loaded[l].y + loaded[l].z + loaded[l].w;
  }
  for (; v < vectors; v += threads) {
    const uint4 x = body[v];
    sum += x.x + x.y + x.z + x.w;
  }
  // The block's sum: each warp's by shuffles, then the warp totals by the first warp.
  sum = warp_sum(sum);
  const unsigned lane = threadIdx.x % ReducePolicy::kWarp, warp = threadIdx.x / ReducePolicy::kWarp;
  if (lane == 0) warp_totals[warp] = sum;
  __syncthreads();
  if (warp == 0) {
    sum = lane < P::kThreads / ReducePolicy::kWarp ? warp_totals[lane] : 0u;
    sum = warp_sum(sum);
    if (lane == 0) atomicAdd(out, sum);
  }
}

}  // namespace
}  // namespace reduce_scan_lab
