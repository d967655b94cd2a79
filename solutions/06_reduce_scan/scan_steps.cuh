// Lab 06_reduce_scan, reference solution, steps 06.7 to 06.10: the exclusive scan, from Blelloch's
// tree to a single pass with decoupled look-back. Part of reduce_scan.cu.
#pragma once

#include <cstddef>
#include <cstdint>

#include "given.cuh"
#include "reduce_scan.h"
#include "reduce_steps.cuh"
#include "workbook/launch.cuh"

namespace reduce_scan_lab {
namespace {

constexpr unsigned kFullWarp = 0xffffffffu;

// Hillis and Steele's scan, within a warp: at step o (1, 2, 4, 8, 16) every lane adds the value o
// lanes back. log2(32) steps, each a shuffle between registers: no shared memory, no barrier. (It
// does n log n additions rather than n, which costs nothing here: the lanes would idle otherwise.)
__device__ inline Sum warp_inclusive_scan(Sum value) {
  const unsigned lane = threadIdx.x % ReducePolicy::kWarp;
#pragma unroll
  for (int offset = 1; offset < ReducePolicy::kWarp; offset *= 2) {
    const Sum before = __shfl_up_sync(kFullWarp, value, offset);
    if (lane >= unsigned(offset)) value += before;
  }
  return value;
}

// The exclusive scan of one value per thread across a block of kThreads, and the block's total:
// each warp scans its values, warp 0 scans the warps' totals, and each thread adds its warp's
// offset. Two barriers. Call it once per kernel (its shared array is not reset for a second call).
template <int kThreads>
__device__ inline Sum block_exclusive_scan(Sum value, Sum& block_total) {
  constexpr int kWarps = kThreads / ReducePolicy::kWarp;
  static_assert(kWarps <= ReducePolicy::kWarp, "one warp scans the warps' totals");
  __shared__ Sum warp_totals[kWarps];  // after the scan: each warp's inclusive prefix of totals
  const unsigned lane = threadIdx.x % ReducePolicy::kWarp, warp = threadIdx.x / ReducePolicy::kWarp;
  const Sum inclusive = warp_inclusive_scan(value);
  if (lane == ReducePolicy::kWarp - 1) warp_totals[warp] = inclusive;
  __syncthreads();
  if (warp == 0) {
    const Sum total = lane < unsigned(kWarps) ? warp_totals[lane] : 0u;
    const Sum scanned = warp_inclusive_scan(total);
    if (lane < unsigned(kWarps)) warp_totals[lane] = scanned;
  }
  __syncthreads();
  block_total = warp_totals[kWarps - 1];
  return (warp == 0 ? 0u : warp_totals[warp - 1]) + inclusive - value;
}

// ---------------------------------------------------------------------------------------------
// 06.7 and 06.8 scan each block of the input, then the blocks' totals (recursively, in levels, the
// same way), then add each block's offset: three kernels per level, and the data crosses memory
// three times (read; write; read and write).

// out[i] += offsets[i / per_block]: each block's scan, moved up by the sum of every block before.
__global__ void add_block_offsets_kernel(Sum* out, std::size_t n, const Sum* offsets, std::size_t per_block) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x)
    out[i] += offsets[i / per_block];
}

void add_block_offsets(Sum* out, std::size_t n, const Sum* offsets, std::size_t per_block, cudaStream_t stream) {
  constexpr int kThreads = 256;
  const std::size_t blocks = std::min<std::size_t>(workbook::ceil_div(n, std::size_t(kThreads)), 65536);
  workbook::launch(add_block_offsets_kernel, dim3(static_cast<unsigned>(blocks)), dim3(kThreads), 0, stream, out, n,
                   offsets, per_block);
}

// The scratch a multi-level scan with blocks of `per_block` elements needs, in Sums: every level's
// block totals.
std::size_t scan_levels_sums(std::size_t n, std::size_t per_block) {
  std::size_t sums = 0;
  for (std::size_t blocks = workbook::ceil_div(n, per_block); blocks > 1; blocks = workbook::ceil_div(blocks, per_block))
    sums += blocks;
  return sums;
}

// A scan in levels: `kernel` scans each block of `per_block` elements and writes the blocks' totals;
// the totals are scanned the same way (in place), and their scan is added to each block.
template <typename Kernel>
void scan_in_levels(Kernel kernel, int threads, std::size_t per_block, const Sum* in, Sum* out, std::size_t n,
                    Sum* scratch, cudaStream_t stream) {
  if (n == 0) return;
  const std::size_t blocks = workbook::ceil_div(n, per_block);
  Sum* const totals = blocks > 1 ? scratch : nullptr;
  workbook::launch(kernel, dim3(static_cast<unsigned>(blocks)), dim3(threads), 0, stream, in, out, n, totals);
  if (blocks == 1) return;
  scan_in_levels(kernel, threads, per_block, totals, totals, blocks, scratch + blocks, stream);
  add_block_offsets(out, n, totals, per_block, stream);
}

// ---------------------------------------------------------------------------------------------
// 06.7: Blelloch's work-efficient scan (1990), as Harris, Sengupta and Owens wrote it for CUDA
// (GPU Gems 3, ch. 39): 2 elements per thread, a block's 512 in shared memory. The up-sweep builds
// a tree of partial sums in place (n - 1 additions); the root is cleared; the down-sweep walks the
// tree back, each node passing its value to its left child and the sum to its right (n - 1 more).
// 2n additions instead of Hillis-Steele's n log n. The tree's strides are powers of two, so its
// reads pile onto few banks: one padding word every 32 (padded()) spreads them.
struct BlellochPolicy {
  static constexpr int kThreads = 256;
  static constexpr int kElements = 2 * kThreads;
};

__device__ inline int padded(int index) { return index + index / 32; }

template <typename P>
__global__ void __launch_bounds__(P::kThreads)
    scan_blelloch_kernel(const Sum* in, Sum* out, std::size_t n, Sum* block_totals) {
  __shared__ Sum tree[P::kElements + P::kElements / 32];
  const int t = threadIdx.x;
  const std::size_t base = blockIdx.x * std::size_t(P::kElements);
  const int a = t, b = t + P::kThreads;  // each thread's two elements: coalesced loads
  tree[padded(a)] = element(in, base + a, n);
  tree[padded(b)] = element(in, base + b, n);

  int stride = 1;
  for (int active = P::kElements / 2; active > 0; active /= 2) {  // up-sweep
    __syncthreads();
    if (t < active) {
      const int left = stride * (2 * t + 1) - 1, right = stride * (2 * t + 2) - 1;
      tree[padded(right)] += tree[padded(left)];
    }
    stride *= 2;
  }
  __syncthreads();  // the root is complete before thread 0 reads and clears it
  Sum total = 0;
  if (t == 0) {
    total = tree[padded(P::kElements - 1)];
    tree[padded(P::kElements - 1)] = 0;
  }
  for (int active = 1; active < P::kElements; active *= 2) {  // down-sweep
    stride /= 2;
    __syncthreads();  // the first: the cleared root; then each level's writes before the next reads
    if (t < active) {
      const int left = stride * (2 * t + 1) - 1, right = stride * (2 * t + 2) - 1;
      const Sum left_value = tree[padded(left)];
      tree[padded(left)] = tree[padded(right)];
      tree[padded(right)] += left_value;
    }
  }
  __syncthreads();
  if (base + a < n) out[base + a] = tree[padded(a)];
  if (base + b < n) out[base + b] = tree[padded(b)];
  if (block_totals != nullptr && t == 0) block_totals[blockIdx.x] = total;
}

// ---------------------------------------------------------------------------------------------
// 06.8: one element per thread, scanned Hillis-Steele style within each warp by shuffles (five
// steps, in registers), then across the block (two barriers in all); the blocks' totals go to
// `block_totals` (when not null) for scan_in_levels(). More additions than Blelloch's tree, but
// fewer barriers and no shared-memory traffic: measured on the H100, 7% faster than 06.7.
template <int kThreads>
__global__ void __launch_bounds__(kThreads)
    scan_shuffle_kernel(const Sum* in, Sum* out, std::size_t n, Sum* block_totals) {
  const std::size_t i = blockIdx.x * std::size_t(kThreads) + threadIdx.x;
  const Sum value = element(in, i, n);  // read before any thread of the block writes: in == out is safe
  Sum total = 0;
  const Sum prefix = block_exclusive_scan<kThreads>(value, total);
  if (i < n) out[i] = prefix;
  if (block_totals != nullptr && threadIdx.x == 0) block_totals[blockIdx.x] = total;
}

// ---------------------------------------------------------------------------------------------
// 06.9 and 06.10: register blocking. A thread holds kItems consecutive elements in registers: it
// adds them up alone, sequentially (no shuffle, no barrier), and the block scans only one value per
// thread; then each thread writes its items' prefix sums, sequentially again. The work per element
// is a load, two additions and a store, and the block-wide part is amortized over kItems elements:
// Volkov's "more outputs per thread", for a scan.
//
// Consecutive items per thread make uncoalesced accesses, though: a warp's int4 loads would touch 32
// pieces 64 bytes apart. So each warp moves its 32 x kItems elements between memory and a shared
// staging area of its own in whole coalesced rows (lane l takes int4 number q * 32 + l), and each
// thread reads its consecutive items from there: a "warp transpose", with no block-wide barrier.
// Measured on the H100, this alone takes the single-pass scan from 90% to 119% of CUB's speed.
struct TilePolicy {
  static constexpr int kThreads = 256;
  static constexpr int kItems = 16;  // 64 bytes per thread, as four int4
  static constexpr int kTile = kThreads * kItems;
  static constexpr int kWarpItems = ReducePolicy::kWarp * kItems;  // one warp's part of a tile
  static_assert(kItems % 4 == 0, "items move as int4");
};

__device__ inline bool aligned16(const void* pointer) { return reinterpret_cast<std::uintptr_t>(pointer) % 16 == 0; }

// A warp's staging area: one padding word after every 32, so that lane l reading word l * kItems + j
// (its own items) finds a bank no other lane reads at the same time.
template <typename P>
struct WarpStaging {
  Sum words[P::kWarpItems + P::kWarpItems / 32];
  __device__ Sum& operator[](int index) { return words[index + index / 32]; }
};

// This thread's kItems consecutive elements of its warp's part of the tile, which starts at
// `warp_first`: zeros past n.
template <typename P>
__device__ inline void load_items(const Sum* in, std::size_t warp_first, std::size_t n, WarpStaging<P>& staging,
                                  Sum (&items)[P::kItems]) {
  const unsigned lane = threadIdx.x % ReducePolicy::kWarp;
  if (warp_first + P::kWarpItems <= n && aligned16(in + warp_first)) {
#pragma unroll
    for (int q = 0; q < P::kItems / 4; ++q) {  // whole rows of 32 int4: 512 bytes per instruction
      const int v = q * ReducePolicy::kWarp + lane;
      const uint4 x = reinterpret_cast<const uint4*>(in + warp_first)[v];
      staging[4 * v] = x.x;
      staging[4 * v + 1] = x.y;
      staging[4 * v + 2] = x.z;
      staging[4 * v + 3] = x.w;
    }
  } else {  // the last tile, or a misaligned array: one int per lane, still coalesced
#pragma unroll
    for (int j = 0; j < P::kItems; ++j) {
      const int i = j * ReducePolicy::kWarp + lane;
      staging[i] = element(in, warp_first + i, n);
    }
  }
  __syncwarp();
#pragma unroll
  for (int j = 0; j < P::kItems; ++j) items[j] = staging[lane * P::kItems + j];
  __syncwarp();  // every lane has its items before any lane writes to the staging again
}

// Writes the exclusive prefix sums of this thread's `items`, starting from `prefix`, back through
// the staging area, to out[warp_first ...], up to n.
template <typename P>
__device__ inline void store_prefix_sums(Sum* out, std::size_t warp_first, std::size_t n, WarpStaging<P>& staging,
                                         const Sum (&items)[P::kItems], Sum prefix) {
  const unsigned lane = threadIdx.x % ReducePolicy::kWarp;
#pragma unroll
  for (int j = 0; j < P::kItems; ++j) {
    staging[lane * P::kItems + j] = prefix;
    prefix += items[j];
  }
  __syncwarp();
  if (warp_first + P::kWarpItems <= n && aligned16(out + warp_first)) {
#pragma unroll
    for (int q = 0; q < P::kItems / 4; ++q) {
      const int v = q * ReducePolicy::kWarp + lane;
      reinterpret_cast<uint4*>(out + warp_first)[v] =
          make_uint4(staging[4 * v], staging[4 * v + 1], staging[4 * v + 2], staging[4 * v + 3]);
    }
  } else {
#pragma unroll
    for (int j = 0; j < P::kItems; ++j) {
      const int i = j * ReducePolicy::kWarp + lane;
      if (warp_first + i < n) out[warp_first + i] = staging[i];
    }
  }
}

// Where this thread's warp's part of tile `tile` starts.
template <typename P>
__device__ inline std::size_t warp_first_of(std::size_t tile) {
  return tile * P::kTile + (threadIdx.x / ReducePolicy::kWarp) * std::size_t(P::kWarpItems);
}

template <int kItems>
__device__ inline Sum sum_of(const Sum (&items)[kItems]) {
  Sum total = 0;
#pragma unroll
  for (int j = 0; j < kItems; ++j) total += items[j];
  return total;
}

// 06.9, pass 1 of reduce-then-scan: each tile's total. A sum needs no order, so the tile is read in
// whole coalesced rows straight into registers: no staging.
template <typename P>
__global__ void __launch_bounds__(P::kThreads)
    tile_totals_kernel(const Sum* in, std::size_t n, Sum* tile_totals) {
  const std::size_t warp_first = warp_first_of<P>(blockIdx.x);
  const unsigned lane = threadIdx.x % ReducePolicy::kWarp, warp = threadIdx.x / ReducePolicy::kWarp;
  Sum total = 0;
  if (warp_first + P::kWarpItems <= n && aligned16(in + warp_first)) {
#pragma unroll
    for (int q = 0; q < P::kItems / 4; ++q) {
      const uint4 x = reinterpret_cast<const uint4*>(in + warp_first)[q * ReducePolicy::kWarp + lane];
      total += x.x + x.y + x.z + x.w;
    }
  } else {
#pragma unroll
    for (int j = 0; j < P::kItems; ++j) total += element(in, warp_first + j * ReducePolicy::kWarp + lane, n);
  }
  __shared__ Sum warp_totals[P::kThreads / ReducePolicy::kWarp];
  total = warp_sum(total);
  if (lane == 0) warp_totals[warp] = total;
  __syncthreads();
  if (warp == 0) {
    total = warp_sum(lane < P::kThreads / ReducePolicy::kWarp ? warp_totals[lane] : 0u);
    if (lane == 0) tile_totals[blockIdx.x] = total;
  }
}

// 06.9, pass 3: each tile scanned from its offset (the scanned tile totals). The tile is read again:
// reduce-then-scan moves 3n words (read, read, write), against a single pass's 2n.
template <typename P>
__global__ void __launch_bounds__(P::kThreads)
    scan_tiles_kernel(const Sum* in, Sum* out, std::size_t n, const Sum* tile_offsets) {
  __shared__ WarpStaging<P> staging[P::kThreads / ReducePolicy::kWarp];
  WarpStaging<P>& mine = staging[threadIdx.x / ReducePolicy::kWarp];
  const std::size_t warp_first = warp_first_of<P>(blockIdx.x);
  Sum items[P::kItems];
  load_items(in, warp_first, n, mine, items);
  Sum tile_total = 0;
  const Sum prefix = block_exclusive_scan<P::kThreads>(sum_of(items), tile_total);
  store_prefix_sums(out, warp_first, n, mine, items, tile_offsets[blockIdx.x] + prefix);
}

// ---------------------------------------------------------------------------------------------
// 06.10: a single pass with decoupled look-back (Merrill and Garland, "Single-pass Parallel Prefix
// Scan with Decoupled Look-back", NVIDIA, 2016). Tiles are numbered in the order blocks start (an
// atomic counter, not blockIdx.x: the hardware may start block 1000 before block 10, and a tile
// whose predecessor has not started could wait forever). Each tile publishes its own total (flag
// kAggregate) as soon as it has it, then looks back over its predecessors: it adds their totals
// until it meets one that has published its inclusive prefix (flag kPrefix), then publishes its own
// prefix. A tile rarely waits for more than the tiles just before it, so the pass moves 2n words at
// memory speed. Flag and value share one 64-bit word, written and read whole: a reader can never
// see a flag with a value from before it.
enum TileFlag : unsigned long long { kInvalid = 0, kAggregate = 1, kPrefix = 2 };

__device__ inline unsigned long long tile_state(TileFlag flag, Sum value) {
  return (static_cast<unsigned long long>(flag) << 32) | value;
}
__device__ inline TileFlag flag_of(unsigned long long state) { return static_cast<TileFlag>(state >> 32); }
__device__ inline Sum value_of(unsigned long long state) { return static_cast<Sum>(state & 0xffffffffu); }

__device__ inline void publish(unsigned long long* states, std::size_t tile, TileFlag flag, Sum value) {
  atomicExch(states + tile, tile_state(flag, value));  // one 64-bit write, visible device-wide
}
__device__ inline unsigned long long read_state(const unsigned long long* states, long long tile) {
  if (tile < 0) return tile_state(kPrefix, 0);  // before the first tile: the prefix of nothing
  return *reinterpret_cast<const volatile unsigned long long*>(states + tile);  // not from a stale L1 line
}

// The sum of every element before tile `tile`, by warp 0 of its block: 32 predecessors at a time,
// one per lane, waiting while any of them has published nothing yet.
__device__ inline Sum look_back(const unsigned long long* states, long long tile) {
  const unsigned lane = threadIdx.x % ReducePolicy::kWarp;
  Sum exclusive = 0;
  for (long long window = tile - 1;; window -= ReducePolicy::kWarp) {
    const long long predecessor = window - lane;  // lane 0: the closest
    unsigned long long state = read_state(states, predecessor);
    while (__any_sync(kFullWarp, flag_of(state) == kInvalid))
      if (flag_of(state) == kInvalid) state = read_state(states, predecessor);
    const unsigned prefixes = __ballot_sync(kFullWarp, flag_of(state) == kPrefix);
    if (prefixes != 0) {
      const unsigned closest = __ffs(prefixes) - 1;  // the nearest predecessor with its prefix
      exclusive += warp_sum(lane <= closest ? value_of(state) : 0u);
      return exclusive;
    }
    exclusive += warp_sum(value_of(state));  // 32 totals: go further back
  }
}

template <typename P>
__global__ void __launch_bounds__(P::kThreads)
    scan_look_back_kernel(const Sum* in, Sum* out, std::size_t n, unsigned long long* states, unsigned* next_tile) {
  __shared__ unsigned tile_shared;
  __shared__ Sum tile_prefix;
  if (threadIdx.x == 0) tile_shared = atomicAdd(next_tile, 1u);
  __syncthreads();
  const long long tile = tile_shared;
  __shared__ WarpStaging<P> staging[P::kThreads / ReducePolicy::kWarp];
  WarpStaging<P>& mine = staging[threadIdx.x / ReducePolicy::kWarp];
  const std::size_t warp_first = warp_first_of<P>(tile);

  Sum items[P::kItems];
  load_items(in, warp_first, n, mine, items);
  Sum tile_total = 0;
  const Sum prefix = block_exclusive_scan<P::kThreads>(sum_of(items), tile_total);
  if (threadIdx.x < ReducePolicy::kWarp) {
    if (threadIdx.x == 0) publish(states, tile, tile == 0 ? kPrefix : kAggregate, tile_total);
    const Sum before = tile == 0 ? 0u : look_back(states, tile);
    if (threadIdx.x == 0) {
      if (tile > 0) publish(states, tile, kPrefix, before + tile_total);
      tile_prefix = before;
    }
  }
  __syncthreads();
  store_prefix_sums(out, warp_first, n, mine, items, tile_prefix + prefix);
}

}  // namespace
}  // namespace reduce_scan_lab
