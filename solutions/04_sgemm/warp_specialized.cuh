// Lab 04_sgemm, reference solution, step 04.11: the copy engine and a producer warpgroup. Part of
// sgemm.cu, built on the pieces of blocked_steps.cuh (the outer product, 04.9's slices of k) and
// packed_pipeline.cuh (04.10's packing of A).
#pragma once

#include <cstddef>
#include <cstdint>

#include "blocked_steps.cuh"
#include "copy_engine.cuh"
#include "given.cuh"
#include "packed_pipeline.cuh"
#include "sgemm.h"
#include "workbook/launch.cuh"

namespace sgemm_lab {
namespace {

// 04.11: Volkov's last step, with Hopper's copy engine doing the loading. cuBLAS's kernel for this
// problem computes 256 x 128 tiles with 8 warps, 16 x 8 outputs per thread, one block per SM:
// 12.5% occupancy, 254 registers a thread. 04.8 tried that shape and lost (66% of cuBLAS): its
// threads also loaded the tiles, through registers, and at 255 registers nothing was left to hide
// the loads behind. Here the threads that multiply never load from global memory. A fourth
// warpgroup asks the copy engine for each tile pair (two tensor-map loads, one instruction each,
// addresses and edges computed by the engine) and hands each stage over through mbarriers:
// "landed" counts the stage's bytes, "freed" counts the consumer warps done reading it. No
// __syncthreads() in the loop: a consumer waits only for its data, the producer only for a stage.
// The producers need almost no registers and give theirs to the consumers (setmaxnreg, sm_90a),
// so that each consumer thread holds its 128 sums and one k's 24 operands with room to spare.
// Each stage holds 16 k of A (packed as 04.10 packs it, 256 rows a chunk) and of B (read in place).
template <int kDepthK = 16, int kStageCount = 4, int kProducerWarpCount = 4>
struct SpecializedPolicy {
  static constexpr int kTileM = 256, kTileN = 128, kDepth = kDepthK, kStages = kStageCount;
  static constexpr int kThreadM = 16, kThreadN = 8;  // rows: 4 quads 16 apart; columns: 2 quads 32 apart
  static constexpr int kWarpM = 64, kWarpN = 64;     // a consumer warp's piece of the tile, 4 x 8 threads
  static constexpr int kConsumerWarps = (kTileM / kWarpM) * (kTileN / kWarpN);  // 8
  static constexpr int kProducerWarps = kProducerWarpCount;  // a warpgroup, so that it can give registers
  static constexpr int kThreads = 32 * (kConsumerWarps + kProducerWarps);
  // ptxas gives each of the 384 threads 65536 / 384 = 168 registers (rounded to 8); the producers
  // give 128 back, which lifts the consumers to 232: 256 x 232 + 128 x 40 = 384 x 168.
  static constexpr int kProducerRegisters = 40, kConsumerRegisters = 232;
  static constexpr int kChunkFloats = kTileM * kDepth;  // one packed tile of A (pack_a_kernel's name)
  static constexpr int kTileFloatsA = kChunkFloats, kTileFloatsB = kDepth * kTileN;
  static constexpr int kStageFloats = kTileFloatsA + kTileFloatsB;
  static constexpr unsigned kStageBytes = kStageFloats * sizeof(float);
  static constexpr int kSharedBytes = kStages * int(kStageBytes) + 2 * kStages * int(sizeof(std::uint64_t));
  static_assert(kThreadM * kThreadN * 32 == kWarpM * kWarpN, "a warp's 32 threads cover its piece");
  static_assert(kProducerWarps != 4 || 32 * (kConsumerWarps * kConsumerRegisters + kProducerWarps * kProducerRegisters) <=
                                           kThreads * (65536 / kThreads / 8 * 8),
                "the registers handed over are the ones the block was given");
  static_assert(kStageBytes % copy_engine::kTileAlignment == 0, "every tile lands 128-byte aligned");
};

// One k's operands from a stage: A's column [kk][row] at 4 quads of rows 16 apart, B's row
// [kk][col] at 2 quads 32 apart. In a warp the 4 x 8 threads read 4 (A) and 8 (B) distinct float4,
// contiguous: one shared-memory wavefront each, the rest broadcasts.
template <typename P>
__device__ inline void load_operands(const float* a_tile, const float* b_tile, int kk, int a_first, int b_first,
                                     float (&a_values)[P::kThreadM], float (&b_values)[P::kThreadN]) {
#pragma unroll
  for (int q = 0; q < P::kThreadM / 4; ++q) {
    const float4 v = *reinterpret_cast<const float4*>(a_tile + kk * P::kTileM + a_first + 16 * q);
    a_values[4 * q] = v.x, a_values[4 * q + 1] = v.y, a_values[4 * q + 2] = v.z, a_values[4 * q + 3] = v.w;
  }
#pragma unroll
  for (int h = 0; h < P::kThreadN / 4; ++h) {
    const float4 v = *reinterpret_cast<const float4*>(b_tile + kk * P::kTileN + b_first + 32 * h);
    b_values[4 * h] = v.x, b_values[4 * h + 1] = v.y, b_values[4 * h + 2] = v.z, b_values[4 * h + 3] = v.w;
  }
}

// blockIdx.z is 04.9's slice of k, tiles_per_split tiles deep. kVectorStores: n is a multiple of 4
// and C 16-byte aligned. a_map reads packed A as 16 x 256 tiles; b_map reads B as 16 x 128 tiles.
template <typename P, bool kVectorStores>
__global__ void __launch_bounds__(P::kThreads, 1)
    sgemm_warp_specialized_kernel(const __grid_constant__ copy_engine::TileMap a_map,
                                  const __grid_constant__ copy_engine::TileMap b_map, float* __restrict__ c, int m,
                                  int n, int k_tiles, int tiles_per_split, float* __restrict__ partials) {
  namespace ce = copy_engine;
  extern __shared__ __align__(128) float ring[];  // kStages x (A's tile [kk][row], B's [kk][col]), barriers
  std::uint64_t* const landed = reinterpret_cast<std::uint64_t*>(ring + P::kStages * P::kStageFloats);
  std::uint64_t* const freed = landed + P::kStages;
  const int t = threadIdx.x, warp = t / 32, lane = t % 32;
  const int rb = blockIdx.y, cb = blockIdx.x;
  const int first_tile = blockIdx.z * tiles_per_split;
  const int tiles = max(0, min(k_tiles, first_tile + tiles_per_split) - first_tile);

  if (t == 0) {
    for (int s = 0; s < P::kStages; ++s) {
      ce::init_barrier(&landed[s], 1);                 // the producer's expect_bytes, and the bytes
      ce::init_barrier(&freed[s], P::kConsumerWarps);  // one arrival per consumer warp
    }
    ce::make_barrier_inits_visible();
  }
  __syncthreads();  // the last block-wide barrier: from here the two roles meet only at mbarriers

  if (warp >= P::kConsumerWarps) {  // the producer warpgroup; one thread does the work
    if constexpr (P::kProducerWarps == 4) ce::give_registers<P::kProducerRegisters>();
    if (t == 32 * P::kConsumerWarps) {
      for (int tile = 0; tile < tiles; ++tile) {
        const int stage = tile % P::kStages;
        // The stage's previous tile (tile - kStages) must have been read by every consumer warp.
        if (tile >= P::kStages) ce::wait_for_phase(&freed[stage], (tile / P::kStages - 1) % 2);
        float* const a_tile = ring + stage * P::kStageFloats;
        const int kt = first_tile + tile;
        ce::expect_bytes(&landed[stage], P::kStageBytes);  // zeros past the edges count too
        ce::load_tile(a_tile, a_map, (rb * k_tiles + kt) * P::kDepth, 0, &landed[stage]);
        ce::load_tile(a_tile + P::kTileFloatsA, b_map, kt * P::kDepth, cb * P::kTileN, &landed[stage]);
      }
    }
    return;
  }
  if constexpr (P::kProducerWarps == 4) ce::take_registers<P::kConsumerRegisters>();

  // A consumer thread: rows warp_row + 4 tm + 16 q + (0..3), columns warp_col + 4 tn + 32 h + (0..3).
  const int warp_row = warp % (P::kTileM / P::kWarpM) * P::kWarpM;
  const int warp_col = warp / (P::kTileM / P::kWarpM) * P::kWarpN;
  const int a_first = warp_row + 4 * (lane / 8), b_first = warp_col + 4 * (lane % 8);

  float sum[P::kThreadM][P::kThreadN] = {};
  for (int tile = 0; tile < tiles; ++tile) {
    const int stage = tile % P::kStages;
    ce::wait_for_phase(&landed[stage], (tile / P::kStages) % 2);
    const float* const a_tile = ring + stage * P::kStageFloats;
#pragma unroll
    for (int kk = 0; kk < P::kDepth; ++kk) {
      float a_values[P::kThreadM], b_values[P::kThreadN];
      load_operands<P>(a_tile, a_tile + P::kTileFloatsA, kk, a_first, b_first, a_values, b_values);
      outer_product<P, FmaOrder::kRowByRow>(a_values, b_values, sum);
    }
    __syncwarp();  // the whole warp has read the stage
    if (lane == 0) ce::arrive(&freed[stage]);
  }

  float* const out = gridDim.z == 1 ? c : partials + std::size_t(blockIdx.z) * m * n;
#pragma unroll
  for (int r = 0; r < P::kThreadM; ++r) {
    const int i = rb * P::kTileM + a_first + 16 * (r / 4) + r % 4;
    if (i >= m) continue;
#pragma unroll
    for (int h = 0; h < P::kThreadN / 4; ++h) {
      const int j = cb * P::kTileN + b_first + 32 * h;
      if constexpr (kVectorStores) {
        if (j < n)
          *reinterpret_cast<float4*>(out + at(i, j, n)) =
              make_float4(sum[r][4 * h], sum[r][4 * h + 1], sum[r][4 * h + 2], sum[r][4 * h + 3]);
      } else {
#pragma unroll
        for (int e = 0; e < 4; ++e)
          if (j + e < n) out[at(i, j + e, n)] = sum[r][4 * h + e];
      }
    }
  }
}

// B copied to rows `pitch` floats apart (a multiple of 4), for when its rows do not start on
// 16-byte boundaries, which the copy engine needs.
__global__ void pad_rows_kernel(const float* __restrict__ matrix, float* __restrict__ padded, int rows, int cols,
                                int pitch) {
  const std::size_t count = std::size_t(rows) * cols;
  for (std::size_t e = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; e < count;
       e += std::size_t(gridDim.x) * blockDim.x)
    padded[std::size_t(e / cols) * pitch + e % cols] = matrix[e];
}

__global__ void zero_kernel(float* __restrict__ c, std::size_t count) {  // k = 0: C = 0
  for (std::size_t e = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; e < count;
       e += std::size_t(gridDim.x) * blockDim.x)
    c[e] = 0.0f;
}

constexpr int round_up_to_4(int x) { return (x + 3) / 4 * 4; }

// 04.11's work for a problem: the tiles, the slices of k (as 04.9 chooses them), whether B must be
// copied to 16-byte aligned rows first, and the workspace: packed A, then B's copy, then the
// partial products. The launcher and the workspace query both ask this one function.
struct SpecializedPlan {
  int k_tiles = 0, row_blocks = 0, col_blocks = 0;
  int splits = 1, tiles_per_split = 0;
  bool pad_b = false;  // B copied to rows pitch_b floats apart
  int pitch_b = 0;
  std::size_t packed_a_floats = 0, padded_b_floats = 0, partial_floats = 0;
  std::size_t workspace_bytes() const { return (packed_a_floats + padded_b_floats + partial_floats) * sizeof(float); }
};

template <typename P>
SpecializedPlan plan_warp_specialized(const GemmProblem& p) {
  SpecializedPlan plan;
  if (p.m <= 0 || p.n <= 0 || p.k <= 0) return plan;  // nothing to multiply (or refused by validate)
  plan.k_tiles = workbook::ceil_div(p.k, P::kDepth);
  plan.row_blocks = workbook::ceil_div(p.m, P::kTileM);
  plan.col_blocks = workbook::ceil_div(p.n, P::kTileN);
  plan.packed_a_floats = std::size_t(plan.row_blocks) * plan.k_tiles * P::kTileFloatsA;
  plan.pad_b = p.n % 4 != 0 || !aligned16(p.b);
  plan.pitch_b = plan.pad_b ? round_up_to_4(p.n) : p.n;
  if (plan.pad_b) plan.padded_b_floats = std::size_t(p.k) * plan.pitch_b;
  static const int slots = block_slots(sgemm_warp_specialized_kernel<P, true>, P::kThreads, P::kSharedBytes);
  const int wanted = splits_to_fill_gpu<P>(p, slots);
  plan.tiles_per_split = workbook::ceil_div(plan.k_tiles, wanted);
  plan.splits = workbook::ceil_div(plan.k_tiles, plan.tiles_per_split);
  if (plan.splits > 1) plan.partial_floats = std::size_t(plan.splits) * p.m * p.n;
  return plan;
}

// Describe A's packed copy and B (or its aligned copy) to the copy engine, pack A (04.10's kernel,
// 256-row chunks), copy B to aligned rows if it must be, then the product, split across k when C's
// tiles leave SMs idle, then the sum of the slices. The maps come first, as a textbook writes them:
// a map describes where a matrix will be, not what it holds. `workspace`: at least
// plan_warp_specialized(p).workspace_bytes(), 16-byte aligned.
template <typename P>
void launch_warp_specialized(const GemmProblem& p, float* workspace, cudaStream_t stream) {
  const SpecializedPlan plan = plan_warp_specialized<P>(p);
  if (plan.k_tiles == 0) {
    workbook::launch(zero_kernel, dim3(1024), dim3(256), 0, stream, p.c, std::size_t(p.m) * p.n);
    return;
  }
  float* const packed_a = workspace;
  float* const padded_b = packed_a + plan.packed_a_floats;
  float* const partials = padded_b + plan.padded_b_floats;
  const float* const b = plan.pad_b ? padded_b : p.b;
  // Packed A is a column of chunks, each 16 rows of 256 floats: one tile of the map per chunk.
  const copy_engine::TileMap a_map = copy_engine::make_tile_map(
      packed_a, plan.row_blocks * plan.k_tiles * P::kDepth, P::kTileM, P::kTileM, P::kDepth, P::kTileM);
  const copy_engine::TileMap b_map = copy_engine::make_tile_map(b, p.k, p.n, plan.pitch_b, P::kDepth, P::kTileN);
  const bool vector_reads = p.k % 4 == 0 && aligned16(p.a);
  workbook::launch(vector_reads ? pack_a_kernel<P, true> : pack_a_kernel<P, false>,
                   dim3(plan.row_blocks * plan.k_tiles), dim3(P::kThreads), 0, stream, p.a, packed_a, p.m, p.k,
                   plan.k_tiles);
  if (plan.pad_b)
    workbook::launch(pad_rows_kernel, dim3(2048), dim3(256), 0, stream, p.b, padded_b, p.k, p.n, plan.pitch_b);
  const bool vector_stores = p.n % 4 == 0 && aligned16(p.c);
  workbook::launch(vector_stores ? sgemm_warp_specialized_kernel<P, true> : sgemm_warp_specialized_kernel<P, false>,
                   dim3(plan.col_blocks, plan.row_blocks, plan.splits), dim3(P::kThreads), P::kSharedBytes, stream,
                   a_map, b_map, p.c, p.m, p.n, plan.k_tiles, plan.tiles_per_split,
                   plan.splits > 1 ? partials : nullptr);
  if (plan.splits > 1) sum_splits(p, partials, plan.splits, stream);
}

}  // namespace
}  // namespace sgemm_lab
