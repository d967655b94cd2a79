// Lab 04_sgemm, reference solution: register blocking and lower occupancy, to cuBLAS speed.
//
// C = A B does 2 m n k flops on m k + k n + m n floats: at 4096^3, 137 GFLOP on 192 MiB. Memory is
// not the limit; feeding the FMA units is. Each FMA needs two operands, and only registers deliver
// them as fast as the FMA units consume them: shared memory delivers an eighth of that (32 banks x
// 4 bytes per cycle against 128 FMA per cycle, each wanting 8 bytes). So every step makes each
// operand a thread loads serve more FMAs (Volkov 2010; Volkov and Demmel 2008):
//   04.1  naive, one output per thread, with threadIdx.x along the columns: B's loads coalesce
//   04.2  32 x 32 tiles of A and B in shared memory, one output per thread: 2 loads per FMA
//   04.3  2 outputs per thread in a 32 x 16 block: each B value loaded serves 2 FMAs
//   04.4  4 outputs per thread, 32 x 8 threads
//   04.5  8 outputs per thread, 32 x 4 threads: 9 shared loads per 8 FMAs
//   04.6  rank-1 updates: a tile of A in shared memory (read as float4), B streamed from global
//         memory through registers, a 64-float column of C in registers per thread
//   04.7  2D register blocking: 128 x 128 tiles, 8 x 8 outputs per thread, A transposed in shared
//         memory so that both operands load as float4: 4 shared loads per 64 FMAs
//   04.8  the same, double-buffered: the next tiles are loaded while this one is multiplied
//   04.9  split-k: when C has too few tiles to fill the GPU, blocks share a tile's k and a second
//         kernel adds their partial products
//   04.10 packed operands and a cp.async pipeline: A is rewritten once, transposed, tile by tile,
//         so that every tile is a contiguous 8 KiB that cp.async copies straight into shared
//         memory, three tiles in flight, with no register in between for the compiler to move
// Steps 04.2 to 04.5 are one template, sgemm_tile_kernel<kOutputsPerThread>; 04.7 and 04.8 are one
// template, sgemm_blocked_kernel<kDoubleBuffered, kVectorLoads>, and 04.9 launches 04.8's kernel
// on a grid with a third dimension. 04.10 is sgemm_pipelined_kernel, and splits k as 04.9 does.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "cp_async.cuh"
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

struct BlockedPolicy {
  static constexpr int kTileM = 128;   // rows of C per block
  static constexpr int kTileN = 128;   // columns of C per block
  static constexpr int kDepth = 16;    // k per tile: 8 measured 6 points slower (two barriers per 8 k)
  static constexpr int kThreadM = 8;   // rows of C per thread: two quads, kTileM / 2 apart
  static constexpr int kThreadN = 8;   // columns of C per thread: two quads, kTileN / 2 apart
  static constexpr int kThreads = (kTileM / kThreadM) * (kTileN / kThreadN);
  static constexpr int kPad = 4;       // A's transposed tile rows: kTileM + 4 floats, see the kernel
  static constexpr int kLoadsA = kTileM * kDepth / 4 / kThreads;  // float4 of A per thread per tile
  static constexpr int kLoadsB = kDepth * kTileN / 4 / kThreads;  // float4 of B per thread per tile
  static_assert(kThreadM == 8 && kThreadN == 8, "each thread's outputs are two 4 x 4 quads in each direction");
  static_assert(kDepth % 4 == 0 && kLoadsA >= 1 && kLoadsB >= 1 && kLoadsA * kThreads * 4 == kTileM * kDepth &&
                    kLoadsB * kThreads * 4 == kDepth * kTileN,
                "the tiles split into whole float4s, the same number for every thread");
};

// What every launcher checks before it launches: a shape a step cannot multiply correctly is refused
// with a message that says why, never multiplied wrongly. False: nothing to do (C is empty).
bool validate(const GemmProblem& p, const char* step, int rows_per_block) {
  const std::string where = std::string(step) + ": ";
  if (p.m < 0 || p.n < 0 || p.k < 0)
    throw std::invalid_argument(where + "m, n and k must not be negative");
  if (p.m == 0 || p.n == 0) return false;
  if (p.c == nullptr || (p.k > 0 && (p.a == nullptr || p.b == nullptr)))
    throw std::invalid_argument(where + "a, b and c must not be null");
  const auto overlap = [](const void* x, std::size_t x_floats, const void* y, std::size_t y_floats) {
    const auto xa = reinterpret_cast<std::uintptr_t>(x), ya = reinterpret_cast<std::uintptr_t>(y);
    return xa < ya + y_floats * sizeof(float) && ya < xa + x_floats * sizeof(float);
  };
  const std::size_t c_floats = std::size_t(p.m) * p.n;
  if (p.k > 0 && (overlap(p.c, c_floats, p.a, std::size_t(p.m) * p.k) || overlap(p.c, c_floats, p.b, std::size_t(p.k) * p.n)))
    throw std::invalid_argument(where + "c overlaps a or b");
  for (const void* pointer : {static_cast<const void*>(p.a), static_cast<const void*>(p.b), static_cast<const void*>(p.c)})
    if (reinterpret_cast<std::uintptr_t>(pointer) % alignof(float) != 0)
      throw std::invalid_argument(where + "a, b and c must be 4-byte aligned");
  if (workbook::ceil_div(p.m, rows_per_block) > 65535)
    throw std::invalid_argument(where + "m is too large for this step's grid (at most " +
                                std::to_string(65535 * rows_per_block) + ")");
  return true;
}

// Whether `pointer` may be read or written as float4 (16-byte aligned).
bool aligned16(const void* pointer) { return reinterpret_cast<std::uintptr_t>(pointer) % 16 == 0; }

// Element (i, j) of a row-major matrix `width` floats wide.
__host__ __device__ inline std::size_t at(int i, int j, int width) { return std::size_t(i) * width + j; }

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

// ---------------------------------------------------------------------------------------------
// 04.7 and 04.8: 2D register blocking. A block of 256 threads computes a 128 x 128 tile of C, each
// thread an 8 x 8 piece of it: two 4-row quads (rows 4ty and 64 + 4ty) by two 4-column quads
// (columns 4tx and 64 + 4tx), so that a warp's float4 loads from shared memory hit distinct banks
// or broadcast. Per k, a thread loads 8 floats of A and 8 of B (four LDS.128) and does 64 FMAs:
// an outer product, the rank-1 update of 04.6 in two dimensions.
// A's tile is stored transposed (k-major) so that a thread's 4 consecutive rows are one float4.
// Its rows are padded to 132 floats: the loading threads write it four k-rows apart, and 132 puts
// those writes in different banks (128 would put them all in the same ones) while keeping float4
// alignment. kVectorLoads: A and B rows start on 16-byte boundaries (k and n multiples of 4), so
// each thread fetches its part of each tile as one float4; otherwise as four guarded floats.
// kDoubleBuffered: two copies of each tile; the next one is fetched into registers before this one
// is multiplied, and stored to the other copy after, so that the loads' latency can hide behind
// the tile's 1024 FMAs per thread, with one barrier per tile instead of two. (Whether it does is up
// to ptxas, which may move the loads down to the stores: the handout shows how to check.)
// blockIdx.z is 04.9's: the slice of k this block multiplies, k_per_split wide. With one slice
// (04.7, 04.8: k_per_split = k) the block writes C; with several, its partial product goes to
// partials + blockIdx.z m n, laid out like C, and sum_splits_kernel adds the slices up.
// What one thread fetches of one pair of tiles, in registers between the load and the store.
template <typename P>
struct TileLoad {
  float4 a[P::kLoadsA];
  float4 b[P::kLoadsB];
};

// Elements (row, col .. col + 3) of a row-major matrix `width` floats wide, zeros where row >= row_end
// or col >= col_end (the matrix's edge, or the end of this block's slice of k).
template <bool kVectorLoads>
__device__ inline float4 load4(const float* matrix, int width, int row, int col, int row_end, int col_end) {
  if constexpr (kVectorLoads) {  // col and col_end are multiples of 4: all four or none
    if (row < row_end && col < col_end) return *reinterpret_cast<const float4*>(matrix + at(row, col, width));
    return make_float4(0.0f, 0.0f, 0.0f, 0.0f);
  } else {
    float v[4];
#pragma unroll
    for (int e = 0; e < 4; ++e) v[e] = (row < row_end && col + e < col_end) ? matrix[at(row, col + e, width)] : 0.0f;
    return make_float4(v[0], v[1], v[2], v[3]);
  }
}

// Write a thread's 8 x 8 piece of the block's tile of C (first_row, first_col): rows 4ty + r and
// kTileM / 2 + 4ty + r, columns 4tx ... and kTileN / 2 + 4tx .... kVectorStores: n is a multiple
// of 4 and out 16-byte aligned, so each quad of a row is in or out whole and goes as one float4.
template <typename P, bool kVectorStores>
__device__ inline void store_piece(const float (&sum)[P::kThreadM][P::kThreadN], float* out, int first_row,
                                   int first_col, int m, int n, int tx, int ty) {
  constexpr int kHalfM = P::kTileM / 2, kHalfN = P::kTileN / 2;
#pragma unroll
  for (int r = 0; r < P::kThreadM; ++r) {
    const int i = first_row + (r < 4 ? 4 * ty + r : kHalfM + 4 * ty + r - 4);
    if (i >= m) continue;
#pragma unroll
    for (int half = 0; half < 2; ++half) {
      const int j = first_col + kHalfN * half + 4 * tx;
      if constexpr (kVectorStores) {
        if (j < n)
          *reinterpret_cast<float4*>(out + at(i, j, n)) =
              make_float4(sum[r][4 * half], sum[r][4 * half + 1], sum[r][4 * half + 2], sum[r][4 * half + 3]);
      } else {
#pragma unroll
        for (int e = 0; e < 4; ++e)
          if (j + e < n) out[at(i, j + e, n)] = sum[r][4 * half + e];
      }
    }
  }
}

template <typename P, bool kDoubleBuffered, bool kVectorLoads>
__global__ void __launch_bounds__(P::kThreads)
    sgemm_blocked_kernel(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c, int m, int n,
                         int k, int k_per_split, float* __restrict__ partials) {
  constexpr int kBuffers = kDoubleBuffered ? 2 : 1;
  constexpr int kHalfM = P::kTileM / 2, kHalfN = P::kTileN / 2;
  __shared__ __align__(16) float a_tiles[kBuffers][P::kDepth][P::kTileM + P::kPad];  // [kk][row]
  __shared__ __align__(16) float b_tiles[kBuffers][P::kDepth][P::kTileN];             // [kk][col]
  const int t = threadIdx.x;
  const int tx = t % (P::kTileN / P::kThreadN), ty = t / (P::kTileN / P::kThreadN);
  const int first_row = blockIdx.y * P::kTileM, first_col = blockIdx.x * P::kTileN;
  const int k_begin = blockIdx.z * k_per_split, k_end = min(k, k_begin + k_per_split);

  // Load l of this thread: float4 number t + l * kThreads of the tile, counted along its rows.
  const auto fetch = [&](int k0) {
    TileLoad<P> next;
#pragma unroll
    for (int l = 0; l < P::kLoadsA; ++l) {
      const int e = t + l * P::kThreads, row = e / (P::kDepth / 4), q = e % (P::kDepth / 4);
      next.a[l] = load4<kVectorLoads>(a, k, first_row + row, k0 + 4 * q, m, k_end);
    }
#pragma unroll
    for (int l = 0; l < P::kLoadsB; ++l) {
      const int e = t + l * P::kThreads, row = e / (P::kTileN / 4), q = e % (P::kTileN / 4);
      next.b[l] = load4<kVectorLoads>(b, n, k0 + row, first_col + 4 * q, k_end, n);
    }
    return next;
  };
  const auto store = [&](const TileLoad<P>& next, int buffer) {
#pragma unroll
    for (int l = 0; l < P::kLoadsA; ++l) {
      const int e = t + l * P::kThreads, row = e / (P::kDepth / 4), q = e % (P::kDepth / 4);
      a_tiles[buffer][4 * q + 0][row] = next.a[l].x;
      a_tiles[buffer][4 * q + 1][row] = next.a[l].y;
      a_tiles[buffer][4 * q + 2][row] = next.a[l].z;
      a_tiles[buffer][4 * q + 3][row] = next.a[l].w;
    }
#pragma unroll
    for (int l = 0; l < P::kLoadsB; ++l) {
      const int e = t + l * P::kThreads, row = e / (P::kTileN / 4), q = e % (P::kTileN / 4);
      *reinterpret_cast<float4*>(&b_tiles[buffer][row][4 * q]) = next.b[l];
    }
  };

  float sum[P::kThreadM][P::kThreadN] = {};
  const auto multiply = [&](int buffer) {
#pragma unroll
    for (int kk = 0; kk < P::kDepth; ++kk) {
      const float4 a_low = *reinterpret_cast<const float4*>(&a_tiles[buffer][kk][4 * ty]);
      const float4 a_high = *reinterpret_cast<const float4*>(&a_tiles[buffer][kk][kHalfM + 4 * ty]);
      const float4 b_low = *reinterpret_cast<const float4*>(&b_tiles[buffer][kk][4 * tx]);
      const float4 b_high = *reinterpret_cast<const float4*>(&b_tiles[buffer][kk][kHalfN + 4 * tx]);
      const float a_values[P::kThreadM] = {a_low.x, a_low.y, a_low.z, a_low.w, a_high.x, a_high.y, a_high.z, a_high.w};
      const float b_values[P::kThreadN] = {b_low.x, b_low.y, b_low.z, b_low.w, b_high.x, b_high.y, b_high.z, b_high.w};
#pragma unroll
      for (int r = 0; r < P::kThreadM; ++r)
#pragma unroll
        for (int s = 0; s < P::kThreadN; ++s) sum[r][s] = fmaf(a_values[r], b_values[s], sum[r][s]);
    }
  };

  const int tiles = k_end > k_begin ? (k_end - k_begin + P::kDepth - 1) / P::kDepth : 0;
  if constexpr (kDoubleBuffered) {
    if (tiles > 0) store(fetch(k_begin), 0);
    __syncthreads();
    for (int tile = 0; tile < tiles; ++tile) {
      const int buffer = tile % 2;
      TileLoad<P> next{};
      if (tile + 1 < tiles) next = fetch(k_begin + (tile + 1) * P::kDepth);  // in flight while we multiply
      multiply(buffer);
      if (tile + 1 < tiles) store(next, 1 - buffer);  // the other buffer: nobody reads it now
      __syncthreads();  // the next tile is complete, and this one is free to be overwritten
    }
  } else {
    for (int tile = 0; tile < tiles; ++tile) {
      store(fetch(k_begin + tile * P::kDepth), 0);
      __syncthreads();
      multiply(0);
      __syncthreads();
    }
  }

  float* const out = gridDim.z == 1 ? c : partials + std::size_t(blockIdx.z) * m * n;
  store_piece<P, kVectorLoads>(sum, out, first_row, first_col, m, n, tx, ty);
}

// ---------------------------------------------------------------------------------------------
// 04.9: split-k. At 1000^3, C has 8 x 8 = 64 tiles of 128 x 128, and 04.8 runs 64 blocks on a GPU
// that holds 2 x 132 of them at once: three quarters of it idle, whatever the kernel. Split k
// instead: blocks (tile, s) for s = 0 .. splits - 1 each multiply one slice of k, write a partial
// product, and a second kernel adds the slices up. It costs a round trip of splits x m x n floats
// through memory (L2, at these sizes), and pays when the tiles alone leave SMs idle. The sum runs
// in split order, so C does not depend on which block finished first (atomicAdd would).

// C = the sum of the splits' partial products, added in split order.
__global__ void sum_splits_kernel(const float* __restrict__ partials, float* __restrict__ c, std::size_t count,
                                  int splits) {
  for (std::size_t e = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; e < count;
       e += std::size_t(gridDim.x) * blockDim.x) {
    float total = 0.0f;
    for (int s = 0; s < splits; ++s) total += partials[s * count + e];
    c[e] = total;
  }
}

// What the launchers keep in device memory between calls: split-k's partial products (04.9 on)
// and the packed operands (04.10 on).
enum class Scratch { kPartialProducts, kPackedA, kPackedB, kCount };

// Device memory for `use`, kept between calls and grown when too small. (Freed when the process
// ends: the workbook's processes are short.) Calls on one stream at a time: they share it.
float* scratch(Scratch use, std::size_t floats) {
  static float* memory[int(Scratch::kCount)] = {};
  static std::size_t capacity[int(Scratch::kCount)] = {};
  const int slot = int(use);
  if (floats > capacity[slot]) {
    if (memory[slot] != nullptr) CUDA_CHECK(cudaFree(memory[slot]));
    memory[slot] = nullptr;
    capacity[slot] = 0;
    CUDA_CHECK(cudaMalloc(&memory[slot], floats * sizeof(float)));
    capacity[slot] = floats;
  }
  return memory[slot];
}

// C = the sum of the slices' partial products, when there are several (see 04.9).
void sum_splits(const GemmProblem& p, const float* partials, int splits, cudaStream_t stream) {
  constexpr int kSumThreads = 256;
  const std::size_t c_floats = std::size_t(p.m) * p.n;
  const int sum_blocks = static_cast<int>(std::min<std::size_t>(workbook::ceil_div(c_floats, std::size_t(kSumThreads)), 4096));
  workbook::launch(sum_splits_kernel, dim3(sum_blocks), dim3(kSumThreads), 0, stream, partials, p.c, c_floats, splits);
}

// The blocked kernel, on `splits` slices of k (1: 04.7 and 04.8, no workspace, no second kernel).
template <typename P, bool kDoubleBuffered>
void launch_blocked_kernel(const GemmProblem& p, cudaStream_t stream, int splits = 1) {
  const bool vector_loads = p.k % 4 == 0 && p.n % 4 == 0 && aligned16(p.a) && aligned16(p.b) && aligned16(p.c);
  // Slices a whole number of tiles deep; rounding up may leave fewer slices than asked for.
  int k_per_split = p.k;
  if (splits > 1) {
    k_per_split = workbook::ceil_div(workbook::ceil_div(p.k, splits), P::kDepth) * P::kDepth;
    splits = workbook::ceil_div(p.k, k_per_split);
  }
  const std::size_t c_floats = std::size_t(p.m) * p.n;
  float* const partials = splits > 1 ? scratch(Scratch::kPartialProducts, splits * c_floats) : nullptr;
  const dim3 grid(workbook::ceil_div(p.n, P::kTileN), workbook::ceil_div(p.m, P::kTileM), splits);
  const auto kernel = vector_loads ? sgemm_blocked_kernel<P, kDoubleBuffered, true> : sgemm_blocked_kernel<P, kDoubleBuffered, false>;
  workbook::launch(kernel, grid, dim3(P::kThreads), 0, stream, p.a, p.b, p.c, p.m, p.n, p.k, k_per_split, partials);
  if (splits > 1) sum_splits(p, partials, splits, stream);
}

// How many blocks of `kernel` the GPU holds at once: SMs x blocks per SM. (Above 48 KiB of dynamic
// shared memory the kernel must opt in first, or the answer is 0.)
template <typename... Params>
int block_slots(void (*kernel)(Params...), int threads, std::size_t dynamic_shared_bytes) {
  workbook::allow_dynamic_shared_memory(kernel, dynamic_shared_bytes);
  int device = 0, sms = 0, blocks_per_sm = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_sm, kernel, threads, dynamic_shared_bytes));
  return sms * blocks_per_sm;
}

// How many slices of k fill the GPU: as many as the block slots left idle by the tiles alone, but
// each slice at least kMinSplitDepth deep, below which the partial sums cost more than they save.
template <typename P>
int splits_to_fill_gpu(const GemmProblem& p, int slots) {
  constexpr int kMinSplitDepth = 128;
  const long tiles = long(workbook::ceil_div(p.m, P::kTileM)) * workbook::ceil_div(p.n, P::kTileN);
  if (tiles >= slots) return 1;
  return int(std::max(1L, std::min(slots / tiles, long(p.k / kMinSplitDepth))));
}

// ---------------------------------------------------------------------------------------------
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

// The order in which a thread does the 64 FMAs of one k. Each sum gets its k terms in the same
// order either way, so C is the same to the last bit; only the instruction schedule and the
// register allocation change, and with them the speed: NOTES.md has the measurements. 04.10 uses
// the faster; the other stays as a parameter so that experiments/ can measure it again.
enum class FmaOrder {
  kRowByRow,      // sum[0][0..7], sum[1][0..7], ...: 04.8's
  kColumnsZigZag  // down column 0, up column 1, down column 2, ...
};

// 04.8's 8 x 8 outer product per k, over one tile in shared memory ([kk][row] and [kk][col]).
template <typename P, FmaOrder kOrder>
__device__ inline void multiply_tile(const float* a_tile, const float* b_tile, int tx, int ty,
                                     float (&sum)[P::kThreadM][P::kThreadN]) {
  constexpr int kHalfM = P::kTileM / 2, kHalfN = P::kTileN / 2;
#pragma unroll
  for (int kk = 0; kk < P::kDepth; ++kk) {
    const float4 a_low = *reinterpret_cast<const float4*>(a_tile + kk * P::kTileM + 4 * ty);
    const float4 a_high = *reinterpret_cast<const float4*>(a_tile + kk * P::kTileM + kHalfM + 4 * ty);
    const float4 b_low = *reinterpret_cast<const float4*>(b_tile + kk * P::kTileN + 4 * tx);
    const float4 b_high = *reinterpret_cast<const float4*>(b_tile + kk * P::kTileN + kHalfN + 4 * tx);
    const float a_values[P::kThreadM] = {a_low.x, a_low.y, a_low.z, a_low.w, a_high.x, a_high.y, a_high.z, a_high.w};
    const float b_values[P::kThreadN] = {b_low.x, b_low.y, b_low.z, b_low.w, b_high.x, b_high.y, b_high.z, b_high.w};
    if constexpr (kOrder == FmaOrder::kRowByRow) {
#pragma unroll
      for (int r = 0; r < P::kThreadM; ++r)
#pragma unroll
        for (int s = 0; s < P::kThreadN; ++s) sum[r][s] = fmaf(a_values[r], b_values[s], sum[r][s]);
    } else {
#pragma unroll
      for (int s = 0; s < P::kThreadN; ++s)
#pragma unroll
        for (int step = 0; step < P::kThreadM; ++step) {
          const int r = s % 2 == 0 ? step : P::kThreadM - 1 - step;
          sum[r][s] = fmaf(a_values[r], b_values[s], sum[r][s]);
        }
    }
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
    multiply_tile<P, kOrder>(a_stage, a_stage + P::kChunkFloats, tx, ty, sum);
  }

  float* const out = gridDim.z == 1 ? c : partials + std::size_t(blockIdx.z) * m * n;
  store_piece<P, kAligned>(sum, out, rb * P::kTileM, cb * P::kTileN, m, n, tx, ty);
}

// Pack A (and B when it cannot be copied in place), then the pipelined product, split across k
// when C's tiles leave block slots idle (04.9), then the sum of the slices.
template <typename P, FmaOrder kOrder>
void launch_pipelined_kernel(const GemmProblem& p, cudaStream_t stream) {
  const bool aligned = p.n % 4 == 0 && aligned16(p.b) && aligned16(p.c);
  const int k_tiles = workbook::ceil_div(p.k, P::kDepth);
  const int row_blocks = workbook::ceil_div(p.m, P::kTileM), col_blocks = workbook::ceil_div(p.n, P::kTileN);

  float* const packed_a = scratch(Scratch::kPackedA, std::size_t(row_blocks) * k_tiles * P::kChunkFloats);
  const float* b = p.b;
  if (k_tiles > 0) {
    const bool vector_reads = p.k % 4 == 0 && aligned16(p.a);
    const auto pack_a = vector_reads ? pack_a_kernel<P, true> : pack_a_kernel<P, false>;
    workbook::launch(pack_a, dim3(row_blocks * k_tiles), dim3(P::kThreads), 0, stream, p.a, packed_a, p.m, p.k, k_tiles);
    if (!aligned) {
      float* const packed_b = scratch(Scratch::kPackedB, std::size_t(col_blocks) * k_tiles * P::kChunkFloats);
      workbook::launch(pack_b_kernel<P>, dim3(col_blocks * k_tiles), dim3(P::kThreads), 0, stream, p.b, packed_b, p.k,
                       p.n, k_tiles);
      b = packed_b;
    }
  }

  const auto kernel = aligned ? sgemm_pipelined_kernel<P, kOrder, true> : sgemm_pipelined_kernel<P, kOrder, false>;
  static const int slots = block_slots(sgemm_pipelined_kernel<P, kOrder, true>, P::kThreads, P::kSharedBytes);
  int splits = splits_to_fill_gpu<P>(p, slots);
  const int tiles_per_split = workbook::ceil_div(std::max(k_tiles, 1), splits);  // whole tiles per slice
  splits = std::max(1, workbook::ceil_div(k_tiles, tiles_per_split));
  float* const partials = splits > 1 ? scratch(Scratch::kPartialProducts, splits * std::size_t(p.m) * p.n) : nullptr;
  workbook::launch(kernel, dim3(col_blocks, row_blocks, splits), dim3(P::kThreads), P::kSharedBytes, stream, packed_a,
                   b, p.c, p.m, p.n, p.k, k_tiles, tiles_per_split, partials);
  if (splits > 1) sum_splits(p, partials, splits, stream);
}

}  // namespace

void sgemm_coalesced(const GemmProblem& p, cudaStream_t stream) {
  if (!validate(p, "sgemm_coalesced", NaivePolicy::kBlockY)) return;
  const dim3 grid(workbook::ceil_div(p.n, NaivePolicy::kBlockX), workbook::ceil_div(p.m, NaivePolicy::kBlockY));
  workbook::launch(sgemm_naive_kernel, grid, dim3(NaivePolicy::kBlockX, NaivePolicy::kBlockY), 0, stream, p.a, p.b,
                   p.c, p.m, p.n, p.k);
}

void sgemm_shared_tiles(const GemmProblem& p, cudaStream_t stream) {
  if (!validate(p, "sgemm_shared_tiles", TilePolicy::kTile)) return;
  launch_tile_kernel<1>(p, stream);
}

void sgemm_2_outputs_per_thread(const GemmProblem& p, cudaStream_t stream) {
  if (!validate(p, "sgemm_2_outputs_per_thread", TilePolicy::kTile)) return;
  launch_tile_kernel<2>(p, stream);
}

void sgemm_4_outputs_per_thread(const GemmProblem& p, cudaStream_t stream) {
  if (!validate(p, "sgemm_4_outputs_per_thread", TilePolicy::kTile)) return;
  launch_tile_kernel<4>(p, stream);
}

void sgemm_8_outputs_per_thread(const GemmProblem& p, cudaStream_t stream) {
  if (!validate(p, "sgemm_8_outputs_per_thread", TilePolicy::kTile)) return;
  launch_tile_kernel<8>(p, stream);
}

void sgemm_rank1_updates(const GemmProblem& p, cudaStream_t stream) {
  if (!validate(p, "sgemm_rank1_updates", Rank1Policy::kRows)) return;
  const dim3 grid(workbook::ceil_div(p.n, Rank1Policy::kThreads), workbook::ceil_div(p.m, Rank1Policy::kRows));
  workbook::launch(sgemm_rank1_kernel<Rank1Policy>, grid, dim3(Rank1Policy::kThreads), 0, stream, p.a, p.b, p.c, p.m,
                   p.n, p.k);
}

void sgemm_register_blocked(const GemmProblem& p, cudaStream_t stream) {
  if (!validate(p, "sgemm_register_blocked", BlockedPolicy::kTileM)) return;
  launch_blocked_kernel<BlockedPolicy, false>(p, stream);
}

void sgemm_double_buffered(const GemmProblem& p, cudaStream_t stream) {
  if (!validate(p, "sgemm_double_buffered", BlockedPolicy::kTileM)) return;
  launch_blocked_kernel<BlockedPolicy, true>(p, stream);
}

void sgemm_split_k(const GemmProblem& p, cudaStream_t stream) {
  if (!validate(p, "sgemm_split_k", BlockedPolicy::kTileM)) return;
  static const int slots =
      block_slots(sgemm_blocked_kernel<BlockedPolicy, true, true>, BlockedPolicy::kThreads, 0);
  launch_blocked_kernel<BlockedPolicy, true>(p, stream, splits_to_fill_gpu<BlockedPolicy>(p, slots));
}

void sgemm_packed_pipeline(const GemmProblem& p, cudaStream_t stream) {
  if (!validate(p, "sgemm_packed_pipeline", PipelinedPolicy::kTileM)) return;
  launch_pipelined_kernel<PipelinedPolicy, FmaOrder::kColumnsZigZag>(p, stream);
}

}  // namespace sgemm_lab
