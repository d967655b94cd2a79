// Lab 04_sgemm, reference solution, steps 04.1 to 04.6: from one output per thread to rank-1
// updates. Part of sgemm.cu.
#pragma once

#include "given.cuh"
#include "sgemm.h"
#include "workbook/launch.cuh"

namespace sgemm_lab {
namespace {

struct NaivePolicy {
  static constexpr int kBlockX = 32;  // a warp covers 32 neighbouring columns of C and of B
  static constexpr int kBlockY = 8;
};

struct TilePolicy {
  static constexpr int kTile = 32;  // C tile kTile x kTile, K tile kTile
  static_assert(kTile == 32, "a warp reads one tile row: 32 floats, 32 banks");
};

struct Rank1Policy {
  static constexpr int kRows = 64;      // rows of C per block: the floats of C each thread keeps
  static constexpr int kThreads = 256;  // one column of C per thread
  static constexpr int kDepth = 8;      // k per tile: the B values a thread holds at once
  static_assert(kRows % 4 == 0, "A's tile is read as float4");
  static_assert((kRows * kDepth) % kThreads == 0, "every thread loads the same number of A's floats");
};

// ---------------------------------------------------------------------------------------------
// 04.1: one output per thread. threadIdx.x runs along a row of C, so a warp reads 32 neighbouring
// floats of a row of B (one 128-byte line) and one float of A (a broadcast). The baseline puts
// threadIdx.x down a column instead: 32 floats of A, each in a different line.
__global__ void sgemm_naive_kernel(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c,
                                   int m, int n, int k) {
  const int j = blockIdx.x * NaivePolicy::kBlockX + threadIdx.x;
  const int i = blockIdx.y * NaivePolicy::kBlockY + threadIdx.y;
  if (i >= m || j >= n) return;
  float sum = 0.0f;
  for (int kk = 0; kk < k; ++kk) sum = fmaf(a[at(i, kk, k)], b[at(kk, j, n)], sum);
  c[at(i, j, n)] = sum;
}

// ---------------------------------------------------------------------------------------------
// 04.2 to 04.5: 32 x 32 tiles of A and B staged in shared memory, each float loaded from global
// memory once per block instead of once per thread. A block of 32 x (32 / kOutputsPerThread)
// threads computes a 32 x 32 tile of C; thread (x, y) computes rows y, y + 32 / R, ... of column x.
// In the inner loop, b_tile[kk][x] is loaded once and used for all R outputs, a_tile[row][kk] is one
// broadcast per output: (1 + R) shared loads per R FMAs. More outputs per thread: fewer threads,
// lower occupancy, fewer shared loads per FMA, and (Volkov's point) more speed.
template <int kOutputsPerThread>
__global__ void sgemm_tile_kernel(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c,
                                  int m, int n, int k) {
  constexpr int kTile = TilePolicy::kTile;
  constexpr int kRowsPerPass = kTile / kOutputsPerThread;  // blockDim.y
  __shared__ float a_tile[kTile][kTile];  // a_tile[row][kk] = A(tile row + row, k0 + kk)
  __shared__ float b_tile[kTile][kTile];  // b_tile[kk][col] = B(k0 + kk, tile column + col)
  const int x = threadIdx.x, y = threadIdx.y;
  const int first_row = blockIdx.y * kTile;
  const int j = blockIdx.x * kTile + x;

  float sum[kOutputsPerThread] = {};
  for (int k0 = 0; k0 < k; k0 += kTile) {
#pragma unroll
    for (int r = 0; r < kOutputsPerThread; ++r) {
      const int row = y + r * kRowsPerPass;
      // Outside the matrices the tiles hold zeros, which add nothing to the sums.
      a_tile[row][x] = (first_row + row < m && k0 + x < k) ? a[at(first_row + row, k0 + x, k)] : 0.0f;
      b_tile[row][x] = (k0 + row < k && j < n) ? b[at(k0 + row, j, n)] : 0.0f;
    }
    __syncthreads();  // the tiles are complete
#pragma unroll
    for (int kk = 0; kk < kTile; ++kk) {
      const float b_value = b_tile[kk][x];  // one load, kOutputsPerThread FMAs
#pragma unroll
      for (int r = 0; r < kOutputsPerThread; ++r) sum[r] = fmaf(a_tile[y + r * kRowsPerPass][kk], b_value, sum[r]);
    }
    __syncthreads();  // everyone is done with the tiles before they are overwritten
  }
#pragma unroll
  for (int r = 0; r < kOutputsPerThread; ++r) {
    const int i = first_row + y + r * kRowsPerPass;
    if (i < m && j < n) c[at(i, j, n)] = sum[r];
  }
}

template <int kOutputsPerThread>
void launch_tile_kernel(const GemmProblem& p, cudaStream_t stream) {
  constexpr int kTile = TilePolicy::kTile;
  const dim3 grid(workbook::ceil_div(p.n, kTile), workbook::ceil_div(p.m, kTile));
  workbook::launch(sgemm_tile_kernel<kOutputsPerThread>, grid, dim3(kTile, kTile / kOutputsPerThread), 0, stream,
                   p.a, p.b, p.c, p.m, p.n, p.k);
}

// ---------------------------------------------------------------------------------------------
// 04.6: rank-1 updates. A block computes a 64 x 256 tile of C; thread x keeps column x of it, 64
// floats, in registers. For each k it needs B(k, x), which no other thread needs: it comes straight
// from global memory into a register (the 256 threads read 1 KiB of one row of B). It also needs
// the 64 floats A(rows, k), which every thread needs: they sit in shared memory, stored k-major so
// that they load as sixteen float4 broadcasts. Per k: 1 global load, 16 shared loads, 64 FMAs.
template <typename P>
__global__ void sgemm_rank1_kernel(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c,
                                   int m, int n, int k) {
  __shared__ __align__(16) float a_tile[P::kDepth][P::kRows];  // a_tile[kk][row] = A(first_row + row, k0 + kk)
  const int x = threadIdx.x;
  const int first_row = blockIdx.y * P::kRows;
  const int j = blockIdx.x * P::kThreads + x;

  float sum[P::kRows] = {};
  for (int k0 = 0; k0 < k; k0 += P::kDepth) {
    // This tile's B values, all loads in flight before the first is used.
    float b_values[P::kDepth];
#pragma unroll
    for (int kk = 0; kk < P::kDepth; ++kk) b_values[kk] = (k0 + kk < k && j < n) ? b[at(k0 + kk, j, n)] : 0.0f;
    // 16 x 16 floats of A, four per thread, stored transposed.
#pragma unroll
    for (int e = x; e < P::kDepth * P::kRows; e += P::kThreads) {
      const int row = e / P::kDepth, kk = e % P::kDepth;  // consecutive threads: consecutive k in one row
      a_tile[kk][row] = (first_row + row < m && k0 + kk < k) ? a[at(first_row + row, k0 + kk, k)] : 0.0f;
    }
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < P::kDepth; ++kk) {
#pragma unroll
      for (int quad = 0; quad < P::kRows / 4; ++quad) {
        const float4 a4 = *reinterpret_cast<const float4*>(&a_tile[kk][4 * quad]);
        sum[4 * quad + 0] = fmaf(a4.x, b_values[kk], sum[4 * quad + 0]);
        sum[4 * quad + 1] = fmaf(a4.y, b_values[kk], sum[4 * quad + 1]);
        sum[4 * quad + 2] = fmaf(a4.z, b_values[kk], sum[4 * quad + 2]);
        sum[4 * quad + 3] = fmaf(a4.w, b_values[kk], sum[4 * quad + 3]);
      }
    }
    __syncthreads();
  }
#pragma unroll
  for (int row = 0; row < P::kRows; ++row)
    if (first_row + row < m && j < n) c[at(first_row + row, j, n)] = sum[row];
}

}  // namespace
}  // namespace sgemm_lab
