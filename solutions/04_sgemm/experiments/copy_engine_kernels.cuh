// Lab 04 experiment: the copy engine (TMA) feeding 04.10's outer products at 04.10's tile shape,
// the first attempt at 04.11, with its variants as template parameters. Included by copy_engine.cu
// after the solution (../sgemm.cu), whose pieces it uses: 04.8's tile, thread layout and multiply,
// 04.9's slices of k, 04.10's packing of A, 04.11's pad_rows_kernel and zero_kernel.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "../blocked_steps.cuh"
#include "copy_engine.cuh"  // the lab's given wrappers
#include "given.cuh"
#include "../packed_pipeline.cuh"
#include "sgemm.h"
#include "workbook/launch.cuh"

namespace sgemm_lab {
namespace {

// The idea. 04.10 took the loads out of the registers, but every thread still
// computes the addresses of its 16-byte copies and issues them: a few percent of the issue slots,
// which the FMA units want. Hopper's copy engine (TMA) takes a whole 2D tile from one instruction
// of one thread, does the address arithmetic itself, and writes zeros where the tile hangs over
// the matrix's edge, so A's tile needs neither guards nor packing: it lands as it is in memory,
// [row][kk], 16 floats a row. Each thread then reads four k of one of its rows as one float4 (the
// same count of loads as 04.10's [kk][row]), and its eight rows are 16 apart, so that the two rows
// a warp reads at once sit in different banks. A stage is ready when its barrier has counted the
// tile pair's 16 KiB; it is free again when every warp has said so on the stage's second barrier,
// so no warp waits at a __syncthreads() for the slowest. Only the producer (thread 0, or with
// kRotate each warp's first thread in turn) waits for that, one tile behind, and issues the
// refill. Measured on the H100 at 4096^3 and 8192^3, every variant is slower than 04.10 (NOTES.md,
// "Toward 04.11"): with A in place by 12 to 22 points of cuBLAS's speed, with A packed by 1.7 to 8.
struct CopyEnginePolicy : BlockedPolicy {  // 04.8's tile, depth and outputs per thread
  static constexpr int kStages = 4;
  static constexpr int kTileFloats = kTileM * kDepth;  // A's tile, and B's: 8 KiB each
  static constexpr int kStageFloats = 2 * kTileFloats;
  static constexpr unsigned kStageBytes = kStageFloats * sizeof(float);
  static constexpr int kBarrierBytes = 2 * kStages * int(sizeof(std::uint64_t));
  static constexpr int kSharedBytes = kStages * int(kStageBytes) + kBarrierBytes;
  static constexpr int kWarps = kThreads / 32;
  static constexpr int kRowStride = kTileM / kThreadM;  // a thread's rows: ty, ty + 16, ...
  static_assert(kTileM == kTileN, "A's and B's tiles have the same size");
  static_assert(kStageBytes % copy_engine::kTileAlignment == 0, "every tile lands 128-byte aligned");
};

// How A reaches shared memory, and how a stage is handed back for refilling: copy_engine.cu
// measures the combinations (NOTES.md).
enum class AFeed {
  kInPlace,  // A's tile as it is, [row][kk]; rows 16 apart per thread
  kPacked    // 04.10's packed A, [kk][row], read as a 16 x 128 tile of the packed chunks
};
enum class Handoff {
  kStageBarriers,  // each warp arrives on the stage's "free" barrier; thread 0 waits for it
  kBlockBarrier,   // 04.10's __syncthreads() per tile
  kOneWaiter,      // thread 0 waits for the stage to land, then a __syncthreads() tells the others
  kPolling         // as kStageBarriers, but every thread polls the barrier (test_wait) instead of try_wait
};

// wait_for_phase() with test_wait, which answers at once, instead of try_wait, which may suspend
// the thread for a while: the kPolling variant.
__device__ inline void poll_for_phase(std::uint64_t* barrier, unsigned parity) {
  unsigned done = 0;
  do {
    asm volatile(
        "{\n .reg .pred complete;\n mbarrier.test_wait.parity.shared::cta.b64 complete, [%1], %2;\n"
        " selp.u32 %0, 1, 0, complete;\n}"
        : "=r"(done)
        : "r"(copy_engine::shared_address(barrier)), "r"(parity)
        : "memory");
  } while (done == 0);
}

// The 8 x 8 outer products of one tile pair with A's tile as it is, [row][kk]: the thread's rows
// are ty + 16 r. Four k at a time: one float4 per row holds A(row, kk .. kk + 3).
template <typename P, FmaOrder kOrder>
__device__ inline void multiply_row_major_tile(const float* a_tile, const float* b_tile, int tx, int ty,
                                               float (&sum)[P::kThreadM][P::kThreadN]) {
  constexpr int kHalfN = P::kTileN / 2;
#pragma unroll
  for (int k4 = 0; k4 < P::kDepth; k4 += 4) {
    float4 a_rows[P::kThreadM];
#pragma unroll
    for (int r = 0; r < P::kThreadM; ++r)
      a_rows[r] = *reinterpret_cast<const float4*>(a_tile + (ty + P::kRowStride * r) * P::kDepth + k4);
#pragma unroll
    for (int q = 0; q < 4; ++q) {
      const int kk = k4 + q;
      const float4 b_low = *reinterpret_cast<const float4*>(b_tile + kk * P::kTileN + 4 * tx);
      const float4 b_high = *reinterpret_cast<const float4*>(b_tile + kk * P::kTileN + kHalfN + 4 * tx);
      const float b_values[P::kThreadN] = {b_low.x, b_low.y, b_low.z, b_low.w, b_high.x, b_high.y, b_high.z, b_high.w};
      float a_values[P::kThreadM];
#pragma unroll
      for (int r = 0; r < P::kThreadM; ++r)
        a_values[r] = q == 0 ? a_rows[r].x : q == 1 ? a_rows[r].y : q == 2 ? a_rows[r].z : a_rows[r].w;
      outer_product<P, kOrder>(a_values, b_values, sum);
    }
  }
}

// blockIdx.z is 04.9's slice of k, tiles_per_split tiles deep. kVectorStores: n is a multiple of 4
// and C 16-byte aligned. kRotate: the refill of tile t's stage is issued by warp t % 8's first
// thread instead of always thread 0, so that no one warp carries the producer's work every tile.
template <typename P, AFeed kFeed, Handoff kHandoff, FmaOrder kOrder, bool kVectorStores, bool kRotate = false>
__global__ void __launch_bounds__(P::kThreads)
    sgemm_copy_engine_kernel(const __grid_constant__ copy_engine::TileMap a_map,
                             const __grid_constant__ copy_engine::TileMap b_map, float* __restrict__ c, int m, int n,
                             int k_tiles, int tiles_per_split, float* __restrict__ partials) {
  namespace ce = copy_engine;
  extern __shared__ __align__(128) float ring[];  // kStages x (A's tile, B's tile), then the barriers
  std::uint64_t* const landed = reinterpret_cast<std::uint64_t*>(ring + P::kStages * P::kStageFloats);
  std::uint64_t* const freed = landed + P::kStages;
  const int t = threadIdx.x;
  const int tx = t % (P::kTileN / P::kThreadN), ty = t / (P::kTileN / P::kThreadN);
  const int rb = blockIdx.y, cb = blockIdx.x;
  const int first_tile = blockIdx.z * tiles_per_split;
  const int tiles = max(0, min(k_tiles, first_tile + tiles_per_split) - first_tile);

  if (t == 0) {
    for (int s = 0; s < P::kStages; ++s) {
      ce::init_barrier(&landed[s], 1);         // thread 0's expect_bytes, and the bytes
      ce::init_barrier(&freed[s], P::kWarps);  // one arrival per warp
    }
    ce::make_barrier_inits_visible();
  }
  __syncthreads();

  // Thread 0 only: start loading tile `tile` of this block's slice into its stage.
  const auto start_loads = [&](int tile) {
    float* const a_stage = ring + (tile % P::kStages) * P::kStageFloats;
    std::uint64_t* const barrier = &landed[tile % P::kStages];
    const int kt = first_tile + tile;
    ce::expect_bytes(barrier, P::kStageBytes);  // the whole tile pair, zeros included
    if constexpr (kFeed == AFeed::kInPlace) ce::load_tile(a_stage, a_map, rb * P::kTileM, kt * P::kDepth, barrier);
    else ce::load_tile(a_stage, a_map, (rb * k_tiles + kt) * P::kDepth, 0, barrier);
    ce::load_tile(a_stage + P::kTileFloats, b_map, kt * P::kDepth, cb * P::kTileN, barrier);
  };
  if (t == 0)
    for (int tile = 0; tile < min(tiles, P::kStages); ++tile) start_loads(tile);

  float sum[P::kThreadM][P::kThreadN] = {};
  for (int tile = 0; tile < tiles; ++tile) {
    const int stage = tile % P::kStages;
    if constexpr (kHandoff == Handoff::kOneWaiter) {
      if (t == 0) ce::wait_for_phase(&landed[stage], (tile / P::kStages) % 2);
      __syncthreads();
      if (t == 0 && tile >= 1 && tile - 1 + P::kStages < tiles) start_loads(tile - 1 + P::kStages);
    } else if constexpr (kHandoff == Handoff::kPolling) {
      poll_for_phase(&landed[stage], (tile / P::kStages) % 2);
    } else {
      ce::wait_for_phase(&landed[stage], (tile / P::kStages) % 2);
    }
    if constexpr (kHandoff == Handoff::kBlockBarrier) {
      __syncthreads();  // everyone is done with tile - 1: its stage takes tile - 1 + kStages
      const int issuer = kRotate ? 32 * (tile % P::kWarps) : 0;
      if (t == issuer && tile >= 1 && tile - 1 + P::kStages < tiles) start_loads(tile - 1 + P::kStages);
    }
    const float* const a_stage = ring + stage * P::kStageFloats;
    if constexpr (kFeed == AFeed::kInPlace)
      multiply_row_major_tile<P, kOrder>(a_stage, a_stage + P::kTileFloats, tx, ty, sum);
    else
      multiply_tile<P, kOrder, P::kTileM>(a_stage, a_stage + P::kTileFloats, tx, ty, sum);
    if constexpr (kHandoff == Handoff::kStageBarriers || kHandoff == Handoff::kPolling) {
      __syncwarp();  // the whole warp has read the stage
      if (t % 32 == 0) ce::arrive(&freed[stage]);
      // Refill the stage of the tile before this one, which the other warps have most likely left
      // by now: thread 0 waits for the slowest warp only when it is more than a tile behind.
      const int issuer = kRotate ? 32 * (tile % P::kWarps) : 0;
      if (t == issuer && tile >= 1 && tile - 1 + P::kStages < tiles) {
        ce::wait_for_phase(&freed[(tile - 1) % P::kStages], ((tile - 1) / P::kStages) % 2);
        start_loads(tile - 1 + P::kStages);
      }
    }
  }

  float* const out = gridDim.z == 1 ? c : partials + std::size_t(blockIdx.z) * m * n;
  if constexpr (kFeed == AFeed::kInPlace)
    store_piece<P, kVectorStores, true>(sum, out, rb * P::kTileM, cb * P::kTileN, m, n, tx, ty);
  else
    store_piece<P, kVectorStores>(sum, out, rb * P::kTileM, cb * P::kTileN, m, n, tx, ty);
}

// The work for a problem: which operands must be copied first (the copy engine reads rows that
// start 16-byte aligned only), the tiles, the slices of k (as 04.9 chooses them), and the
// workspace: A's copy, then B's, then the partial products. The launcher and the workspace query
// both ask this one function.
struct CopyEnginePlan {
  bool pad_a = false, pad_b = false;  // copied to a pitch that is a multiple of 4
  int pitch_a = 0, pitch_b = 0;       // of A, B as the copy engine reads them
  int k_tiles = 0, row_blocks = 0, col_blocks = 0;
  int splits = 1, tiles_per_split = 0;
  std::size_t a_floats = 0, b_floats = 0, partial_floats = 0;  // in the workspace
  std::size_t workspace_bytes() const { return (a_floats + b_floats + partial_floats) * sizeof(float); }
};

template <typename P, AFeed kFeed, Handoff kHandoff, FmaOrder kOrder>
CopyEnginePlan plan_copy_engine(const GemmProblem& p) {
  CopyEnginePlan plan;
  if (p.m <= 0 || p.n <= 0 || p.k <= 0) return plan;  // nothing to multiply (or refused by validate)
  plan.k_tiles = workbook::ceil_div(p.k, P::kDepth);
  plan.row_blocks = workbook::ceil_div(p.m, P::kTileM);
  plan.col_blocks = workbook::ceil_div(p.n, P::kTileN);
  if constexpr (kFeed == AFeed::kPacked) {
    plan.a_floats = std::size_t(plan.row_blocks) * plan.k_tiles * P::kTileFloats;
  } else {
    plan.pad_a = p.k % 4 != 0 || !aligned16(p.a);
    plan.pitch_a = round_up_to_4(p.k);
    if (plan.pad_a) plan.a_floats = std::size_t(p.m) * plan.pitch_a;
  }
  plan.pad_b = p.n % 4 != 0 || !aligned16(p.b);
  plan.pitch_b = round_up_to_4(p.n);
  if (plan.pad_b) plan.b_floats = std::size_t(p.k) * plan.pitch_b;
  static const int slots =
      block_slots(sgemm_copy_engine_kernel<P, kFeed, kHandoff, kOrder, true>, P::kThreads, P::kSharedBytes);
  const int wanted = splits_to_fill_gpu<P>(p, slots);
  plan.tiles_per_split = workbook::ceil_div(plan.k_tiles, wanted);
  plan.splits = workbook::ceil_div(plan.k_tiles, plan.tiles_per_split);
  if (plan.splits > 1) plan.partial_floats = std::size_t(plan.splits) * p.m * p.n;
  return plan;
}

void pad_rows(const float* matrix, float* padded, int rows, int cols, int pitch, cudaStream_t stream) {
  workbook::launch(pad_rows_kernel, dim3(2048), dim3(256), 0, stream, matrix, padded, rows, cols, pitch);
}

// `workspace`: at least plan_copy_engine(p).workspace_bytes(), 16-byte aligned.
template <typename P, AFeed kFeed, Handoff kHandoff, FmaOrder kOrder, bool kRotate = false>
void launch_copy_engine_kernel(const GemmProblem& p, float* workspace, cudaStream_t stream) {
  const CopyEnginePlan plan = plan_copy_engine<P, kFeed, kHandoff, kOrder>(p);
  if (plan.k_tiles == 0) {  // k = 0: C = 0, nothing to copy
    workbook::launch(zero_kernel, dim3(1024), dim3(256), 0, stream, p.c, std::size_t(p.m) * p.n);
    return;
  }
  float* const a_copy = workspace;
  float* const b_copy = a_copy + plan.a_floats;
  float* const partials = b_copy + plan.b_floats;
  copy_engine::TileMap a_map, b_map;
  if constexpr (kFeed == AFeed::kPacked) {
    const bool vector_reads = p.k % 4 == 0 && aligned16(p.a);
    const auto pack_a = vector_reads ? pack_a_kernel<PipelinedPolicy, true> : pack_a_kernel<PipelinedPolicy, false>;
    workbook::launch(pack_a, dim3(plan.row_blocks * plan.k_tiles), dim3(P::kThreads), 0, stream, p.a, a_copy, p.m,
                     p.k, plan.k_tiles);
    a_map = copy_engine::make_tile_map(a_copy, plan.row_blocks * plan.k_tiles * P::kDepth, P::kTileM, P::kTileM,
                                       P::kDepth, P::kTileM);
  } else {
    const float* a = p.a;
    if (plan.pad_a) {
      pad_rows(p.a, a_copy, p.m, p.k, plan.pitch_a, stream);
      a = a_copy;
    }
    a_map = copy_engine::make_tile_map(a, p.m, p.k, plan.pad_a ? plan.pitch_a : p.k, P::kTileM, P::kDepth);
  }
  const float* b = p.b;
  if (plan.pad_b) {
    pad_rows(p.b, b_copy, p.k, p.n, plan.pitch_b, stream);
    b = b_copy;
  }
  b_map = copy_engine::make_tile_map(b, p.k, p.n, plan.pad_b ? plan.pitch_b : p.n, P::kDepth, P::kTileN);
  const bool vector_stores = p.n % 4 == 0 && aligned16(p.c);
  const auto kernel = vector_stores ? sgemm_copy_engine_kernel<P, kFeed, kHandoff, kOrder, true, kRotate>
                                    : sgemm_copy_engine_kernel<P, kFeed, kHandoff, kOrder, false, kRotate>;
  workbook::launch(kernel, dim3(plan.col_blocks, plan.row_blocks, plan.splits), dim3(P::kThreads), P::kSharedBytes,
                   stream, a_map, b_map, p.c, p.m, p.n, plan.k_tiles, plan.tiles_per_split,
                   plan.splits > 1 ? partials : nullptr);
  if (plan.splits > 1) sum_splits(p, partials, plan.splits, stream);
}

}  // namespace
}  // namespace sgemm_lab
