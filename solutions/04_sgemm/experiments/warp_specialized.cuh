// Lab 04 experiment: cuBLAS's tile shape (256 x 128, 16 x 8 outputs per thread, 8 warps, one block
// per SM) fed by the copy engine from a producer warp of its own. Included by warp_specialized.cu
// after the solution (../sgemm.cu) and copy_engine_kernels.cuh, whose pieces it uses.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "copy_engine_kernels.cuh"

namespace sgemm_lab {
namespace {

// 04.8 found 16 x 8 outputs per thread slower than 8 x 8 (66% of cuBLAS against 86%): its loads went
// through registers, and at 241-255 registers a thread nothing was left to hide them with. Here no
// consumer thread loads anything from global memory: a ninth warp asks the copy engine for every
// tile, so the 256 consumer threads hold only their 128 sums and the operands of one k.
template <int kDepthK = 16, int kStageCount = 4, int kProducerWarpCount = 1, int kUnrollK = kDepthK>
struct SpecializedPolicy {
  static constexpr int kTileM = 256, kTileN = 128, kDepth = kDepthK, kStages = kStageCount;
  static constexpr int kThreadM = 16, kThreadN = 8;  // 4 x 4 quads of rows, 2 quads of columns
  static constexpr int kConsumerWarps = (kTileM / kThreadM) * (kTileN / kThreadN) / 32;  // 8
  // The producer: one warp, or a warpgroup of four that gives its registers to the consumers with
  // setmaxnreg (sm_90a): 9 warps put 3 on one of the SM's four schedulers, whose quarter of the
  // register file then allows 168 a thread; 8 consumer warps at 232 and 4 producers at 40 fit.
  static constexpr int kProducerWarps = kProducerWarpCount;
  static constexpr int kUnroll = kUnrollK;  // k per unrolled body: the code must fit the instruction cache
  static constexpr int kThreads = 32 * (kConsumerWarps + kProducerWarps);
  static constexpr int kWarpM = 64, kWarpN = 64;  // each consumer warp's piece of the tile: 4 x 2 warps
  static constexpr int kTileFloatsA = kTileM * kDepth, kTileFloatsB = kDepth * kTileN;
  static constexpr int kStageFloats = kTileFloatsA + kTileFloatsB;
  static constexpr unsigned kStageBytes = kStageFloats * sizeof(float);
  static constexpr int kSharedBytes = kStages * int(kStageBytes) + 2 * kStages * int(sizeof(std::uint64_t));
  // For pack_a_kernel: 256-row chunks of A, [kk][row].
  static constexpr int kChunkFloats = kTileFloatsA;
  static_assert(kConsumerWarps == (kTileM / kWarpM) * (kTileN / kWarpN), "the warps cover the tile");
};

// The order of one k's 128 FMAs (each sum still gets its k terms in order: C is the same).
enum class Order {
  kRows,       // sum[0][0..7], sum[1][0..7], ...: each A value used 8 times in a row
  kColumns,    // sum[0..15][0], sum[0..15][1], ...: each B value used 16 times in a row
  kRowsSnake,  // as kRows, odd rows backwards: the B value at a row's end starts the next
};

template <typename P, Order kOrder>
__device__ inline void product(const float (&a)[P::kThreadM], const float (&b)[P::kThreadN],
                               float (&sum)[P::kThreadM][P::kThreadN]) {
  if constexpr (kOrder == Order::kColumns) {
#pragma unroll
    for (int s = 0; s < P::kThreadN; ++s)
#pragma unroll
      for (int r = 0; r < P::kThreadM; ++r) sum[r][s] = fmaf(a[r], b[s], sum[r][s]);
  } else {
#pragma unroll
    for (int r = 0; r < P::kThreadM; ++r)
#pragma unroll
      for (int step = 0; step < P::kThreadN; ++step) {
        const int s = kOrder == Order::kRowsSnake && r % 2 == 1 ? P::kThreadN - 1 - step : step;
        sum[r][s] = fmaf(a[r], b[s], sum[r][s]);
      }
  }
}

// One k's operands from a stage: 4 float4 of A's column, 2 of B's row.
template <typename P>
__device__ inline void load_operands(const float* a_stage, const float* b_stage, int kk, int a_offset, int b_offset,
                                     float (&a)[P::kThreadM], float (&b)[P::kThreadN]) {
#pragma unroll
  for (int q = 0; q < 4; ++q) {
    const float4 v = *reinterpret_cast<const float4*>(a_stage + kk * P::kTileM + a_offset + 16 * q);
    a[4 * q] = v.x, a[4 * q + 1] = v.y, a[4 * q + 2] = v.z, a[4 * q + 3] = v.w;
  }
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    const float4 v = *reinterpret_cast<const float4*>(b_stage + kk * P::kTileN + b_offset + 32 * h);
    b[4 * h] = v.x, b[4 * h + 1] = v.y, b[4 * h + 2] = v.z, b[4 * h + 3] = v.w;
  }
}

template <typename P>
struct PackPolicy {  // pack_a_kernel's view: P's chunks, packed by 256 threads
  static constexpr int kTileM = P::kTileM, kDepth = P::kDepth, kThreads = 256, kChunkFloats = P::kChunkFloats;
};

template <typename P, Order kOrder, bool kPrefetch, bool kVectorStores>
__global__ void __launch_bounds__(P::kThreads, 1)
    sgemm_specialized_kernel(const __grid_constant__ copy_engine::TileMap a_map,
                             const __grid_constant__ copy_engine::TileMap b_map, float* __restrict__ c, int m, int n,
                             int k_tiles, int tiles_per_split, float* __restrict__ partials) {
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
      ce::init_barrier(&landed[s], 1);                  // the producer's expect_bytes, and the bytes
      ce::init_barrier(&freed[s], P::kConsumerWarps);  // one arrival per consumer warp
    }
    ce::make_barrier_inits_visible();
  }
  __syncthreads();

  if constexpr (P::kProducerWarps == 4) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
    if (warp >= P::kConsumerWarps) asm volatile("setmaxnreg.dec.sync.aligned.u32 40;");
    else asm volatile("setmaxnreg.inc.sync.aligned.u32 232;");
#else
    __trap();
#endif
  }
  if (warp >= P::kConsumerWarps) {  // the producer
    if (t == 32 * P::kConsumerWarps) {
      for (int tile = 0; tile < tiles; ++tile) {
        const int stage = tile % P::kStages;
        if (tile >= P::kStages) ce::wait_for_phase(&freed[stage], (tile / P::kStages - 1) % 2);
        float* const a_stage = ring + stage * P::kStageFloats;
        const int kt = first_tile + tile;
        ce::expect_bytes(&landed[stage], P::kStageBytes);
        ce::load_tile(a_stage, a_map, (rb * k_tiles + kt) * P::kDepth, 0, &landed[stage]);
        ce::load_tile(a_stage + P::kTileFloatsA, b_map, kt * P::kDepth, cb * P::kTileN, &landed[stage]);
      }
    }
    return;
  }

  // A consumer: rows warp_row + 16 q + 4 tm + i, columns warp_col + 32 h + 4 tn + j.
  const int warp_row = (warp % (P::kTileM / P::kWarpM)) * P::kWarpM;
  const int warp_col = (warp / (P::kTileM / P::kWarpM)) * P::kWarpN;
  const int tm = lane / 8, tn = lane % 8;
  const int a_offset = warp_row + 4 * tm, b_offset = warp_col + 4 * tn;

  float sum[P::kThreadM][P::kThreadN] = {};
  const auto stage_a = [&](int tile) { return ring + (tile % P::kStages) * P::kStageFloats; };
  if constexpr (kPrefetch) {
    // The operands of the next k are loaded before this k's FMAs, across tile boundaries too: the
    // wait for tile + 1 and its first loads come before tile's last 128 FMAs.
    float a[2][P::kThreadM], b[2][P::kThreadN];
    if (tiles > 0) {
      ce::wait_for_phase(&landed[0], 0);
      load_operands<P>(stage_a(0), stage_a(0) + P::kTileFloatsA, 0, a_offset, b_offset, a[0], b[0]);
    }
    for (int tile = 0; tile < tiles; ++tile) {
      const float* const a_stage = stage_a(tile);
#pragma unroll
      for (int kk = 0; kk < P::kDepth; ++kk) {
        const int now = kk % 2, next = 1 - now;
        if (kk + 1 < P::kDepth) {
          load_operands<P>(a_stage, a_stage + P::kTileFloatsA, kk + 1, a_offset, b_offset, a[next], b[next]);
        } else if (tile + 1 < tiles) {
          ce::wait_for_phase(&landed[(tile + 1) % P::kStages], ((tile + 1) / P::kStages) % 2);
          const float* const following = stage_a(tile + 1);
          load_operands<P>(following, following + P::kTileFloatsA, 0, a_offset, b_offset, a[next], b[next]);
        }
        product<P, kOrder>(a[now], b[now], sum);
      }
      __syncwarp();
      if (lane == 0) ce::arrive(&freed[tile % P::kStages]);
    }
  } else {
    for (int tile = 0; tile < tiles; ++tile) {
      const int stage = tile % P::kStages;
      ce::wait_for_phase(&landed[stage], (tile / P::kStages) % 2);
      const float* const a_stage = stage_a(tile);
#pragma unroll P::kUnroll
      for (int kk = 0; kk < P::kDepth; ++kk) {
        float a[P::kThreadM], b[P::kThreadN];
        load_operands<P>(a_stage, a_stage + P::kTileFloatsA, kk, a_offset, b_offset, a, b);
        product<P, kOrder>(a, b, sum);
      }
      __syncwarp();  // the whole warp has read the stage
      if (lane == 0) ce::arrive(&freed[stage]);
    }
  }

  float* const out = gridDim.z == 1 ? c : partials + std::size_t(blockIdx.z) * m * n;
  const int first_row = rb * P::kTileM + a_offset, first_col = cb * P::kTileN + b_offset;
#pragma unroll
  for (int r = 0; r < P::kThreadM; ++r) {
    const int i = first_row + 16 * (r / 4) + r % 4;
    if (i >= m) continue;
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int j = first_col + 32 * h;
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

template <typename P>
CopyEnginePlan plan_specialized(const GemmProblem& p) {
  CopyEnginePlan plan;
  if (p.m <= 0 || p.n <= 0 || p.k <= 0) return plan;
  plan.k_tiles = workbook::ceil_div(p.k, P::kDepth);
  plan.row_blocks = workbook::ceil_div(p.m, P::kTileM);
  plan.col_blocks = workbook::ceil_div(p.n, P::kTileN);
  plan.a_floats = std::size_t(plan.row_blocks) * plan.k_tiles * P::kTileFloatsA;
  plan.pad_b = p.n % 4 != 0 || !aligned16(p.b);
  plan.pitch_b = round_up_to_4(p.n);
  if (plan.pad_b) plan.b_floats = std::size_t(p.k) * plan.pitch_b;
  static const int slots = block_slots(sgemm_specialized_kernel<P, Order::kRows, false, true>, P::kThreads, P::kSharedBytes);
  const int wanted = splits_to_fill_gpu<P>(p, slots);
  plan.tiles_per_split = workbook::ceil_div(plan.k_tiles, wanted);
  plan.splits = workbook::ceil_div(plan.k_tiles, plan.tiles_per_split);
  if (plan.splits > 1) plan.partial_floats = std::size_t(plan.splits) * p.m * p.n;
  return plan;
}

template <typename P, Order kOrder, bool kPrefetch>
void launch_specialized_kernel(const GemmProblem& p, float* workspace, cudaStream_t stream) {
  const CopyEnginePlan plan = plan_specialized<P>(p);
  if (plan.k_tiles == 0) {
    workbook::launch(zero_kernel, dim3(1024), dim3(256), 0, stream, p.c, std::size_t(p.m) * p.n);
    return;
  }
  float* const a_copy = workspace;
  float* const b_copy = a_copy + plan.a_floats;
  float* const partials = b_copy + plan.b_floats;
  using Pack = PackPolicy<P>;
  const bool vector_reads = p.k % 4 == 0 && aligned16(p.a);
  const auto pack_a = vector_reads ? pack_a_kernel<Pack, true> : pack_a_kernel<Pack, false>;
  workbook::launch(pack_a, dim3(plan.row_blocks * plan.k_tiles), dim3(Pack::kThreads), 0, stream, p.a, a_copy, p.m,
                   p.k, plan.k_tiles);
  const copy_engine::TileMap a_map = copy_engine::make_tile_map(a_copy, plan.row_blocks * plan.k_tiles * P::kDepth,
                                                                P::kTileM, P::kTileM, P::kDepth, P::kTileM);
  const float* b = p.b;
  if (plan.pad_b) {
    pad_rows(p.b, b_copy, p.k, p.n, plan.pitch_b, stream);
    b = b_copy;
  }
  const copy_engine::TileMap b_map =
      copy_engine::make_tile_map(b, p.k, p.n, plan.pad_b ? plan.pitch_b : p.n, P::kDepth, P::kTileN);
  const bool vector_stores = p.n % 4 == 0 && aligned16(p.c);
  const auto kernel = vector_stores ? sgemm_specialized_kernel<P, kOrder, kPrefetch, true>
                                    : sgemm_specialized_kernel<P, kOrder, kPrefetch, false>;
  workbook::allow_dynamic_shared_memory(kernel, P::kSharedBytes);
  workbook::launch(kernel, dim3(plan.col_blocks, plan.row_blocks, plan.splits), dim3(P::kThreads), P::kSharedBytes,
                   stream, a_map, b_map, p.c, p.m, p.n, plan.k_tiles, plan.tiles_per_split,
                   plan.splits > 1 ? partials : nullptr);
  if (plan.splits > 1) sum_splits(p, partials, plan.splits, stream);
}

}  // namespace
}  // namespace sgemm_lab
