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

using Sum = unsigned int;  // sums wrap modulo 2^32, as C++ defines for unsigned int
constexpr unsigned kFullMask = 0xffffffffu;
constexpr int kThreads = 256;  // every kernel's block
constexpr int kWarps = kThreads / 32;

// ---------------------------------------------------------------------------------------------
// The reductions 06.1 to 06.5: each block writes one partial sum; the launcher runs the kernel again
// on the partial sums until one is left, and the last pass writes it to out.

// TODO(06.1): interleaved addressing, no divergence. At level s (1, 2, 4, ...) thread t adds
// partial[2 s t + s] into partial[2 s t] while 2 s t < blockDim.x: the work goes to the first threads.
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

// TODO(06.2): sequential addressing: s halves from blockDim.x / 2 and thread t adds partial[t + s]:
// consecutive threads, consecutive words, no bank conflicts.
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

// TODO(06.3): the first addition during the load: a block covers 2 x 256 elements, each thread adds
// two as it loads them.
__global__ void reduce_first_add_kernel(const Sum* in, Sum* partials, std::size_t n) {
  __shared__ Sum partial[kThreads];
  const unsigned t = threadIdx.x;
  const std::size_t i = blockIdx.x * std::size_t(2 * kThreads) + t;
  Sum v = i < n ? in[i] : 0u;
  if (i + kThreads < n) v += in[i + kThreads];
  partial[t] = v;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (t < s) partial[t] += partial[t + s];
    __syncthreads();
  }
  if (t == 0) partials[blockIdx.x] = partial[0];
}

// The sum of a warp's 32 values, in every lane: five shuffles, registers only.
__device__ inline Sum warp_sum(Sum v) {
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_xor_sync(kFullMask, v, offset);
  return v;
}

// TODO(06.4): 06.3, with the tree stopped when one warp is left (s = 32): that warp adds the last
// two halves in registers and finishes with five shuffles, no barrier and no volatile.
__global__ void reduce_last_warp_kernel(const Sum* in, Sum* partials, std::size_t n) {
  __shared__ Sum partial[kThreads];
  const unsigned t = threadIdx.x;
  const std::size_t i = blockIdx.x * std::size_t(2 * kThreads) + t;
  Sum v = i < n ? in[i] : 0u;
  if (i + kThreads < n) v += in[i + kThreads];
  partial[t] = v;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 32; s >>= 1) {
    if (t < s) partial[t] += partial[t + s];
    __syncthreads();
  }
  if (t < 32) {
    v = warp_sum(partial[t] + partial[t + 32]);
    if (t == 0) partials[blockIdx.x] = v;
  }
}

// TODO(06.5): complete unrolling: 06.4 with the block size a template parameter, so that every
// loop bound is a constant and the compiler unrolls the tree.
template <unsigned kBlock>
__global__ void __launch_bounds__(kBlock) reduce_unrolled_kernel(const Sum* in, Sum* partials, std::size_t n) {
  static_assert(kBlock >= 64 && (kBlock & (kBlock - 1)) == 0, "a power of two, at least two warps");
  __shared__ Sum partial[kBlock];
  const unsigned t = threadIdx.x;
  const std::size_t i = blockIdx.x * std::size_t(2 * kBlock) + t;
  Sum v = i < n ? in[i] : 0u;
  if (i + kBlock < n) v += in[i + kBlock];
  partial[t] = v;
  __syncthreads();
#pragma unroll
  for (unsigned s = kBlock / 2; s > 32; s >>= 1) {
    if (t < s) partial[t] += partial[t + s];
    __syncthreads();
  }
  if (t < 32) {
    v = warp_sum(partial[t] + partial[t + 32]);
    if (t == 0) partials[blockIdx.x] = v;
  }
}

// The multi-pass reductions' workspace: two buffers of partial sums, the first pass's (one per block
// of 256 elements, the most any of 06.1 to 06.5 writes) and the second's; later passes alternate.
constexpr std::size_t kFewestPerBlock = kThreads;
std::size_t blocks_for(std::size_t n, std::size_t per_block) { return workbook::ceil_div(n, per_block); }
std::size_t multi_pass_sums(std::size_t n) {
  const std::size_t first = blocks_for(n, kFewestPerBlock);
  return first + blocks_for(first, kFewestPerBlock);
}

using ReduceKernel = void (*)(const Sum*, Sum*, std::size_t);

// Runs `kernel` (each block sums `per_block` elements) pass after pass until one sum is left, which
// the last pass writes to out. n = 0: one block writes 0.
void reduce_in_passes(const SumProblem& p, const char* step, ReduceKernel kernel, std::size_t per_block,
                      cudaStream_t stream) {
  Sum* const scratch = static_cast<Sum*>(workspace_of(p, step, multi_pass_sums(p.n) * sizeof(Sum)));
  Sum* const buffers[2] = {scratch, scratch + blocks_for(p.n, kFewestPerBlock)};
  const Sum* in = reinterpret_cast<const Sum*>(p.in);
  std::size_t n = p.n;
  for (int pass = 0;; ++pass) {
    const std::size_t blocks = blocks_for(n, per_block);
    Sum* const result = blocks <= 1 ? reinterpret_cast<Sum*>(p.out) : buffers[pass % 2];
    workbook::launch(kernel, dim3(static_cast<unsigned>(blocks > 1 ? blocks : 1)), dim3(kThreads), 0, stream, in,
                     result, n);
    if (blocks <= 1) break;
    in = result;
    n = blocks;
  }
}

// ---------------------------------------------------------------------------------------------
// TODO(06.6): many elements per thread, one pass. A grid sized to what the GPU holds at once walks
// the array in strides of the whole grid, each thread keeping kLoadsInFlight 16-byte loads in flight;
// each block adds its sum to *out with one atomicAdd (the launcher zeroes *out first).
constexpr int kLoadsInFlight = 4;

__global__ void __launch_bounds__(kThreads)
    reduce_one_pass_kernel(const Sum* __restrict__ in, Sum* __restrict__ out, std::size_t n) {
  const std::size_t thread = blockIdx.x * std::size_t(kThreads) + threadIdx.x;
  const std::size_t threads = std::size_t(gridDim.x) * kThreads;
  // The ints before the first 16-byte boundary, then int4, then the tail, one by one.
  const std::size_t misaligned = (reinterpret_cast<std::uintptr_t>(in) / sizeof(Sum)) % 4;
  const std::size_t head = min(n, (4 - misaligned) % 4);
  const std::size_t vectors = (n - head) / 4;
  const std::size_t tail_first = head + 4 * vectors;
  Sum sum = 0;
  if (thread < head) sum += in[thread];
  if (thread < n - tail_first) sum += in[tail_first + thread];

  const uint4* const v = reinterpret_cast<const uint4*>(in + head);
  // Each block takes chunks of kLoadsInFlight x 256 vectors, strided by the whole grid.
  std::size_t i = blockIdx.x * std::size_t(kThreads * kLoadsInFlight) + threadIdx.x;
  const std::size_t stride = threads * kLoadsInFlight;
  for (; i + (kLoadsInFlight - 1) * kThreads < vectors; i += stride) {
    uint4 loaded[kLoadsInFlight];
#pragma unroll
    for (int k = 0; k < kLoadsInFlight; ++k) loaded[k] = v[i + k * kThreads];
#pragma unroll
    for (int k = 0; k < kLoadsInFlight; ++k) sum += loaded[k].x + loaded[k].y + loaded[k].z + loaded[k].w;
  }
#pragma unroll
  for (int k = 0; k < kLoadsInFlight; ++k)  // the one partial chunk, if any
    if (i + k * kThreads < vectors) {
      const uint4 loaded = v[i + k * kThreads];
      sum += loaded.x + loaded.y + loaded.z + loaded.w;
    }

  __shared__ Sum warp_sums[kWarps];
  sum = warp_sum(sum);
  const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  if (lane == 0) warp_sums[warp] = sum;
  __syncthreads();
  if (warp == 0) {
    sum = warp_sum(lane < kWarps ? warp_sums[lane] : 0u);
    if (lane == 0) atomicAdd(out, sum);
  }
}

// ---------------------------------------------------------------------------------------------
// The multi-pass scans 06.7 and 06.8: each block scans its elements and writes its total; the totals
// are scanned the same way (recursively) and each block's offset added.

// Every level's block totals, in Sums, for blocks of per_block elements.
std::size_t level_sums(std::size_t n, std::size_t per_block) {
  std::size_t sums = 0;
  for (std::size_t blocks = blocks_for(n, per_block); blocks > 1; blocks = blocks_for(blocks, per_block)) sums += blocks;
  return sums;
}

// TODO(06.7): Blelloch's work-efficient scan of 2 x 256 elements per block in shared memory: an
// up-sweep builds the tree of partial sums, the root is cleared, a down-sweep hands each node's value
// to its left child and the sum to its right. One padding word every 32 against bank conflicts.
constexpr int kBlellochElements = 2 * kThreads;
__device__ inline int padded(int i) { return i + (i >> 5); }

__global__ void __launch_bounds__(kThreads) scan_blelloch_kernel(const Sum* in, Sum* out, std::size_t n, Sum* block_totals) {
  __shared__ Sum tree[kBlellochElements + kBlellochElements / 32];
  const int t = threadIdx.x;
  const std::size_t first = blockIdx.x * std::size_t(kBlellochElements);
  const std::size_t a = first + t, b = first + t + kThreads;
  tree[padded(t)] = a < n ? in[a] : 0u;
  tree[padded(t + kThreads)] = b < n ? in[b] : 0u;
  // Up-sweep: at each level, d nodes add their left child into their right child.
  int offset = 1;
  for (int d = kBlellochElements / 2; d > 0; d >>= 1) {
    __syncthreads();
    if (t < d) {
      const int left = offset * (2 * t + 1) - 1, right = offset * (2 * t + 2) - 1;
      tree[padded(right)] += tree[padded(left)];
    }
    offset *= 2;
  }
  __syncthreads();
  if (t == 0) {
    if (block_totals != nullptr) block_totals[blockIdx.x] = tree[padded(kBlellochElements - 1)];
    tree[padded(kBlellochElements - 1)] = 0;  // clear the root
  }
  // Down-sweep: each node hands its value to its left child, and the sum to its right.
  for (int d = 1; d < kBlellochElements; d *= 2) {
    offset >>= 1;
    __syncthreads();
    if (t < d) {
      const int left = offset * (2 * t + 1) - 1, right = offset * (2 * t + 2) - 1;
      const Sum from_left = tree[padded(left)];
      tree[padded(left)] = tree[padded(right)];
      tree[padded(right)] += from_left;
    }
  }
  __syncthreads();
  if (a < n) out[a] = tree[padded(t)];
  if (b < n) out[b] = tree[padded(t + kThreads)];
}

// The exclusive scan of one value per thread across a block of kThreads, by shuffles: each warp's
// inclusive scan (Hillis-Steele, five __shfl_up_sync), then the warps' totals. `total`: the block's.
__device__ inline Sum warp_inclusive_scan(Sum v) {
  const unsigned lane = threadIdx.x % 32;
#pragma unroll
  for (int o = 1; o < 32; o *= 2) {
    const Sum before = __shfl_up_sync(kFullMask, v, o);
    if (lane >= o) v += before;
  }
  return v;
}

__device__ inline Sum block_exclusive_scan(Sum v, Sum& total) {
  __shared__ Sum warp_offsets[kWarps];
  __shared__ Sum block_total;
  const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const Sum inclusive = warp_inclusive_scan(v);
  if (lane == 31) warp_offsets[warp] = inclusive;  // the warp's total
  __syncthreads();
  if (warp == 0) {
    const Sum w = lane < kWarps ? warp_offsets[lane] : 0u;
    const Sum w_inclusive = warp_inclusive_scan(w);
    if (lane < kWarps) warp_offsets[lane] = w_inclusive - w;  // each warp's exclusive offset
    if (lane == kWarps - 1) block_total = w_inclusive;
  }
  __syncthreads();
  total = block_total;
  return warp_offsets[warp] + inclusive - v;
}

// TODO(06.8): Hillis-Steele within each warp by shuffles: each block scans one element per thread
// (256 elements, 8 warps): each warp, then the warps' totals; it writes its scan and its total.
__global__ void __launch_bounds__(kThreads) scan_hillis_steele_kernel(const Sum* in, Sum* out, std::size_t n, Sum* block_totals) {
  const std::size_t i = blockIdx.x * std::size_t(kThreads) + threadIdx.x;
  const Sum v = i < n ? in[i] : 0u;
  Sum total;
  const Sum exclusive = block_exclusive_scan(v, total);
  if (i < n) out[i] = exclusive;
  if (block_totals != nullptr && threadIdx.x == kThreads - 1) block_totals[blockIdx.x] = total;
}

// Adds each block's offset (its scanned total) to its kPerBlock elements.
template <int kPerBlock>
__global__ void __launch_bounds__(kThreads) add_offsets_kernel(Sum* out, std::size_t n, const Sum* offsets) {
  const Sum offset = offsets[blockIdx.x];
  const std::size_t first = blockIdx.x * std::size_t(kPerBlock);
#pragma unroll
  for (int k = 0; k < kPerBlock; k += kThreads) {
    const std::size_t i = first + k + threadIdx.x;
    if (i < n) out[i] += offset;
  }
}

using ScanKernel = void (*)(const Sum*, Sum*, std::size_t, Sum*);

// Scans n elements of in into out, kPerBlock per block, the block totals' levels in scratch.
template <int kPerBlock>
void scan_levels(ScanKernel kernel, const Sum* in, Sum* out, std::size_t n, Sum* scratch, cudaStream_t stream) {
  const std::size_t blocks = blocks_for(n, kPerBlock);
  Sum* const totals = blocks > 1 ? scratch : nullptr;
  workbook::launch(kernel, dim3(static_cast<unsigned>(blocks)), dim3(kThreads), 0, stream, in, out, n, totals);
  if (blocks == 1) return;
  scan_levels<kPerBlock>(kernel, totals, totals, blocks, scratch + blocks, stream);
  workbook::launch(add_offsets_kernel<kPerBlock>, dim3(static_cast<unsigned>(blocks)), dim3(kThreads), 0, stream, out, n,
                   static_cast<const Sum*>(totals));
}

// ---------------------------------------------------------------------------------------------
// 06.9 and 06.10: tiles of 256 threads x 16 consecutive elements in registers. Each warp moves its
// 32 x 16 elements through shared memory (one padding word every 32), so that the loads and stores
// are whole rows: lane l takes int4 number 32 q + l (or, where a pointer is not 16-byte aligned or
// the tile is partial, int number 32 q + l), then each thread reads its 16 consecutive elements.
constexpr int kItems = 16;
constexpr int kTileElements = kThreads * kItems;  // 4096
constexpr int kWarpElements = 32 * kItems;        // 512
constexpr int kWarpStage = kWarpElements + kWarpElements / 32;

struct TileStage {
  Sum words[kWarps][kWarpStage];
};

// Loads elements [first, first + 4096) of in (zeros past n) into items, thread t getting elements
// 16 t ... 16 t + 15 of the tile. `vector`: in is 16-byte aligned (then so is every tile).
__device__ inline void load_tile(const Sum* in, std::size_t n, std::size_t first, bool vector, TileStage& stage,
                                 Sum (&items)[kItems]) {
  const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  Sum* const mine = stage.words[warp];
  const std::size_t warp_first = first + std::size_t(warp) * kWarpElements;
  if (vector && warp_first + kWarpElements <= n) {
    const uint4* const v = reinterpret_cast<const uint4*>(in + warp_first);
    uint4 loaded[kItems / 4];
#pragma unroll
    for (int q = 0; q < kItems / 4; ++q) loaded[q] = v[32 * q + lane];
#pragma unroll
    for (int q = 0; q < kItems / 4; ++q) {
      const int e = 4 * (32 * q + lane);
      mine[padded(e + 0)] = loaded[q].x;
      mine[padded(e + 1)] = loaded[q].y;
      mine[padded(e + 2)] = loaded[q].z;
      mine[padded(e + 3)] = loaded[q].w;
    }
  } else {
#pragma unroll
    for (int q = 0; q < kItems; ++q) {
      const int e = 32 * q + lane;
      mine[padded(e)] = warp_first + e < n ? in[warp_first + e] : 0u;
    }
  }
  __syncwarp();
#pragma unroll
  for (int j = 0; j < kItems; ++j) items[j] = mine[padded(kItems * lane + j)];
  __syncwarp();
}

// Stores items (thread t's are elements 16 t ... of the tile) to out[first ...], those below n.
__device__ inline void store_tile(Sum* out, std::size_t n, std::size_t first, bool vector, TileStage& stage,
                                  const Sum (&items)[kItems]) {
  const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  Sum* const mine = stage.words[warp];
  const std::size_t warp_first = first + std::size_t(warp) * kWarpElements;
  __syncwarp();
#pragma unroll
  for (int j = 0; j < kItems; ++j) mine[padded(kItems * lane + j)] = items[j];
  __syncwarp();
  if (vector && warp_first + kWarpElements <= n) {
    uint4* const v = reinterpret_cast<uint4*>(out + warp_first);
#pragma unroll
    for (int q = 0; q < kItems / 4; ++q) {
      const int e = 4 * (32 * q + lane);
      v[32 * q + lane] = make_uint4(mine[padded(e + 0)], mine[padded(e + 1)], mine[padded(e + 2)], mine[padded(e + 3)]);
    }
  } else {
#pragma unroll
    for (int q = 0; q < kItems; ++q) {
      const int e = 32 * q + lane;
      if (warp_first + e < n) out[warp_first + e] = mine[padded(e)];
    }
  }
}

// The exclusive prefix sums of a thread's items, from `running`.
__device__ inline void scan_items(Sum (&items)[kItems], Sum running) {
#pragma unroll
  for (int j = 0; j < kItems; ++j) {
    const Sum v = items[j];
    items[j] = running;
    running += v;
  }
}

__device__ inline Sum items_sum(const Sum (&items)[kItems]) {
  Sum sum = 0;
#pragma unroll
  for (int j = 0; j < kItems; ++j) sum += items[j];
  return sum;
}

// TODO(06.9), the reduce of reduce-then-scan: each block writes its tile's total. The order of the
// additions does not matter, so the loads stay whole rows (int4 where in is aligned).
__global__ void __launch_bounds__(kThreads) tile_totals_kernel(const Sum* in, std::size_t n, bool vector, Sum* totals) {
  const std::size_t first = blockIdx.x * std::size_t(kTileElements);
  Sum sum = 0;
  if (vector && first + kTileElements <= n) {
    const uint4* const v = reinterpret_cast<const uint4*>(in + first);
    uint4 loaded[kItems / 4];
#pragma unroll
    for (int q = 0; q < kItems / 4; ++q) loaded[q] = v[q * kThreads + threadIdx.x];
#pragma unroll
    for (int q = 0; q < kItems / 4; ++q) sum += loaded[q].x + loaded[q].y + loaded[q].z + loaded[q].w;
  } else {
#pragma unroll
    for (int q = 0; q < kItems; ++q) {
      const std::size_t i = first + q * kThreads + threadIdx.x;
      if (i < n) sum += in[i];
    }
  }
  __shared__ Sum warp_sums[kWarps];
  sum = warp_sum(sum);
  const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  if (lane == 0) warp_sums[warp] = sum;
  __syncthreads();
  if (warp == 0) {
    sum = warp_sum(lane < kWarps ? warp_sums[lane] : 0u);
    if (lane == 0) totals[blockIdx.x] = sum;
  }
}

// TODO(06.9), the scan: each block scans its tile from its offset (offsets[blockIdx.x], the scanned
// tile totals; 0 when offsets is null). in may be out (the totals are scanned in place).
__global__ void __launch_bounds__(kThreads)
    scan_tile_kernel(const Sum* in, Sum* out, std::size_t n, bool in_vector, bool out_vector, const Sum* offsets) {
  __shared__ TileStage stage;
  const std::size_t first = blockIdx.x * std::size_t(kTileElements);
  Sum items[kItems];
  load_tile(in, n, first, in_vector, stage, items);
  Sum total;
  const Sum before = block_exclusive_scan(items_sum(items), total);
  scan_items(items, before + (offsets != nullptr ? offsets[blockIdx.x] : 0u));
  store_tile(out, n, first, out_vector, stage, items);
}

bool aligned16(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; }

// Every level's tile totals for 06.9, each level rounded up to four Sums (16 bytes).
std::size_t round4(std::size_t count) { return (count + 3) / 4 * 4; }
std::size_t register_blocked_sums(std::size_t n) {
  std::size_t sums = 0;
  for (std::size_t tiles = blocks_for(n, kTileElements); tiles > 1; tiles = blocks_for(tiles, kTileElements))
    sums += round4(tiles);
  return sums;
}

void scan_reduce_then_scan(const Sum* in, Sum* out, std::size_t n, Sum* scratch, cudaStream_t stream) {
  const std::size_t tiles = blocks_for(n, kTileElements);
  const dim3 grid(static_cast<unsigned>(tiles));
  if (tiles == 1) {
    workbook::launch(scan_tile_kernel, grid, dim3(kThreads), 0, stream, in, out, n, aligned16(in), aligned16(out),
                     static_cast<const Sum*>(nullptr));
    return;
  }
  Sum* const totals = scratch;
  workbook::launch(tile_totals_kernel, grid, dim3(kThreads), 0, stream, in, n, aligned16(in), totals);
  scan_reduce_then_scan(totals, totals, tiles, scratch + round4(tiles), stream);
  workbook::launch(scan_tile_kernel, grid, dim3(kThreads), 0, stream, in, out, n, aligned16(in), aligned16(out),
                   static_cast<const Sum*>(totals));
}

// ---------------------------------------------------------------------------------------------
// TODO(06.10): a single pass with decoupled look-back. Tiles are numbered in the order blocks start
// (an atomic counter, never blockIdx); each tile's state is one 64-bit word, the flag in the high
// 32 bits (0: nothing yet, 1: the tile's own total, 2: its inclusive prefix) and the sum in the low
// 32, published with one 64-bit atomicExch and polled with a volatile 64-bit load. The launcher
// clears the states and the counter on every call.
using State = unsigned long long;
constexpr State kFlagAggregate = State{1} << 32;
constexpr State kFlagPrefix = State{2} << 32;

__global__ void __launch_bounds__(kThreads)
    scan_look_back_kernel(const Sum* in, Sum* out, std::size_t n, bool in_vector, bool out_vector, State* states,
                          unsigned* counter) {
  __shared__ TileStage stage;
  __shared__ unsigned tile_shared;
  __shared__ Sum exclusive_shared;
  if (threadIdx.x == 0) tile_shared = atomicAdd(counter, 1u);
  __syncthreads();
  const unsigned tile = tile_shared;
  const std::size_t first = std::size_t(tile) * kTileElements;

  Sum items[kItems];
  load_tile(in, n, first, in_vector, stage, items);
  Sum total;  // the tile's own total
  const Sum before = block_exclusive_scan(items_sum(items), total);

  const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  if (warp == 0) {
    if (lane == 0) atomicExch(&states[tile], (tile == 0 ? kFlagPrefix : kFlagAggregate) | total);
    // Look back, warp-wide: lane k reads the state of tile (tile - 1 - k), 32 predecessors at a time,
    // waiting until all of them have published, and adds up totals up to the nearest inclusive prefix.
    Sum exclusive = 0;
    if (tile > 0) {
      long long next = static_cast<long long>(tile) - 1;
      while (true) {
        const long long j = next - lane;
        State state = kFlagPrefix;  // before tile 0: a prefix of 0
        if (j >= 0) state = *reinterpret_cast<volatile State*>(&states[j]);
        const unsigned flag = static_cast<unsigned>(state >> 32);
        if (__any_sync(kFullMask, flag == 0)) continue;  // someone has not published yet: poll again
        const unsigned prefixes = __ballot_sync(kFullMask, flag == 2);
        const unsigned last_lane = prefixes != 0 ? __ffs(prefixes) - 1 : 31;
        exclusive += warp_sum(lane <= last_lane ? static_cast<Sum>(state) : 0u);
        if (prefixes != 0) break;
        next -= 32;
      }
      if (lane == 0) atomicExch(&states[tile], kFlagPrefix | (exclusive + total));
    }
    if (lane == 0) exclusive_shared = exclusive;
  }
  __syncthreads();
  scan_items(items, before + exclusive_shared);
  store_tile(out, n, first, out_vector, stage, items);
}

// 06.10's workspace: the tile states, then the counter.
std::size_t look_back_tiles(std::size_t n) { return blocks_for(n, kTileElements); }
std::size_t look_back_bytes(std::size_t n) { return look_back_tiles(n) * sizeof(State) + 16; }

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
  Sum* const out = reinterpret_cast<Sum*>(problem.out);
  CUDA_CHECK(cudaMemsetAsync(out, 0, sizeof(Sum), stream));  // the blocks add into it
  if (problem.n == 0) return;
  // What the GPU holds at once, asked once: the answer does not change while the process runs.
  static const unsigned resident_blocks = [] {
    int device = 0, sms = 0, per_sm = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, reduce_one_pass_kernel, kThreads, 0));
    return static_cast<unsigned>(sms * (per_sm > 0 ? per_sm : 1));
  }();
  // No more blocks than there are chunks of work.
  const std::size_t chunks = workbook::ceil_div(problem.n, std::size_t(4 * kThreads * kLoadsInFlight));
  const unsigned blocks = static_cast<unsigned>(std::min<std::size_t>(resident_blocks, chunks));
  workbook::launch(reduce_one_pass_kernel, dim3(blocks), dim3(kThreads), 0, stream,
                   reinterpret_cast<const Sum*>(problem.in), out, problem.n);
}

void scan_blelloch(const SumProblem& problem, cudaStream_t stream) {
  validate(problem, "scan_blelloch", Output::kPrefixSums);
  if (problem.n == 0) return;
  Sum* const scratch = static_cast<Sum*>(
      workspace_of(problem, "scan_blelloch", level_sums(problem.n, kBlellochElements) * sizeof(Sum)));
  scan_levels<kBlellochElements>(scan_blelloch_kernel, reinterpret_cast<const Sum*>(problem.in),
                                 reinterpret_cast<Sum*>(problem.out), problem.n, scratch, stream);
}

void scan_hillis_steele(const SumProblem& problem, cudaStream_t stream) {
  validate(problem, "scan_hillis_steele", Output::kPrefixSums);
  if (problem.n == 0) return;
  Sum* const scratch = static_cast<Sum*>(
      workspace_of(problem, "scan_hillis_steele", level_sums(problem.n, kThreads) * sizeof(Sum)));
  scan_levels<kThreads>(scan_hillis_steele_kernel, reinterpret_cast<const Sum*>(problem.in),
                        reinterpret_cast<Sum*>(problem.out), problem.n, scratch, stream);
}

void scan_register_blocked(const SumProblem& problem, cudaStream_t stream) {
  validate(problem, "scan_register_blocked", Output::kPrefixSums);
  if (problem.n == 0) return;
  Sum* const scratch = static_cast<Sum*>(
      workspace_of(problem, "scan_register_blocked", register_blocked_sums(problem.n) * sizeof(Sum)));
  scan_reduce_then_scan(reinterpret_cast<const Sum*>(problem.in), reinterpret_cast<Sum*>(problem.out), problem.n,
                        scratch, stream);
}

void scan_decoupled_look_back(const SumProblem& problem, cudaStream_t stream) {
  validate(problem, "scan_decoupled_look_back", Output::kPrefixSums);
  if (problem.n == 0) return;
  const std::size_t bytes = look_back_bytes(problem.n);
  void* const workspace = workspace_of(problem, "scan_decoupled_look_back", bytes);
  // The tile states and the counter start cleared on every call: the workspace holds garbage.
  CUDA_CHECK(cudaMemsetAsync(workspace, 0, bytes, stream));
  const std::size_t tiles = look_back_tiles(problem.n);
  State* const states = static_cast<State*>(workspace);
  unsigned* const counter = reinterpret_cast<unsigned*>(states + tiles);
  const Sum* in = reinterpret_cast<const Sum*>(problem.in);
  Sum* out = reinterpret_cast<Sum*>(problem.out);
  workbook::launch(scan_look_back_kernel, dim3(static_cast<unsigned>(tiles)), dim3(kThreads), 0, stream, in, out,
                   problem.n, aligned16(in), aligned16(out), states, counter);
}

std::size_t reduce_workspace_bytes(const SumProblem& shape) { return multi_pass_sums(shape.n) * sizeof(Sum); }

// The most any scan step needs: the levels of block totals of 06.7 (512 per block) and 06.8 (256),
// 06.9's levels of tile totals, and 06.10's tile states and counter.
std::size_t scan_workspace_bytes(const SumProblem& shape) {
  const std::size_t n = shape.n;
  std::size_t bytes = level_sums(n, kBlellochElements) * sizeof(Sum);
  bytes = std::max(bytes, level_sums(n, kThreads) * sizeof(Sum));
  bytes = std::max(bytes, register_blocked_sums(n) * sizeof(Sum));
  if (n > 0) bytes = std::max(bytes, look_back_bytes(n));
  return bytes;
}

}  // namespace reduce_scan_lab
