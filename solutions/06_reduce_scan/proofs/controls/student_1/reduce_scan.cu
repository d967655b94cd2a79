// Lab 06_reduce_scan: Harris's reduction ladder and the scan, to CUB speed. This is the file you edit.
//
// A sum of n ints reads 4n bytes and does n - 1 additions: at memory speed the additions are free,
// so a reduction is a read, and each step removes one reason it is not yet one. An exclusive scan
// reads 4n bytes and writes 4n; its steps take it from three passes over memory to one.
// labs/06_reduce_scan/README.md explains each step and the bar it must clear.
//   TODO(06.1)  interleaved addressing with a strided index: no divergent warps
//   TODO(06.2)  sequential addressing: no bank conflicts
//   TODO(06.3)  the first addition during the load
//   TODO(06.4)  the last warp by __shfl_down_sync / __shfl_xor_sync
//   TODO(06.5)  complete unrolling: the block size a template parameter
//   TODO(06.6)  many elements per thread, wide loads, a grid sized to the GPU, one launch
//   TODO(06.7)  Blelloch's up-sweep and down-sweep in shared memory, without bank conflicts; block
//               totals scanned, offsets added
//   TODO(06.8)  Hillis-Steele within each warp by shuffles, in registers
//   TODO(06.9)  register blocking: many elements per thread, moved by warp transposes, reduce-then-scan
//   TODO(06.10) a single pass with decoupled look-back
// Sums wrap modulo 2^32: add as unsigned int. No CUB, no Thrust (the grader checks).
// Grade it with `./workbook grade 06_reduce_scan`.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>

#include "given.cuh"  // given: validate(), workspace_of()
#include "reduce_scan.h"
#include "workbook/launch.cuh"

namespace reduce_scan_lab {

namespace {

// TODO(06.1): a kernel in which each block of 256 threads sums 256 elements in shared memory and
// writes its partial sum; at level s (1, 2, 4, ...) thread t adds partial[2 s t + s] to
// partial[2 s t] when 2 s t < blockDim.x. The launcher runs it again on the partial sums until one
// is left, and the last pass writes it to out. The partial sums live in the workspace: write
// reduce_workspace_bytes() below first.
// TODO(06.2) to TODO(06.5): the handout describes each change to 06.1's kernel.
// TODO(06.6): the handout describes the one-pass kernel.
// TODO(06.7) to TODO(06.10): the handout describes the scans, and the workspace each needs.

using Sum = unsigned int;  // sums wrap modulo 2^32, as C++ defines for unsigned
constexpr int kThreads = 256;
constexpr unsigned kFullMask = 0xffffffffu;
constexpr int kWarps = kThreads / 32;

template <typename T>
T ceil_div(T a, T b) {
  return (a + b - 1) / b;
}

// ---------------------------------------------------------------------------------------------
// The reductions, 06.1 to 06.5: one partial sum per block, the kernel run again on the partial
// sums until one is left.

// 06.1: interleaved addressing with a strided index: the first threads of the block do the work.
__global__ void reduce_interleaved_kernel(const Sum* in, Sum* partials, std::size_t n) {
  __shared__ Sum partial[kThreads];
  const unsigned t = threadIdx.x;
  const std::size_t i = blockIdx.x * std::size_t(kThreads) + t;
  partial[t] = i < n ? in[i] : 0u;
  __syncthreads();
  for (unsigned s = 1; s < blockDim.x; s *= 2) {
    const unsigned index = 2 * s * t;
    if (index < blockDim.x) partial[index] += partial[index + s];
    __syncthreads();
  }
  if (t == 0) partials[blockIdx.x] = partial[0];
}

// 06.2: sequential addressing: consecutive threads add consecutive words, no bank conflicts.
__global__ void reduce_sequential_kernel(const Sum* in, Sum* partials, std::size_t n) {
  __shared__ Sum partial[kThreads];
  const unsigned t = threadIdx.x;
  const std::size_t i = blockIdx.x * std::size_t(kThreads) + t;
  partial[t] = i < n ? in[i] : 0u;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (t < s) partial[t] += partial[t + s];
    __syncthreads();
  }
  if (t == 0) partials[blockIdx.x] = partial[0];
}

// 06.3: each block covers 2 x 256 elements, each thread adds two as it loads them.
__global__ void reduce_first_add_kernel(const Sum* in, Sum* partials, std::size_t n) {
  __shared__ Sum partial[kThreads];
  const unsigned t = threadIdx.x;
  const std::size_t i = blockIdx.x * std::size_t(2 * kThreads) + t;
  partial[t] = (i < n ? in[i] : 0u) + (i + kThreads < n ? in[i + kThreads] : 0u);
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (t < s) partial[t] += partial[t + s];
    __syncthreads();
  }
  if (t == 0) partials[blockIdx.x] = partial[0];
}

// The last 32 partial sums, held one per lane, added by five shuffles: lane 0 ends with the sum.
__device__ __forceinline__ Sum warp_sum(Sum v) {
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_down_sync(kFullMask, v, offset);
  return v;
}

// 06.4: 06.3 with the last warp by shuffles instead of barriers.
__global__ void reduce_last_warp_kernel(const Sum* in, Sum* partials, std::size_t n) {
  __shared__ Sum partial[kThreads];
  const unsigned t = threadIdx.x;
  const std::size_t i = blockIdx.x * std::size_t(2 * kThreads) + t;
  partial[t] = (i < n ? in[i] : 0u) + (i + kThreads < n ? in[i + kThreads] : 0u);
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 32; s >>= 1) {
    if (t < s) partial[t] += partial[t + s];
    __syncthreads();
  }
  if (t < 32) {
    const Sum v = warp_sum(partial[t] + partial[t + 32]);
    if (t == 0) partials[blockIdx.x] = v;
  }
}

// 06.5: 06.4 with the block size a template parameter: every level's bound is a constant, the loop
// is unrolled and the levels a block of this size does not have are compiled away.
template <unsigned kBlock>
__global__ void __launch_bounds__(kBlock) reduce_unrolled_kernel(const Sum* in, Sum* partials, std::size_t n) {
  static_assert(kBlock >= 64 && kBlock <= 1024 && (kBlock & (kBlock - 1)) == 0, "a power of two, 64 to 1024");
  __shared__ Sum partial[kBlock];
  const unsigned t = threadIdx.x;
  const std::size_t i = blockIdx.x * std::size_t(2 * kBlock) + t;
  partial[t] = (i < n ? in[i] : 0u) + (i + kBlock < n ? in[i + kBlock] : 0u);
  __syncthreads();
  if constexpr (kBlock >= 1024) {
    if (t < 512) partial[t] += partial[t + 512];
    __syncthreads();
  }
  if constexpr (kBlock >= 512) {
    if (t < 256) partial[t] += partial[t + 256];
    __syncthreads();
  }
  if constexpr (kBlock >= 256) {
    if (t < 128) partial[t] += partial[t + 128];
    __syncthreads();
  }
  if constexpr (kBlock >= 128) {
    if (t < 64) partial[t] += partial[t + 64];
    __syncthreads();
  }
  if (t < 32) {
    const Sum v = warp_sum(partial[t] + partial[t + 32]);
    if (t == 0) partials[blockIdx.x] = v;
  }
}

using ReduceKernel = void (*)(const Sum*, Sum*, std::size_t);

// Partial sums of the first pass: the most blocks any of 06.1 to 06.5 launches (256 elements each).
std::size_t first_partials(std::size_t n) { return ceil_div(n, std::size_t(kThreads)); }

// Runs `kernel` (elements_per_block each) on the input, then on its partial sums, until one block
// is left, which writes the sum to out. Two buffers in the workspace, used in turn.
void reduce_in_passes(const SumProblem& p, const char* step, ReduceKernel kernel, std::size_t elements_per_block,
                      cudaStream_t stream);

// ---------------------------------------------------------------------------------------------
// 06.6: many elements per thread, 16-byte loads, a grid sized to what the GPU holds, one launch.
constexpr int kLoadsInFlight = 4;  // int4 per thread per round: 64 bytes in flight

__global__ void __launch_bounds__(kThreads) reduce_one_pass_kernel(const Sum* __restrict__ in, std::size_t n,
                                                                    std::size_t head, Sum* __restrict__ out) {
  // head: the ints before the first 16-byte boundary; then whole uint4; then the tail.
  const std::size_t thread = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  const uint4* body = reinterpret_cast<const uint4*>(in + head);
  const std::size_t vectors = (n - head) / 4;
  const std::size_t tail_start = head + vectors * 4;
  Sum acc = 0;
  if (thread < head) acc += in[thread];
  if (thread < n - tail_start) acc += in[tail_start + thread];
  std::size_t i = thread;
  for (; i + (kLoadsInFlight - 1) * stride < vectors; i += kLoadsInFlight * stride) {
    uint4 v[kLoadsInFlight];
#pragma unroll
    for (int k = 0; k < kLoadsInFlight; ++k) v[k] = body[i + k * stride];
#pragma unroll
    for (int k = 0; k < kLoadsInFlight; ++k) acc += (v[k].x + v[k].y) + (v[k].z + v[k].w);
  }
  for (; i < vectors; i += stride) {
    const uint4 v = body[i];
    acc += (v.x + v.y) + (v.z + v.w);
  }
  // The block's sum: each warp by shuffles, then the warps' sums by the first warp.
  __shared__ Sum warp_sums[kWarps];
  const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  acc = warp_sum(acc);
  if (lane == 0) warp_sums[warp] = acc;
  __syncthreads();
  if (warp == 0) {
    Sum v = lane < kWarps ? warp_sums[lane] : 0u;
    v = warp_sum(v);
    if (lane == 0) atomicAdd(out, v);
  }
}

// ---------------------------------------------------------------------------------------------
// The scans' shared parts.

// Inclusive scan across a warp, Hillis and Steele: at step o each lane adds the value o lanes back.
__device__ __forceinline__ Sum warp_inclusive_scan(Sum x, unsigned lane) {
#pragma unroll
  for (unsigned o = 1; o < 32; o *= 2) {
    const Sum y = __shfl_up_sync(kFullMask, x, o);
    if (lane >= o) x += y;
  }
  return x;
}

// Adds each block's offset (the scanned block totals) to its kPerBlock outputs.
template <int kPerBlock>
__global__ void add_offsets_kernel(Sum* out, std::size_t n, const Sum* offsets) {
  const Sum offset = offsets[blockIdx.x];
  const std::size_t base = blockIdx.x * std::size_t(kPerBlock);
#pragma unroll
  for (int k = 0; k < kPerBlock; k += kThreads) {
    const std::size_t i = base + k + threadIdx.x;
    if (i < n) out[i] += offset;
  }
}

using ScanKernel = void (*)(const Sum*, Sum*, std::size_t, Sum*);

// Block totals of every level of a recursive scan, kPerBlock elements per block.
std::size_t level_sums(std::size_t n, std::size_t per_block) {
  std::size_t sums = 0;
  for (std::size_t blocks = ceil_div(n, per_block); blocks > 1; blocks = ceil_div(blocks, per_block)) sums += blocks;
  return sums;
}

// Scan each block (writing its total), scan the totals the same way, add each block's offset.
// in may equal out (the totals are scanned in place): each block reads its elements before it writes.
template <int kPerBlock>
void scan_levels(ScanKernel kernel, const Sum* in, Sum* out, std::size_t n, Sum* scratch, cudaStream_t stream) {
  const std::size_t blocks = ceil_div(n, std::size_t(kPerBlock));
  Sum* const totals = blocks > 1 ? scratch : nullptr;
  workbook::launch(kernel, dim3(static_cast<unsigned>(blocks)), dim3(kThreads), 0, stream, in, out, n, totals);
  if (blocks == 1) return;
  scan_levels<kPerBlock>(kernel, totals, totals, blocks, scratch + blocks, stream);
  workbook::launch(add_offsets_kernel<kPerBlock>, dim3(static_cast<unsigned>(blocks)), dim3(kThreads), 0, stream, out,
                   n, static_cast<const Sum*>(totals));
}

// ---------------------------------------------------------------------------------------------
// 06.7: Blelloch's work-efficient scan of 2 x 256 elements per block, in shared memory, one padding
// word every 32 against the bank conflicts of the tree's power-of-two strides.
constexpr int kBlellochElements = 2 * kThreads;
__device__ __forceinline__ int padded(int index) { return index + (index >> 5); }

__global__ void scan_blelloch_kernel(const Sum* in, Sum* out, std::size_t n, Sum* block_totals) {
  __shared__ Sum tree[kBlellochElements + kBlellochElements / 32];
  const int t = threadIdx.x;
  const std::size_t base = blockIdx.x * std::size_t(kBlellochElements);
  const int a = t, b = t + kThreads;
  tree[padded(a)] = base + a < n ? in[base + a] : 0u;
  tree[padded(b)] = base + b < n ? in[base + b] : 0u;
  // Up-sweep: a tree of partial sums, the root at the last element.
  int offset = 1;
  for (int d = kBlellochElements / 2; d > 0; d >>= 1) {
    __syncthreads();
    if (t < d) {
      const int left = offset * (2 * t + 1) - 1, right = offset * (2 * t + 2) - 1;
      tree[padded(right)] += tree[padded(left)];
    }
    offset *= 2;
  }
  // The root is the block's total; clear it.
  if (t == 0) {
    const int root = padded(kBlellochElements - 1);
    if (block_totals != nullptr) block_totals[blockIdx.x] = tree[root];
    tree[root] = 0;
  }
  // Down-sweep: each node hands its value to its left child, and the sum to its right.
  for (int d = 1; d < kBlellochElements; d *= 2) {
    offset >>= 1;
    __syncthreads();
    if (t < d) {
      const int left = padded(offset * (2 * t + 1) - 1), right = padded(offset * (2 * t + 2) - 1);
      const Sum from_left = tree[left];
      tree[left] = tree[right];
      tree[right] += from_left;
    }
  }
  __syncthreads();
  if (base + a < n) out[base + a] = tree[padded(a)];
  if (base + b < n) out[base + b] = tree[padded(b)];
}

// ---------------------------------------------------------------------------------------------
// 06.8: Hillis-Steele within each warp by shuffles; 256 threads, 256 elements, 8 warps; two barriers.
__global__ void scan_hillis_steele_kernel(const Sum* in, Sum* out, std::size_t n, Sum* block_totals) {
  __shared__ Sum warp_totals[kWarps];
  const unsigned t = threadIdx.x, lane = t % 32, warp = t / 32;
  const std::size_t i = blockIdx.x * std::size_t(kThreads) + t;
  const Sum own = i < n ? in[i] : 0u;
  const Sum inclusive = warp_inclusive_scan(own, lane);
  if (lane == 31) warp_totals[warp] = inclusive;
  __syncthreads();
  if (warp == 0) {  // the warps' totals, scanned by the first warp
    const Sum total = lane < kWarps ? warp_totals[lane] : 0u;
    const Sum scanned = warp_inclusive_scan(total, lane);
    if (lane < kWarps) warp_totals[lane] = scanned;  // inclusive
  }
  __syncthreads();
  const Sum block_inclusive = inclusive + (warp > 0 ? warp_totals[warp - 1] : 0u);
  if (i < n) out[i] = block_inclusive - own;
  if (block_totals != nullptr && t == kThreads - 1) block_totals[blockIdx.x] = block_inclusive;
}

// ---------------------------------------------------------------------------------------------
// 06.9 and 06.10: tiles of 256 threads x 16 consecutive elements in registers. Each warp moves its
// 32 x 16 elements through shared memory: whole rows of global memory (lane l takes int4 number
// 32q + l, or int number 32q + l where a pointer is not 16-byte aligned), then each thread its 16
// consecutive ones, one padding word every 32 against bank conflicts.
constexpr int kItems = 16;
constexpr int kWarpElements = 32 * kItems;              // 512
constexpr int kTileElements = kThreads * kItems;        // 4096
constexpr int kWarpBuffer = kWarpElements + kWarpElements / 32;  // 528 words

// Where a warp's 512 elements are all in the array and the pointer is 16-byte aligned, int4 rows;
// otherwise (the last, partial warp of the array, or a misaligned pointer) ints, guarded.
template <bool kVector>
__device__ __forceinline__ void load_items(const Sum* __restrict__ in, std::size_t n, std::size_t warp_base,
                                           Sum* buffer, unsigned lane, Sum (&items)[kItems]) {
  if (kVector && warp_base + kWarpElements <= n) {  // in + warp_base is 16-byte aligned
    uint4 v[kItems / 4];
#pragma unroll
    for (int q = 0; q < kItems / 4; ++q) v[q] = *reinterpret_cast<const uint4*>(in + warp_base + 4 * (32 * q + lane));
#pragma unroll
    for (int q = 0; q < kItems / 4; ++q) {
      const int w = 4 * (32 * q + static_cast<int>(lane));
      buffer[padded(w)] = v[q].x;
      buffer[padded(w + 1)] = v[q].y;
      buffer[padded(w + 2)] = v[q].z;
      buffer[padded(w + 3)] = v[q].w;
    }
  } else {
    Sum v[kItems];
#pragma unroll
    for (int q = 0; q < kItems; ++q) {
      const std::size_t e = warp_base + 32 * q + lane;
      v[q] = e < n ? in[e] : 0u;
    }
#pragma unroll
    for (int q = 0; q < kItems; ++q) buffer[padded(32 * q + static_cast<int>(lane))] = v[q];
  }
  __syncwarp();
#pragma unroll
  for (int m = 0; m < kItems; ++m) items[m] = buffer[padded(kItems * static_cast<int>(lane) + m)];
  __syncwarp();  // every lane has its items before the buffer is written again
}

template <bool kVector>
__device__ __forceinline__ void store_items(Sum* __restrict__ out, std::size_t n, std::size_t warp_base, Sum* buffer,
                                            unsigned lane, const Sum (&items)[kItems]) {
#pragma unroll
  for (int m = 0; m < kItems; ++m) buffer[padded(kItems * static_cast<int>(lane) + m)] = items[m];
  __syncwarp();
  if (kVector && warp_base + kWarpElements <= n) {  // out + warp_base is 16-byte aligned
#pragma unroll
    for (int q = 0; q < kItems / 4; ++q) {
      const int w = 4 * (32 * q + static_cast<int>(lane));
      uint4 v;
      v.x = buffer[padded(w)];
      v.y = buffer[padded(w + 1)];
      v.z = buffer[padded(w + 2)];
      v.w = buffer[padded(w + 3)];
      __stwb(reinterpret_cast<uint4*>(out + warp_base + w), v);  // one 16-byte store (a plain one was split)
    }
  } else {
#pragma unroll
    for (int q = 0; q < kItems; ++q) {
      const std::size_t e = warp_base + 32 * q + lane;
      if (e < n) out[e] = buffer[padded(32 * q + static_cast<int>(lane))];
    }
  }
}

// 06.9, pass 1: each tile's total (a plain reduction: no transpose needed).
template <bool kVector>
__global__ void __launch_bounds__(kThreads) tile_totals_kernel(const Sum* __restrict__ in, std::size_t n,
                                                                Sum* __restrict__ totals) {
  const std::size_t base = blockIdx.x * std::size_t(kTileElements);
  Sum acc = 0;
  if (kVector && base + kTileElements <= n) {  // a whole tile, 16-byte aligned: int4
    uint4 v[kItems / 4];
#pragma unroll
    for (int q = 0; q < kItems / 4; ++q) v[q] = *reinterpret_cast<const uint4*>(in + base + 4 * (threadIdx.x + kThreads * q));
#pragma unroll
    for (int q = 0; q < kItems / 4; ++q) acc += (v[q].x + v[q].y) + (v[q].z + v[q].w);
  } else {
#pragma unroll
    for (int q = 0; q < kItems; ++q) {
      const std::size_t e = base + threadIdx.x + kThreads * q;
      acc += e < n ? in[e] : 0u;
    }
  }
  __shared__ Sum warp_sums[kWarps];
  const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  acc = warp_sum(acc);
  if (lane == 0) warp_sums[warp] = acc;
  __syncthreads();
  if (warp == 0) {
    Sum v = lane < kWarps ? warp_sums[lane] : 0u;
    v = warp_sum(v);
    if (lane == 0) totals[blockIdx.x] = v;
  }
}

// 06.9, pass 3: each tile scanned from its offset (the tile totals, scanned).
template <bool kVectorIn, bool kVectorOut>
__global__ void __launch_bounds__(kThreads) scan_tiles_kernel(const Sum* __restrict__ in, Sum* __restrict__ out,
                                                               std::size_t n, const Sum* __restrict__ tile_offsets) {
  __shared__ Sum buffers[kWarps][kWarpBuffer];
  __shared__ Sum warp_offsets[kWarps];
  const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const std::size_t warp_base = blockIdx.x * std::size_t(kTileElements) + warp * std::size_t(kWarpElements);
  Sum items[kItems];
  load_items<kVectorIn>(in, n, warp_base, buffers[warp], lane, items);
  Sum own = 0;
#pragma unroll
  for (int m = 0; m < kItems; ++m) own += items[m];
  // The block scans one value per thread: each warp, then the warps' totals.
  const Sum inclusive = warp_inclusive_scan(own, lane);
  if (lane == 31) warp_offsets[warp] = inclusive;
  __syncthreads();
  if (warp == 0) {
    const Sum total = lane < kWarps ? warp_offsets[lane] : 0u;
    const Sum scanned = warp_inclusive_scan(total, lane);
    if (lane < kWarps) warp_offsets[lane] = scanned - total;  // exclusive
  }
  __syncthreads();
  Sum running = tile_offsets[blockIdx.x] + warp_offsets[warp] + (inclusive - own);
#pragma unroll
  for (int m = 0; m < kItems; ++m) {
    const Sum value = items[m];
    items[m] = running;
    running += value;
  }
  store_items<kVectorOut>(out, n, warp_base, buffers[warp], lane, items);
}

// ---------------------------------------------------------------------------------------------
// 06.10: one pass, decoupled look-back. Each tile state is one 64-bit word: the flag in the high 32
// bits (0: nothing yet, 1: the tile's own total, 2: its inclusive prefix), the sum in the low 32.
constexpr unsigned long long kFlagAggregate = 1, kFlagInclusive = 2;
__device__ __forceinline__ unsigned long long tile_state(unsigned long long flag, Sum value) { return (flag << 32) | value; }

// The tiles are numbered in the order blocks start (an atomic counter); the kernel never reads
// blockIdx, so that it is right whatever order the GPU starts blocks in.
template <bool kVectorIn, bool kVectorOut>
__global__ void __launch_bounds__(kThreads) scan_look_back_kernel(const Sum* __restrict__ in, Sum* __restrict__ out,
                                                                   std::size_t n, unsigned long long* states,
                                                                   unsigned* tile_counter) {
  __shared__ Sum buffers[kWarps][kWarpBuffer];
  __shared__ Sum warp_offsets[kWarps];
  __shared__ unsigned shared_tile;
  __shared__ Sum shared_prefix;
  if (threadIdx.x == 0) shared_tile = atomicAdd(tile_counter, 1u);
  __syncthreads();
  const unsigned tile = shared_tile;
  const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const std::size_t warp_base = tile * std::size_t(kTileElements) + warp * std::size_t(kWarpElements);
  Sum items[kItems];
  load_items<kVectorIn>(in, n, warp_base, buffers[warp], lane, items);
  Sum own = 0;
#pragma unroll
  for (int m = 0; m < kItems; ++m) own += items[m];
  const Sum inclusive = warp_inclusive_scan(own, lane);
  if (lane == 31) warp_offsets[warp] = inclusive;
  __syncthreads();
  if (warp == 0) {
    const Sum total = lane < kWarps ? warp_offsets[lane] : 0u;
    const Sum scanned = warp_inclusive_scan(total, lane);
    if (lane < kWarps) warp_offsets[lane] = scanned - total;  // exclusive
    const Sum aggregate = __shfl_sync(kFullMask, scanned, kWarps - 1);
    Sum exclusive = 0;
    if (tile == 0) {
      if (lane == 0) atomicExch(&states[0], tile_state(kFlagInclusive, aggregate));
    } else {
      // Publish the tile's own total at once, then look back, 32 predecessors at a time (lane l
      // reads tile - 1 - l), until one has published its inclusive prefix.
      if (lane == 0) atomicExch(&states[tile], tile_state(kFlagAggregate, aggregate));
      long long nearest = static_cast<long long>(tile) - 1;
      while (true) {
        const long long j = nearest - lane;
        unsigned flag;
        Sum value;
        do {
          if (j >= 0) {
            const unsigned long long state = *reinterpret_cast<const volatile unsigned long long*>(&states[j]);
            flag = static_cast<unsigned>(state >> 32);
            value = static_cast<Sum>(state);
          } else {  // before tile 0: an inclusive prefix of 0 (never reached: tile 0 publishes one)
            flag = kFlagInclusive;
            value = 0;
          }
        } while (__any_sync(kFullMask, flag == 0));
        const unsigned inclusive_lanes = __ballot_sync(kFullMask, flag == kFlagInclusive);
        if (inclusive_lanes != 0) {  // add up to and including the nearest inclusive prefix
          const unsigned stop = __ffs(inclusive_lanes) - 1;
          exclusive += __reduce_add_sync(kFullMask, lane <= stop ? value : 0u);
          break;
        }
        exclusive += __reduce_add_sync(kFullMask, value);
        nearest -= 32;
      }
      if (lane == 0) atomicExch(&states[tile], tile_state(kFlagInclusive, exclusive + aggregate));
    }
    if (lane == 0) shared_prefix = exclusive;
  }
  __syncthreads();
  Sum running = shared_prefix + warp_offsets[warp] + (inclusive - own);
#pragma unroll
  for (int m = 0; m < kItems; ++m) {
    const Sum value = items[m];
    items[m] = running;
    running += value;
  }
  store_items<kVectorOut>(out, n, warp_base, buffers[warp], lane, items);
}

// 06.10's workspace: one state per tile, then the tile counter.
std::size_t look_back_state_bytes(std::size_t n) {
  return ceil_div(n, std::size_t(kTileElements)) * sizeof(unsigned long long) + 16;
}

bool aligned16(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; }

template <typename Kernel>
int resident_blocks_per_sm(Kernel kernel, int threads) {
  int blocks = 0;
  CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, threads, 0));
  return std::max(blocks, 1);
}

void reduce_in_passes(const SumProblem& p, const char* step, ReduceKernel kernel, std::size_t elements_per_block,
                      cudaStream_t stream) {
  Sum* const scratch = static_cast<Sum*>(workspace_of(p, step, reduce_workspace_bytes(p)));
  const Sum* in = reinterpret_cast<const Sum*>(p.in);
  std::size_t n = p.n;
  Sum* const buffers[2] = {scratch, scratch == nullptr ? nullptr : scratch + first_partials(p.n)};
  for (int pass = 0;; ++pass) {
    const std::size_t blocks = ceil_div(n, elements_per_block);
    Sum* const result = blocks <= 1 ? reinterpret_cast<Sum*>(p.out) : buffers[pass % 2];
    workbook::launch(kernel, dim3(static_cast<unsigned>(std::max<std::size_t>(blocks, 1))), dim3(kThreads), 0, stream,
                     in, result, n);
    if (blocks <= 1) break;
    in = result;
    n = blocks;
  }
}

}  // namespace

// Each launcher: validate, then launch with workbook::launch(kernel, grid, block, 0, stream, args...).

void reduce_interleaved(const SumProblem& problem, cudaStream_t stream) {
  validate(problem, "reduce_interleaved", Output::kOneSum);
  reduce_in_passes(problem, "reduce_interleaved", reduce_interleaved_kernel, kThreads, stream);
}

void reduce_sequential(const SumProblem& problem, cudaStream_t stream) {
  validate(problem, "reduce_sequential", Output::kOneSum);
  reduce_in_passes(problem, "reduce_sequential", reduce_sequential_kernel, kThreads, stream);
}

void reduce_first_add_during_load(const SumProblem& problem, cudaStream_t stream) {
  validate(problem, "reduce_first_add_during_load", Output::kOneSum);
  reduce_in_passes(problem, "reduce_first_add_during_load", reduce_first_add_kernel, 2 * kThreads, stream);
}

void reduce_last_warp_shuffled(const SumProblem& problem, cudaStream_t stream) {
  validate(problem, "reduce_last_warp_shuffled", Output::kOneSum);
  reduce_in_passes(problem, "reduce_last_warp_shuffled", reduce_last_warp_kernel, 2 * kThreads, stream);
}

void reduce_unrolled(const SumProblem& problem, cudaStream_t stream) {
  validate(problem, "reduce_unrolled", Output::kOneSum);
  reduce_in_passes(problem, "reduce_unrolled", reduce_unrolled_kernel<kThreads>, 2 * kThreads, stream);
}

void reduce_at_cub_speed(const SumProblem& problem, cudaStream_t stream) {
  validate(problem, "reduce_at_cub_speed", Output::kOneSum);
  // The result is added to by every block: clear it first, on the stream (it holds garbage).
  CUDA_CHECK(cudaMemsetAsync(problem.out, 0, sizeof(std::int32_t), stream));
  if (problem.n == 0) return;
  // As many blocks as the GPU holds at once, asked once.
  static const unsigned resident_blocks = [] {
    int device = 0, sms = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    return static_cast<unsigned>(sms * resident_blocks_per_sm(reduce_one_pass_kernel, kThreads));
  }();
  const Sum* in = reinterpret_cast<const Sum*>(problem.in);
  const std::size_t misalignment = reinterpret_cast<std::uintptr_t>(in) % 16 / sizeof(Sum);
  const std::size_t head = std::min<std::size_t>(misalignment == 0 ? 0 : 4 - misalignment, problem.n);
  // No more blocks than have a round of loads to do (at least one).
  const std::size_t per_block = std::size_t(kThreads) * 4 * kLoadsInFlight;
  const auto blocks = static_cast<unsigned>(
      std::max<std::size_t>(1, std::min<std::size_t>(resident_blocks, ceil_div(problem.n, per_block))));
  workbook::launch(reduce_one_pass_kernel, dim3(blocks), dim3(kThreads), 0, stream, in, problem.n, head,
                   reinterpret_cast<Sum*>(problem.out));
}

void scan_blelloch(const SumProblem& problem, cudaStream_t stream) {
  validate(problem, "scan_blelloch", Output::kPrefixSums);
  if (problem.n == 0) return;
  Sum* const scratch = static_cast<Sum*>(workspace_of(problem, "scan_blelloch", scan_workspace_bytes(problem)));
  scan_levels<kBlellochElements>(scan_blelloch_kernel, reinterpret_cast<const Sum*>(problem.in),
                                 reinterpret_cast<Sum*>(problem.out), problem.n, scratch, stream);
}

void scan_hillis_steele(const SumProblem& problem, cudaStream_t stream) {
  validate(problem, "scan_hillis_steele", Output::kPrefixSums);
  if (problem.n == 0) return;
  Sum* const scratch = static_cast<Sum*>(workspace_of(problem, "scan_hillis_steele", scan_workspace_bytes(problem)));
  scan_levels<kThreads>(scan_hillis_steele_kernel, reinterpret_cast<const Sum*>(problem.in),
                        reinterpret_cast<Sum*>(problem.out), problem.n, scratch, stream);
}

void scan_register_blocked(const SumProblem& problem, cudaStream_t stream) {
  validate(problem, "scan_register_blocked", Output::kPrefixSums);
  if (problem.n == 0) return;
  Sum* const scratch = static_cast<Sum*>(workspace_of(problem, "scan_register_blocked", scan_workspace_bytes(problem)));
  const Sum* in = reinterpret_cast<const Sum*>(problem.in);
  Sum* out = reinterpret_cast<Sum*>(problem.out);
  const std::size_t n = problem.n;
  const std::size_t tiles = ceil_div(n, std::size_t(kTileElements));
  Sum* const totals = scratch;
  const dim3 grid(static_cast<unsigned>(tiles));
  // Reduce: each tile's total. Scan: the totals, in place (06.8's kernel). Scan: each tile from its offset.
  if (aligned16(in)) workbook::launch(tile_totals_kernel<true>, grid, dim3(kThreads), 0, stream, in, n, totals);
  else workbook::launch(tile_totals_kernel<false>, grid, dim3(kThreads), 0, stream, in, n, totals);
  scan_levels<kThreads>(scan_hillis_steele_kernel, static_cast<const Sum*>(totals), totals, tiles, scratch + tiles, stream);
  const Sum* offsets = totals;
  if (aligned16(in) && aligned16(out))
    workbook::launch(scan_tiles_kernel<true, true>, grid, dim3(kThreads), 0, stream, in, out, n, offsets);
  else if (aligned16(in))
    workbook::launch(scan_tiles_kernel<true, false>, grid, dim3(kThreads), 0, stream, in, out, n, offsets);
  else if (aligned16(out))
    workbook::launch(scan_tiles_kernel<false, true>, grid, dim3(kThreads), 0, stream, in, out, n, offsets);
  else
    workbook::launch(scan_tiles_kernel<false, false>, grid, dim3(kThreads), 0, stream, in, out, n, offsets);
}

void scan_decoupled_look_back(const SumProblem& problem, cudaStream_t stream) {
  validate(problem, "scan_decoupled_look_back", Output::kPrefixSums);
  if (problem.n == 0) return;
  void* const workspace = workspace_of(problem, "scan_decoupled_look_back", scan_workspace_bytes(problem));
  const Sum* in = reinterpret_cast<const Sum*>(problem.in);
  Sum* out = reinterpret_cast<Sum*>(problem.out);
  const std::size_t n = problem.n;
  const std::size_t tiles = ceil_div(n, std::size_t(kTileElements));
  auto* const states = static_cast<unsigned long long*>(workspace);
  auto* const counter = reinterpret_cast<unsigned*>(states + tiles);
  // The tile states and the counter start cleared on every call: the workspace holds garbage.
  CUDA_CHECK(cudaMemsetAsync(workspace, 0, look_back_state_bytes(n), stream));
  const dim3 grid(static_cast<unsigned>(tiles));
  if (aligned16(in) && aligned16(out))
    workbook::launch(scan_look_back_kernel<true, true>, grid, dim3(kThreads), 0, stream, in, out, n, states, counter);
  else if (aligned16(in))
    workbook::launch(scan_look_back_kernel<true, false>, grid, dim3(kThreads), 0, stream, in, out, n, states, counter);
  else if (aligned16(out))
    workbook::launch(scan_look_back_kernel<false, true>, grid, dim3(kThreads), 0, stream, in, out, n, states, counter);
  else
    workbook::launch(scan_look_back_kernel<false, false>, grid, dim3(kThreads), 0, stream, in, out, n, states, counter);
}

// The reductions' two buffers of partial sums: the first pass's (256 elements a block at most), and
// the second's.
std::size_t reduce_workspace_bytes(const SumProblem& shape) {
  if (shape.n <= std::size_t(kThreads)) return 0;  // one block: it writes out itself
  const std::size_t first = first_partials(shape.n);
  return (first + first_partials(first)) * sizeof(Sum);
}

// The most any scan needs: 06.7's and 06.8's block totals of every level, 06.9's tile totals and
// their scan's levels, 06.10's tile states and counter.
std::size_t scan_workspace_bytes(const SumProblem& shape) {
  const std::size_t n = shape.n;
  if (n == 0) return 0;
  const std::size_t tiles = ceil_div(n, std::size_t(kTileElements));
  const std::size_t blelloch = level_sums(n, kBlellochElements) * sizeof(Sum);
  const std::size_t hillis_steele = level_sums(n, kThreads) * sizeof(Sum);
  const std::size_t register_blocked = (tiles + level_sums(tiles, kThreads)) * sizeof(Sum);
  const std::size_t look_back = look_back_state_bytes(n);
  return std::max({blelloch, hillis_steele, register_blocked, look_back});
}

}  // namespace reduce_scan_lab
