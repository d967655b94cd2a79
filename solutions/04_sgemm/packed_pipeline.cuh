// Lab 04_sgemm, reference solution, step 04.10: packed operands and a cp.async pipeline. Part of
// sgemm.cu, built on the pieces of blocked_steps.cuh (04.8's tile, thread layout and multiply).
#pragma once

#include <algorithm>
#include <cstddef>

#include "blocked_steps.cuh"
#include "cp_async.cuh"
#include "given.cuh"
#include "sgemm.h"
#include "workbook/launch.cuh"

namespace sgemm_lab {
namespace {

// 04.10: packed operands and a cp.async pipeline. 04.8 meant its loads of the next tile to be in
// flight during the multiply, but they pass through registers, and ptxas, short of registers, moved
// them down to just before the stores (NOTES.md shows the SASS): warps wait on global memory every
// tile. cp.async (sm_80 and later) copies global memory straight into shared memory in the
// background, no register in between, so nothing can be moved. It copies 4, 8 or 16 bytes as they
// are, though, and A's tile must land transposed (04.7). So first pack A, the way GotoBLAS packs
// its panels: a small kernel rewrites A once, tile by tile, each 128 x 16 tile transposed into a
// contiguous 8 KiB chunk, zeros past the edges. The product kernel then copies each tile of A as
// 512 16-byte pieces, two per thread, with no guards and no address arithmetic beyond a pointer
// that moves on by 8 KiB per tile. B's tile rows are already contiguous: it is copied in place when
// its rows start on 16-byte boundaries (n a multiple of 4, B aligned), and packed like A, without
// the transposition, when they do not. Packing costs a read and a write of A (and of B when it is
// packed): about 2% of the time at 4096^3 (NOTES.md), against the 12 points of cuBLAS's speed the
// step wins there, and more at shapes like 4095 x 4097 x 4093, where 04.8 reads single floats.
// The pipeline keeps kStages tiles in shared memory: while tile t is multiplied, the copies of
// tiles t + 1 and t + 2 are in flight. One barrier per tile, as in 04.8.
struct PipelinedPolicy : BlockedPolicy {  // 04.8's tile, depth and thread layout
  static constexpr int kStages = 3;       // 2 and 4 measured no faster (NOTES.md)
  static constexpr int kChunkFloats = kDepth * kTileM;  // one packed tile of A: 8 KiB
  static constexpr int kStageFloats = kDepth * (kTileM + kTileN);
  static constexpr int kSharedBytes = kStages * kStageFloats * int(sizeof(float));
  static constexpr int kCopies = kChunkFloats / 4 / kThreads;  // 16-byte copies per thread per operand
  static_assert(kTileM == kTileN, "A's and B's tiles have the same size: the same copies for both");
  static_assert(kCopies * 4 * kThreads == kChunkFloats, "every thread copies the same number of pieces");
};

// Packed A: chunk (row block rb, k tile kt), at (rb * k_tiles + kt) * kChunkFloats, holds
// A(rb * kTileM + row, kt * kDepth + kk) at [kk][row]; zeros past m and k. One block per chunk:
// it reads the 128 x 16 piece of A (as float4 when rows start 16-byte aligned), transposes it in
// shared memory and writes the chunk in one contiguous sweep.
template <typename P, bool kVectorReads>
__global__ void __launch_bounds__(P::kThreads)
    pack_a_kernel(const float* __restrict__ a, float* __restrict__ packed, int m, int k, int k_tiles) {
  __shared__ float tile[P::kDepth][P::kTileM + 1];  // +1: the transposed writes spread over the banks
  const int rb = blockIdx.x / k_tiles, kt = blockIdx.x % k_tiles, t = threadIdx.x;
  const int first_row = rb * P::kTileM, first_k = kt * P::kDepth;
  if constexpr (kVectorReads) {
    for (int e = t; e < P::kTileM * P::kDepth / 4; e += P::kThreads) {
      const int row = e / (P::kDepth / 4), q = e % (P::kDepth / 4);
      const float4 v = load4<true>(a, k, first_row + row, first_k + 4 * q, m, k);
      tile[4 * q + 0][row] = v.x;
      tile[4 * q + 1][row] = v.y;
      tile[4 * q + 2][row] = v.z;
      tile[4 * q + 3][row] = v.w;
    }
  } else {
    for (int e = t; e < P::kTileM * P::kDepth; e += P::kThreads) {
      const int row = e / P::kDepth, kk = e % P::kDepth;
      tile[kk][row] = (first_row + row < m && first_k + kk < k) ? a[at(first_row + row, first_k + kk, k)] : 0.0f;
    }
  }
  __syncthreads();
  float4* const chunk = reinterpret_cast<float4*>(packed + std::size_t(blockIdx.x) * P::kChunkFloats);
  for (int e = t; e < P::kChunkFloats / 4; e += P::kThreads) {
    const int kk = e / (P::kTileM / 4), row = 4 * (e % (P::kTileM / 4));
    chunk[e] = make_float4(tile[kk][row], tile[kk][row + 1], tile[kk][row + 2], tile[kk][row + 3]);
  }
}

// Packed B, for when its rows are not 16-byte aligned: chunk (column block cb, k tile kt), at
// (cb * k_tiles + kt) * kChunkFloats, holds B(kt * kDepth + kk, cb * kTileN + col) at [kk][col].
template <typename P>
__global__ void __launch_bounds__(P::kThreads)
    pack_b_kernel(const float* __restrict__ b, float* __restrict__ packed, int k, int n, int k_tiles) {
  const int cb = blockIdx.x / k_tiles, kt = blockIdx.x % k_tiles;
  float* const chunk = packed + std::size_t(blockIdx.x) * P::kChunkFloats;
  for (int e = threadIdx.x; e < P::kChunkFloats; e += P::kThreads) {
    const int kk = e / P::kTileN, col = e % P::kTileN;
    const int i = kt * P::kDepth + kk, j = cb * P::kTileN + col;
    chunk[e] = (i < k && j < n) ? b[at(i, j, n)] : 0.0f;
  }
}

// kAligned: n is a multiple of 4 and B and C are 16-byte aligned, so B is copied in place and C is
// written as float4; otherwise `b` is packed B and C is written float by float. blockIdx.z is
// 04.9's slice of k, tiles_per_split tiles deep.
template <typename P, FmaOrder kOrder, bool kAligned>
__global__ void __launch_bounds__(P::kThreads)
    sgemm_pipelined_kernel(const float* __restrict__ packed_a, const float* __restrict__ b, float* __restrict__ c,
                           int m, int n, int k, int k_tiles, int tiles_per_split, float* __restrict__ partials) {
  extern __shared__ __align__(16) float stages[];  // kStages x (A's tile [kk][row], B's tile [kk][col])
  const int t = threadIdx.x;
  const int tx = t % (P::kTileN / P::kThreadN), ty = t / (P::kTileN / P::kThreadN);
  const int rb = blockIdx.y, cb = blockIdx.x;
  const int first_tile = blockIdx.z * tiles_per_split;
  const int tiles = max(0, min(k_tiles, first_tile + tiles_per_split) - first_tile);

  const float* const a_chunks = packed_a + (std::size_t(rb) * k_tiles + first_tile) * P::kChunkFloats;
  // Start copying tile `tile` of this block's slice into its stage; one commit group per tile.
  const auto start_copies = [&](int tile) {
    float* const a_stage = stages + (tile % P::kStages) * P::kStageFloats;
    float* const b_stage = a_stage + P::kChunkFloats;
#pragma unroll
    for (int l = 0; l < P::kCopies; ++l) {
      const int e = 4 * (t + l * P::kThreads);  // this copy's first float in the tile
      copy_16_bytes(a_stage + e, a_chunks + std::size_t(tile) * P::kChunkFloats + e);
      if constexpr (kAligned) {
        const int kk = e / P::kTileN, col = e % P::kTileN;
        const int i = (first_tile + tile) * P::kDepth + kk, j = cb * P::kTileN + col;
        const bool inside = i < k && j < n;  // n % 4 == 0: the 4 floats are all in, or all out
        copy_16_bytes(b_stage + e, inside ? b + at(i, j, n) : b, inside);
      } else {  // b is packed B
        copy_16_bytes(b_stage + e, b + (std::size_t(cb) * k_tiles + first_tile + tile) * P::kChunkFloats + e);
      }
    }
    commit_copies();
  };

  float sum[P::kThreadM][P::kThreadN] = {};
  // Fill the pipeline: tiles 0 .. kStages - 2 in flight. (A group is committed even when there is
  // no tile to copy, so that "all but the newest kStages - 2 groups" always means "this tile".)
#pragma unroll
  for (int tile = 0; tile < P::kStages - 1; ++tile) {
    if (tile < tiles) start_copies(tile);
    else commit_copies();
  }
  for (int tile = 0; tile < tiles; ++tile) {
    wait_for_copies<P::kStages - 2>();  // this thread's copies of `tile` have landed
    __syncthreads();  // everyone's have; and everyone is done with tile - 1, whose stage is refilled next
    if (tile + P::kStages - 1 < tiles) start_copies(tile + P::kStages - 1);
    else commit_copies();
    const float* const a_stage = stages + (tile % P::kStages) * P::kStageFloats;
    multiply_tile<P, kOrder, P::kTileM>(a_stage, a_stage + P::kChunkFloats, tx, ty, sum);
  }

  float* const out = gridDim.z == 1 ? c : partials + std::size_t(blockIdx.z) * m * n;
  store_piece<P, kAligned>(sum, out, rb * P::kTileM, cb * P::kTileN, m, n, tx, ty);
}

// Pack A (and B when it cannot be copied in place), then the pipelined product, split across k
// when C's tiles leave block slots idle (04.9), then the sum of the slices.

// 04.10's work for a problem: whether B is copied in place, the tiles, the slices of k (as 04.9
// chooses them), and the workspace: packed A, then packed B (when B is packed), then the partial
// products (when k is split). The launcher and the workspace query both ask this one function.
struct PipelinePlan {
  bool aligned = false;  // n a multiple of 4, B and C 16-byte aligned: B copied in place, C stored as float4
  int k_tiles = 0, row_blocks = 0, col_blocks = 0;
  int splits = 1, tiles_per_split = 0;
  std::size_t packed_a_floats = 0, packed_b_floats = 0, partial_floats = 0;
  std::size_t workspace_bytes() const { return (packed_a_floats + packed_b_floats + partial_floats) * sizeof(float); }
};

template <typename P, FmaOrder kOrder>
PipelinePlan plan_pipeline(const GemmProblem& p) {
  PipelinePlan plan;
  if (p.m <= 0 || p.n <= 0 || p.k < 0) return plan;  // nothing to do (or refused by validate)
  plan.aligned = p.n % 4 == 0 && aligned16(p.b) && aligned16(p.c);
  plan.k_tiles = workbook::ceil_div(p.k, P::kDepth);
  plan.row_blocks = workbook::ceil_div(p.m, P::kTileM);
  plan.col_blocks = workbook::ceil_div(p.n, P::kTileN);
  plan.packed_a_floats = std::size_t(plan.row_blocks) * plan.k_tiles * P::kChunkFloats;
  if (!plan.aligned) plan.packed_b_floats = std::size_t(plan.col_blocks) * plan.k_tiles * P::kChunkFloats;
  static const int slots = block_slots(sgemm_pipelined_kernel<P, kOrder, true>, P::kThreads, P::kSharedBytes);
  const int wanted = splits_to_fill_gpu<P>(p, slots);
  plan.tiles_per_split = workbook::ceil_div(std::max(plan.k_tiles, 1), wanted);  // whole tiles per slice
  plan.splits = std::max(1, workbook::ceil_div(plan.k_tiles, plan.tiles_per_split));
  if (plan.splits > 1) plan.partial_floats = std::size_t(plan.splits) * p.m * p.n;
  return plan;
}

// Pack A (and B when it cannot be copied in place), then the pipelined product, split across k
// when C's tiles leave block slots idle (04.9), then the sum of the slices. `workspace`: at least
// plan_pipeline(p).workspace_bytes(), 16-byte aligned.
template <typename P, FmaOrder kOrder>
void launch_pipelined_kernel(const GemmProblem& p, float* workspace, cudaStream_t stream) {
  const PipelinePlan plan = plan_pipeline<P, kOrder>(p);
  // Each region is a whole number of 8 KiB chunks, or C-sized: every one starts 16-byte aligned.
  float* const packed_a = workspace;
  float* const packed_b = packed_a + plan.packed_a_floats;
  float* const partials = packed_b + plan.packed_b_floats;
  const float* b = p.b;
  if (plan.k_tiles > 0) {
    const bool vector_reads = p.k % 4 == 0 && aligned16(p.a);
    const auto pack_a = vector_reads ? pack_a_kernel<P, true> : pack_a_kernel<P, false>;
    workbook::launch(pack_a, dim3(plan.row_blocks * plan.k_tiles), dim3(P::kThreads), 0, stream, p.a, packed_a, p.m,
                     p.k, plan.k_tiles);
    if (!plan.aligned) {
      workbook::launch(pack_b_kernel<P>, dim3(plan.col_blocks * plan.k_tiles), dim3(P::kThreads), 0, stream, p.b,
                       packed_b, p.k, p.n, plan.k_tiles);
      b = packed_b;
    }
  }
  const auto kernel = plan.aligned ? sgemm_pipelined_kernel<P, kOrder, true> : sgemm_pipelined_kernel<P, kOrder, false>;
  workbook::launch(kernel, dim3(plan.col_blocks, plan.row_blocks, plan.splits), dim3(P::kThreads), P::kSharedBytes,
                   stream, packed_a, b, p.c, p.m, p.n, p.k, plan.k_tiles, plan.tiles_per_split,
                   plan.splits > 1 ? partials : nullptr);
  if (plan.splits > 1) sum_splits(p, partials, plan.splits, stream);
}

}  // namespace
}  // namespace sgemm_lab
