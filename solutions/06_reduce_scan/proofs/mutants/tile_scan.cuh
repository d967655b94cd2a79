// A single-pass tiled scan at CUB's speed, with the two parts the look-back mutants get wrong left
// open: how a block finds its tile (TileOrder) and how it finds the sum of everything before it
// (a LookBack). The look-back and tile-order mutants each supply one wrong part, and their controls
// the same part fixed; the defence mutants use the correct parts. The tile's loads, block-wide scan
// and stores are CUB's block primitives: the mutants are the grader's code, not a student's, and
// none of their defects is there.
//
// 256 threads, 16 ints each: 4096 ints per tile. A whole tile of 16-byte aligned arrays moves as
// uint4 rows (warp-striped loads and stores of 512 bytes, transposed through shared memory); the
// last tile, or a misaligned array, one int at a time.
#pragma once

#include <cub/block/block_load.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/block/block_store.cuh>

#include <cstddef>
#include <cstdint>

#include "given.cuh"
#include "workbook/launch.cuh"

namespace reduce_scan_mutant {

constexpr int kTileThreads = 256;
constexpr int kTileItems = 16;
constexpr int kTileInts = kTileThreads * kTileItems;
constexpr unsigned kFullWarp = 0xffffffffu;

inline std::size_t tiles_of(std::size_t n) { return (n + kTileInts - 1) / kTileInts; }

// The workspace of every mutant's scan: 16 bytes of look-back state per tile (each look-back lays
// them out its own way), then the counter that hands out tiles. All of it zeroed before the launch.
struct ScanWorkspace {
  unsigned long long* states;  // 2 per tile
  unsigned* next_tile;
};
inline std::size_t scan_workspace_bytes_for(std::size_t n) { return (2 * tiles_of(n) + 1) * sizeof(unsigned long long); }

// ---------------------------------------------------------------------------------------------
// How a block finds its tile.

// Right: in the order blocks start, from a counter. A tile's predecessors have all started.
struct TilesByCounter {
  __device__ static unsigned take(const ScanWorkspace& w) { return atomicAdd(w.next_tile, 1u); }
};

// ---------------------------------------------------------------------------------------------
// The look-back that is right: tile states of one 64-bit word each (flag in the high half, value in
// the low), written and read whole, so no reader sees a flag with a value from before it. Warp 0
// reads 32 predecessors at once, as the reference solution and CUB do.
enum : unsigned long long { kNothingYet = 0, kAggregate = 1, kPrefix = 2 };

__device__ inline unsigned long long tile_state(unsigned long long flag, unsigned value) { return (flag << 32) | value; }
__device__ inline unsigned long long flag_of(unsigned long long state) { return state >> 32; }

struct WholeWordLookBack {
  ScanWorkspace w;
  long long tile;

  __device__ void publish(unsigned long long flag, unsigned value) const { atomicExch(w.states + tile, tile_state(flag, value)); }
  __device__ unsigned long long read(long long predecessor) const {
    if (predecessor < 0) return tile_state(kPrefix, 0);
    return *reinterpret_cast<const volatile unsigned long long*>(w.states + predecessor);
  }
  // Called by warp 0 with the tile's total; lane 0's answer is the sum of everything before the tile.
  __device__ unsigned operator()(unsigned tile_total) const {
    const unsigned lane = threadIdx.x % 32;
    if (lane == 0) publish(tile == 0 ? kPrefix : kAggregate, tile_total);
    unsigned before = 0;
    for (long long nearest = tile - 1; tile > 0; nearest -= 32) {
      unsigned long long state = read(nearest - lane);
      while (__any_sync(kFullWarp, flag_of(state) == kNothingYet))
        if (flag_of(state) == kNothingYet) state = read(nearest - lane);
      const unsigned prefixes = __ballot_sync(kFullWarp, flag_of(state) == kPrefix);
      const unsigned last = prefixes != 0 ? __ffs(prefixes) - 1 : 31;  // lanes past it are further back
      before += __reduce_add_sync(kFullWarp, lane <= last ? static_cast<unsigned>(state) : 0u);
      if (prefixes != 0) break;
    }
    if (lane == 0 && tile > 0) publish(kPrefix, before + tile_total);
    return before;
  }
};

// ---------------------------------------------------------------------------------------------
// The tile itself.

using VectorLoad = cub::BlockLoad<uint4, kTileThreads, kTileItems / 4, cub::BLOCK_LOAD_WARP_TRANSPOSE>;
using VectorStore = cub::BlockStore<uint4, kTileThreads, kTileItems / 4, cub::BLOCK_STORE_WARP_TRANSPOSE>;
using ScalarLoad = cub::BlockLoad<unsigned, kTileThreads, kTileItems, cub::BLOCK_LOAD_WARP_TRANSPOSE>;
using ScalarStore = cub::BlockStore<unsigned, kTileThreads, kTileItems, cub::BLOCK_STORE_WARP_TRANSPOSE>;
using ThreadTotalsScan = cub::BlockScan<unsigned, kTileThreads, cub::BLOCK_SCAN_WARP_SCANS>;

union TileStorage {
  VectorLoad::TempStorage vector_load;
  VectorStore::TempStorage vector_store;
  ScalarLoad::TempStorage scalar_load;
  ScalarStore::TempStorage scalar_store;
  ThreadTotalsScan::TempStorage scan;
};

__device__ inline bool aligned16(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; }

template <typename TileOrder, typename LookBack>
__global__ void tile_scan_kernel(const unsigned* in, unsigned* out, std::size_t n, ScanWorkspace w) {
  __shared__ TileStorage storage;
  __shared__ unsigned tile_shared;
  if (threadIdx.x == 0) tile_shared = TileOrder::take(w);
  __syncthreads();
  const long long tile = tile_shared;
  const std::size_t first = static_cast<std::size_t>(tile) * kTileInts;
  const bool rows = first + kTileInts <= n && aligned16(in) && aligned16(out);  // first is a multiple of 16 bytes
  const int valid = static_cast<int>(n - first < std::size_t(kTileInts) ? n - first : kTileInts);

  alignas(16) unsigned items[kTileItems];  // also read as four uint4
  if (rows) {
    VectorLoad(storage.vector_load).Load(reinterpret_cast<const uint4*>(in + first), reinterpret_cast<uint4(&)[kTileItems / 4]>(items));
  } else {
    ScalarLoad(storage.scalar_load).Load(in + first, items, valid, 0u);
  }
  __syncthreads();
  unsigned thread_total = 0;
  for (int j = 0; j < kTileItems; ++j) thread_total += items[j];
  unsigned running = 0;
  LookBack look_back{w, tile};
  ThreadTotalsScan(storage.scan).ExclusiveSum(thread_total, running, look_back);  // plus the tile's prefix
  __syncthreads();
  for (int j = 0; j < kTileItems; ++j) {
    const unsigned item = items[j];
    items[j] = running;
    running += item;
  }
  if (rows) {
    VectorStore(storage.vector_store).Store(reinterpret_cast<uint4*>(out + first), reinterpret_cast<uint4(&)[kTileItems / 4]>(items));
  } else {
    ScalarStore(storage.scalar_store).Store(out + first, items, valid);
  }
}

// Clears the workspace and launches one block per tile on `stream`.
template <typename TileOrder, typename LookBack>
void tile_scan(const reduce_scan_lab::SumProblem& p, cudaStream_t stream, const char* name) {
  reduce_scan_lab::validate(p, name, reduce_scan_lab::Output::kPrefixSums);
  if (p.n == 0) return;
  const std::size_t bytes = scan_workspace_bytes_for(p.n);
  auto* const states = static_cast<unsigned long long*>(reduce_scan_lab::workspace_of(p, name, bytes));
  CUDA_CHECK(cudaMemsetAsync(states, 0, bytes, stream));
  const ScanWorkspace w{states, reinterpret_cast<unsigned*>(states + 2 * tiles_of(p.n))};
  workbook::launch(tile_scan_kernel<TileOrder, LookBack>, dim3(static_cast<unsigned>(tiles_of(p.n))), dim3(kTileThreads), 0,
                   stream, reinterpret_cast<const unsigned*>(p.in), reinterpret_cast<unsigned*>(p.out), p.n, w);
}

// ---------------------------------------------------------------------------------------------
// A correct sum, for the defence mutants: a grid the size of the GPU, wide loads where aligned, one
// atomic add per warp.
__global__ void grid_sum_kernel(const unsigned* in, unsigned* out, std::size_t n) {
  const std::size_t threads = std::size_t(gridDim.x) * blockDim.x, me = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
  unsigned sum = 0;
  std::size_t head = 0;  // ints before the first 16-byte boundary, added one by one
  while (head < n && !aligned16(in + head)) ++head;
  if (me < head) sum += in[me];
  const std::size_t vectors = (n - head) / 4;
  for (std::size_t v = me; v < vectors; v += threads) {
    const uint4 x = reinterpret_cast<const uint4*>(in + head)[v];
    sum += x.x + x.y + x.z + x.w;
  }
  for (std::size_t i = head + 4 * vectors + me; i < n; i += threads) sum += in[i];
  sum = __reduce_add_sync(kFullWarp, sum);
  if (threadIdx.x % 32 == 0) atomicAdd(out, sum);
}

// Adds in[0] + ... + in[n - 1] to *out.
inline void add_sum(const std::int32_t* in, std::size_t n, std::int32_t* out, cudaStream_t stream) {
  if (n == 0) return;
  int sms = 0, device = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  workbook::launch(grid_sum_kernel, dim3(4 * sms), dim3(512), 0, stream, reinterpret_cast<const unsigned*>(in),
                   reinterpret_cast<unsigned*>(out), n);
}

inline void grid_sum(const reduce_scan_lab::SumProblem& p, cudaStream_t stream, const char* name) {
  reduce_scan_lab::validate(p, name, reduce_scan_lab::Output::kOneSum);
  CUDA_CHECK(cudaMemsetAsync(p.out, 0, sizeof(std::int32_t), stream));
  add_sum(p.in, p.n, p.out, stream);
}

}  // namespace reduce_scan_mutant
