// The honest part of lab 04's mutants: 04.5's 32 x 32 tile kernel, 8 outputs per thread, which
// clears the bars of 04.1 and 04.2 with room to spare. It takes a policy, Honest unless a mutant
// overrides one of its members: how A and B enter the FMA and what happens to a running sum after
// each tile (the precision mutants), the barrier between loading a tile and using it (the
// synchronisation mutants), whether the last, partial tile of k is taken, and whether the kernel
// runs at all (a mutant that found the product elsewhere skips it). Each mutant's defect
// is its one override, or its launcher; the rest is this one kernel.
#pragma once

#include "sgemm.h"
#include "workbook/launch.cuh"

namespace sgemm_mutant {

constexpr int kTile = 32;
constexpr int kOutputs = 8;
constexpr int kRowsPerPass = kTile / kOutputs;

struct Honest {
  __device__ static float input(float x) { return x; }                // FP32, nothing narrowed
  __device__ static float after_tile(float sum, int) { return sum; }  // the sum kept as it is
  __device__ static void tile_loaded() { __syncthreads(); }           // every warp's loads land first
  static constexpr bool kWholeTilesOnly = false;                      // k % 32 terms taken too
  __device__ static bool skip() { return false; }                     // every call computes C
};

// Rows [first_row, first_row + rows) of C = A B.
template <typename Policy>
__global__ void tile_gemm_kernel(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c, int m,
                                 int n, int k, int row_end) {
  if (Policy::skip()) return;
  __shared__ float a_tile[kTile][kTile];
  __shared__ float b_tile[kTile][kTile];
  const int x = threadIdx.x, y = threadIdx.y;
  const int first_row = blockIdx.y * kTile, j = blockIdx.x * kTile + x;
  float sum[kOutputs] = {};
  for (int k0 = 0; Policy::kWholeTilesOnly ? k0 + kTile <= k : k0 < k; k0 += kTile) {
    for (int r = 0; r < kOutputs; ++r) {
      const int row = y + r * kRowsPerPass;
      a_tile[row][x] = (first_row + row < m && k0 + x < k) ? Policy::input(a[std::size_t(first_row + row) * k + k0 + x]) : 0.0f;
      b_tile[row][x] = (k0 + row < k && j < n) ? Policy::input(b[std::size_t(k0 + row) * n + j]) : 0.0f;
    }
    Policy::tile_loaded();
    for (int kk = 0; kk < kTile; ++kk)
      for (int r = 0; r < kOutputs; ++r) sum[r] = fmaf(a_tile[y + r * kRowsPerPass][kk], b_tile[kk][x], sum[r]);
    for (int r = 0; r < kOutputs; ++r) sum[r] = Policy::after_tile(sum[r], k0 / kTile);
    __syncthreads();
  }
  for (int r = 0; r < kOutputs; ++r) {
    const int i = first_row + y + r * kRowsPerPass;
    if (i < m && i < row_end && j < n) c[std::size_t(i) * n + j] = sum[r];
  }
}

// The first `rows` rows of C (all of them by default), on `stream`, through workbook::launch.
template <typename Policy = Honest>
void tile_gemm(const sgemm_lab::GemmProblem& p, cudaStream_t stream, int rows = -1) {
  if (p.m <= 0 || p.n <= 0) return;
  const int row_end = rows < 0 ? p.m : rows;
  const dim3 grid(workbook::ceil_div(p.n, kTile), workbook::ceil_div(row_end, kTile));
  if (grid.y == 0) return;
  workbook::launch(tile_gemm_kernel<Policy>, grid, dim3(kTile, kRowsPerPass), 0, stream, p.a, p.b, p.c, p.m, p.n, p.k,
                   row_end);
}

}  // namespace sgemm_mutant
