// Lab 04 mutants: a small copy-engine product, 04.11's hand-over (a producer warp, "landed" and
// "freed" mbarriers per stage) around a plain 4 x 4 outer product, with one defect chosen by a
// template parameter. It runs on the shapes whose rows the copy engine can read in place (k and n
// multiples of 4, 16-byte aligned matrices); on the others it falls back to a plain kernel, correct,
// so that a mutant is wrong only through its defect. Hopper only: on an older GPU the copy-engine
// instructions stop the kernel, which fails every step as well.
#pragma once

#include <cstddef>
#include <cstdint>

#include "copy_engine.cuh"
#include "sgemm.h"
#include "workbook/launch.cuh"

namespace sgemm_mutant {

enum class Defect {
  kNone,             // the control: correct
  kNoLandedWait,     // the consumers read a stage without waiting for its bytes to land
  kStageFreedEarly,  // a stage is refilled when the first consumer warp is done with it, not the last
};

namespace copy_engine_gemm {
namespace ce = sgemm_lab::copy_engine;
constexpr int kTile = 64, kDepth = 16, kStages = 2, kConsumerWarps = 8;
constexpr int kThreads = 32 * (kConsumerWarps + 1);
constexpr unsigned kStageBytes = 2 * kTile * kDepth * sizeof(float);

template <Defect kDefect>
__global__ void __launch_bounds__(kThreads)
    product_kernel(const __grid_constant__ ce::TileMap a_map, const __grid_constant__ ce::TileMap b_map,
                   float* __restrict__ c, int m, int n, int k) {
  __shared__ __align__(128) float stages[kStages][2][kTile * kDepth];  // A [row][kk], B [kk][col]
  __shared__ std::uint64_t landed[kStages], freed[kStages];
  const int t = threadIdx.x, lane = t % 32;
  const int first_row = blockIdx.y * kTile, first_col = blockIdx.x * kTile;
  const int tiles = (k + kDepth - 1) / kDepth;
  if (t == 0) {
    for (int s = 0; s < kStages; ++s) {
      ce::init_barrier(&landed[s], 1);
      ce::init_barrier(&freed[s], kDefect == Defect::kStageFreedEarly ? 1 : kConsumerWarps);
    }
    ce::make_barrier_inits_visible();
  }
  __syncthreads();
  if (t / 32 == kConsumerWarps) {
    if (lane == 0)
      for (int tile = 0; tile < tiles; ++tile) {
        const int s = tile % kStages;
        if (tile >= kStages) ce::wait_for_phase(&freed[s], (tile / kStages - 1) % 2);
        ce::expect_bytes(&landed[s], kStageBytes);
        ce::load_tile(stages[s][0], a_map, first_row, tile * kDepth, &landed[s]);
        ce::load_tile(stages[s][1], b_map, tile * kDepth, first_col, &landed[s]);
      }
    return;
  }
  const int tx = t % 16, ty = t / 16;  // rows 4 ty .. 4 ty + 3, columns 4 tx .. 4 tx + 3
  float sum[4][4] = {};
  for (int tile = 0; tile < tiles; ++tile) {
    const int s = tile % kStages;
    if constexpr (kDefect != Defect::kNoLandedWait) ce::wait_for_phase(&landed[s], (tile / kStages) % 2);
    for (int kk = 0; kk < kDepth; ++kk)
      for (int r = 0; r < 4; ++r)
        for (int q = 0; q < 4; ++q)
          sum[r][q] = fmaf(stages[s][0][(4 * ty + r) * kDepth + kk], stages[s][1][kk * kTile + 4 * tx + q], sum[r][q]);
    __syncwarp();
    if (lane == 0) ce::arrive(&freed[s]);
  }
  for (int r = 0; r < 4; ++r)
    for (int q = 0; q < 4; ++q) {
      const int i = first_row + 4 * ty + r, j = first_col + 4 * tx + q;
      if (i < m && j < n) c[std::size_t(i) * n + j] = sum[r][q];
    }
}

// Where the copy engine cannot read the rows in place (and for k = 0): one thread per element.
__global__ void plain_kernel(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c, int m,
                             int n, int k) {
  const int i = blockIdx.y * blockDim.y + threadIdx.y, j = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= m || j >= n) return;
  float sum = 0.0f;
  for (int kk = 0; kk < k; ++kk) sum = fmaf(a[std::size_t(i) * k + kk], b[std::size_t(kk) * n + j], sum);
  c[std::size_t(i) * n + j] = sum;
}

inline bool aligned16(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; }
}  // namespace copy_engine_gemm

template <Defect kDefect>
void copy_engine_product(const sgemm_lab::GemmProblem& p, cudaStream_t stream) {
  using namespace copy_engine_gemm;
  if (p.m <= 0 || p.n <= 0) return;
  if (p.k == 0 || p.k % 4 != 0 || p.n % 4 != 0 || !aligned16(p.a) || !aligned16(p.b)) {
    workbook::launch(plain_kernel, dim3(workbook::ceil_div(p.n, 32), workbook::ceil_div(p.m, 8)), dim3(32, 8), 0,
                     stream, p.a, p.b, p.c, p.m, p.n, p.k);
    return;
  }
  const ce::TileMap a_map = ce::make_tile_map(p.a, p.m, p.k, p.k, kTile, kDepth);
  const ce::TileMap b_map = ce::make_tile_map(p.b, p.k, p.n, p.n, kDepth, kTile);
  workbook::launch(product_kernel<kDefect>, dim3(workbook::ceil_div(p.n, kTile), workbook::ceil_div(p.m, kTile)),
                   dim3(kThreads), 0, stream, a_map, b_map, p.c, p.m, p.n, p.k);
}

}  // namespace sgemm_mutant
