// Lab 04_sgemm, reference solution, steps 04.7 to 04.9: 2D register blocking, double buffering,
// split-k. Part of sgemm.cu (it includes this file inside its anonymous namespace's scope).
//
// A block of 256 threads computes a 128 x 128 tile of C, each thread an 8 x 8 piece of it: two
// 4-row quads (rows 4ty and 64 + 4ty) by two 4-column quads (columns 4tx and 64 + 4tx), so that a
// warp's float4 loads from shared memory hit distinct banks or broadcast. Per k, a thread loads 8
// floats of A and 8 of B (four LDS.128) and does 64 FMAs: an outer product, the rank-1 update of
// 04.6 in two dimensions. The three kernels share the pieces below (fetch a tile pair, store it,
// multiply it, write the piece of C) and differ only in the loop around them: the lesson of each
// step is in its kernel's loop.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "given.cuh"
#include "sgemm.h"
#include "workbook/launch.cuh"

namespace sgemm_lab {
namespace {

struct BlockedPolicy {
  static constexpr int kTileM = 128;   // rows of C per block
  static constexpr int kTileN = 128;   // columns of C per block
  static constexpr int kDepth = 16;    // k per tile: 8 measured 6 points slower (two barriers per 8 k)
  static constexpr int kThreadM = 8;   // rows of C per thread: two quads, kTileM / 2 apart
  static constexpr int kThreadN = 8;   // columns of C per thread: two quads, kTileN / 2 apart
  static constexpr int kThreads = (kTileM / kThreadM) * (kTileN / kThreadN);
  // A's tile is stored transposed (k-major), so that a thread's 4 consecutive rows are one float4.
  // Its rows are padded to 132 floats: the loading threads write it four k-rows apart, and 132 spreads
  // a warp's stores over 16 banks, two-way conflicted, where 128 puts them in 8, four-way; no pitch
  // that keeps float4 alignment does better with this fetch order.
  static constexpr int kPitchA = kTileM + 4;
  static constexpr int kLoadsA = kTileM * kDepth / 4 / kThreads;  // float4 of A per thread per tile
  static constexpr int kLoadsB = kDepth * kTileN / 4 / kThreads;  // float4 of B per thread per tile
  static_assert(kThreadM == 8 && kThreadN == 8, "each thread's outputs are two 4 x 4 quads in each direction");
  static_assert(kPitchA % 4 == 0, "A's transposed rows must stay 16-byte aligned");
  static_assert(kDepth % 4 == 0 && kLoadsA >= 1 && kLoadsB >= 1 && kLoadsA * kThreads * 4 == kTileM * kDepth &&
                    kLoadsB * kThreads * 4 == kDepth * kTileN,
                "the tiles split into whole float4s, the same number for every thread");
};

// The thread's place in the block's tile of C: its quads start at column 4 tx and row 4 ty.
template <typename P>
struct ThreadPlace {
  int t = threadIdx.x;
  int tx = t % (P::kTileN / P::kThreadN);
  int ty = t / (P::kTileN / P::kThreadN);
};

// Whether `pointer` may be read or written as float4 (16-byte aligned).
bool aligned16(const void* pointer) { return reinterpret_cast<std::uintptr_t>(pointer) % 16 == 0; }

// Elements (row, col .. col + 3) of a row-major matrix `width` floats wide, zeros where row >= row_end
// or col >= col_end (the matrix's edge, or the end of a slice of k). kVectorLoads: the rows start
// on 16-byte boundaries and col, col_end are multiples of 4, so the four are all in or all out.
template <bool kVectorLoads>
__device__ inline float4 load4(const float* matrix, int width, int row, int col, int row_end, int col_end) {
  if constexpr (kVectorLoads) {
    if (row < row_end && col < col_end) return *reinterpret_cast<const float4*>(matrix + at(row, col, width));
    return make_float4(0.0f, 0.0f, 0.0f, 0.0f);
  } else {
    float v[4];
#pragma unroll
    for (int e = 0; e < 4; ++e) v[e] = (row < row_end && col + e < col_end) ? matrix[at(row, col + e, width)] : 0.0f;
    return make_float4(v[0], v[1], v[2], v[3]);
  }
}

// What one thread fetches of one pair of tiles, in registers between the load and the store.
template <typename P>
struct TileLoad {
  float4 a[P::kLoadsA];
  float4 b[P::kLoadsB];
};

// This thread's share of the tiles of A (rows first_row .., columns k0 ..) and of B (rows k0 ..,
// columns first_col ..), zeros past m, n and k_end: load l is float4 number t + l * kThreads of a
// tile, counted along its rows, so that a warp reads whole rows.
template <typename P, bool kVectorLoads>
__device__ inline TileLoad<P> fetch_tiles(const float* a, const float* b, int m, int n, int k, int first_row,
                                          int first_col, int k0, int k_end) {
  const int t = threadIdx.x;
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
}

// Stores what fetch_tiles() fetched: A transposed ([kk][row], pitch kPitchA), B as it is ([kk][col]).
template <typename P>
__device__ inline void store_tiles(const TileLoad<P>& next, float* a_tile, float* b_tile) {
  const int t = threadIdx.x;
#pragma unroll
  for (int l = 0; l < P::kLoadsA; ++l) {
    const int e = t + l * P::kThreads, row = e / (P::kDepth / 4), q = e % (P::kDepth / 4);
    a_tile[(4 * q + 0) * P::kPitchA + row] = next.a[l].x;
    a_tile[(4 * q + 1) * P::kPitchA + row] = next.a[l].y;
    a_tile[(4 * q + 2) * P::kPitchA + row] = next.a[l].z;
    a_tile[(4 * q + 3) * P::kPitchA + row] = next.a[l].w;
  }
#pragma unroll
  for (int l = 0; l < P::kLoadsB; ++l) {
    const int e = t + l * P::kThreads, row = e / (P::kTileN / 4), q = e % (P::kTileN / 4);
    *reinterpret_cast<float4*>(b_tile + row * P::kTileN + 4 * q) = next.b[l];
  }
}

// The order in which a thread does the 64 FMAs of one k. Each sum gets its k terms in the same
// order either way, so C is the same to the last bit; only the instruction schedule and the
// register allocation change, and with them the speed: NOTES.md has the measurements. 04.10 uses
// the faster; the other stays as a parameter so that experiments/ can measure it again.
enum class FmaOrder {
  kRowByRow,      // sum[0][0..7], sum[1][0..7], ...: 04.7 to 04.9
  kColumnsZigZag  // down column 0, up column 1, down column 2, ...
};

// One k's 64 FMAs: sum += a_values (a column) times b_values (a row), in kOrder.
template <typename P, FmaOrder kOrder>
__device__ inline void outer_product(const float (&a_values)[P::kThreadM], const float (&b_values)[P::kThreadN],
                                     float (&sum)[P::kThreadM][P::kThreadN]) {
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

// The 8 x 8 outer products of one tile pair in shared memory: A's tile [kk][row] with rows
// kPitchA floats apart, B's tile [kk][col].
template <typename P, FmaOrder kOrder, int kPitchA>
__device__ inline void multiply_tile(const float* a_tile, const float* b_tile, int tx, int ty,
                                     float (&sum)[P::kThreadM][P::kThreadN]) {
  constexpr int kHalfM = P::kTileM / 2, kHalfN = P::kTileN / 2;
#pragma unroll
  for (int kk = 0; kk < P::kDepth; ++kk) {
    const float4 a_low = *reinterpret_cast<const float4*>(a_tile + kk * kPitchA + 4 * ty);
    const float4 a_high = *reinterpret_cast<const float4*>(a_tile + kk * kPitchA + kHalfM + 4 * ty);
    const float4 b_low = *reinterpret_cast<const float4*>(b_tile + kk * P::kTileN + 4 * tx);
    const float4 b_high = *reinterpret_cast<const float4*>(b_tile + kk * P::kTileN + kHalfN + 4 * tx);
    const float a_values[P::kThreadM] = {a_low.x, a_low.y, a_low.z, a_low.w, a_high.x, a_high.y, a_high.z, a_high.w};
    const float b_values[P::kThreadN] = {b_low.x, b_low.y, b_low.z, b_low.w, b_high.x, b_high.y, b_high.z, b_high.w};
    outer_product<P, kOrder>(a_values, b_values, sum);
  }
}

// Write a thread's 8 x 8 piece of the block's tile of C (first_row, first_col): rows 4ty + r and
// kTileM / 2 + 4ty + r, columns 4tx ... and kTileN / 2 + 4tx .... kVectorStores: n is a multiple
// of 4 and out 16-byte aligned, so each quad of a row is in or out whole and goes as one float4.
// kRowsApart: the thread's rows are ty, ty + 16, ... instead (experiments/copy_engine_kernels.cuh).
template <typename P, bool kVectorStores, bool kRowsApart = false>
__device__ inline void store_piece(const float (&sum)[P::kThreadM][P::kThreadN], float* out, int first_row,
                                   int first_col, int m, int n, int tx, int ty) {
  constexpr int kHalfM = P::kTileM / 2, kHalfN = P::kTileN / 2;
#pragma unroll
  for (int r = 0; r < P::kThreadM; ++r) {
    const int quad_row = r < 4 ? 4 * ty + r : kHalfM + 4 * ty + r - 4;
    const int row_in_tile = kRowsApart ? ty + (P::kTileM / P::kThreadM) * r : quad_row;
    const int i = first_row + row_in_tile;
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

// ---------------------------------------------------------------------------------------------
// 04.7: one tile pair in shared memory: fetch it, wait, multiply it, wait, the next.
// kVectorLoads: A's and B's rows start on 16-byte boundaries (k and n multiples of 4, aligned
// pointers), so each thread fetches its part of each tile as float4s, and writes C as float4s.
template <typename P, bool kVectorLoads>
__global__ void __launch_bounds__(P::kThreads)
    sgemm_register_blocked_kernel(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c,
                                  int m, int n, int k) {
  __shared__ __align__(16) float a_tile[P::kDepth][P::kPitchA];  // [kk][row]
  __shared__ __align__(16) float b_tile[P::kDepth][P::kTileN];   // [kk][col]
  const ThreadPlace<P> me;
  const int first_row = blockIdx.y * P::kTileM, first_col = blockIdx.x * P::kTileN;

  float sum[P::kThreadM][P::kThreadN] = {};
  for (int k0 = 0; k0 < k; k0 += P::kDepth) {
    store_tiles<P>(fetch_tiles<P, kVectorLoads>(a, b, m, n, k, first_row, first_col, k0, k), &a_tile[0][0],
                   &b_tile[0][0]);
    __syncthreads();  // the tiles are complete
    multiply_tile<P, FmaOrder::kRowByRow, P::kPitchA>(&a_tile[0][0], &b_tile[0][0], me.tx, me.ty, sum);
    __syncthreads();  // everyone is done with them before they are overwritten
  }
  store_piece<P, kVectorLoads>(sum, c, first_row, first_col, m, n, me.tx, me.ty);
}

// ---------------------------------------------------------------------------------------------
// 04.8: two copies of each tile. The next pair is fetched into registers before this one is
// multiplied, and stored to the other copy after, so that the loads' latency can hide behind the
// tile's 1024 FMAs per thread, with one barrier per tile instead of two. (Whether it does is up to
// ptxas, which may move the loads down to the stores: the handout shows how to check.)
template <typename P, bool kVectorLoads>
__global__ void __launch_bounds__(P::kThreads)
    sgemm_double_buffered_kernel(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c,
                                 int m, int n, int k) {
  __shared__ __align__(16) float a_tiles[2][P::kDepth][P::kPitchA];
  __shared__ __align__(16) float b_tiles[2][P::kDepth][P::kTileN];
  const ThreadPlace<P> me;
  const int first_row = blockIdx.y * P::kTileM, first_col = blockIdx.x * P::kTileN;
  const int tiles = (k + P::kDepth - 1) / P::kDepth;

  float sum[P::kThreadM][P::kThreadN] = {};
  if (tiles > 0)
    store_tiles<P>(fetch_tiles<P, kVectorLoads>(a, b, m, n, k, first_row, first_col, 0, k), &a_tiles[0][0][0],
                   &b_tiles[0][0][0]);
  __syncthreads();
  for (int tile = 0; tile < tiles; ++tile) {
    const int buffer = tile % 2;
    TileLoad<P> next{};
    if (tile + 1 < tiles)  // in flight while this tile is multiplied
      next = fetch_tiles<P, kVectorLoads>(a, b, m, n, k, first_row, first_col, (tile + 1) * P::kDepth, k);
    multiply_tile<P, FmaOrder::kRowByRow, P::kPitchA>(&a_tiles[buffer][0][0], &b_tiles[buffer][0][0], me.tx, me.ty,
                                                      sum);
    if (tile + 1 < tiles) store_tiles<P>(next, &a_tiles[1 - buffer][0][0], &b_tiles[1 - buffer][0][0]);  // unread now
    __syncthreads();  // the next tile is complete, and this one is free to be overwritten
  }
  store_piece<P, kVectorLoads>(sum, c, first_row, first_col, m, n, me.tx, me.ty);
}

// ---------------------------------------------------------------------------------------------
// 04.9: split-k. At 1000^3, C has 8 x 8 = 64 tiles of 128 x 128, and 04.8 runs 64 blocks on a GPU
// that holds 2 x 132 of them at once: three quarters of it idle, whatever the kernel. Split k
// instead: blocks (tile, s) for s = 0 .. splits - 1 each multiply one slice of k, write a partial
// product, and a second kernel adds the slices up. It costs a round trip of splits x m x n floats
// through memory (L2, at these sizes), and pays when the tiles alone leave SMs idle. The sum runs
// in split order, so C does not depend on which block finished first (atomicAdd would).
//
// 04.8's kernel on the slice of k that blockIdx.z names, k_per_split deep (a whole number of
// tiles). With one slice the block writes C; with several, its partial product goes to
// partials + blockIdx.z m n, laid out like C.
template <typename P, bool kVectorLoads>
__global__ void __launch_bounds__(P::kThreads)
    sgemm_split_k_kernel(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c, int m, int n,
                         int k, int k_per_split, float* __restrict__ partials) {
  __shared__ __align__(16) float a_tiles[2][P::kDepth][P::kPitchA];
  __shared__ __align__(16) float b_tiles[2][P::kDepth][P::kTileN];
  const ThreadPlace<P> me;
  const int first_row = blockIdx.y * P::kTileM, first_col = blockIdx.x * P::kTileN;
  const int k_begin = blockIdx.z * k_per_split, k_end = min(k, k_begin + k_per_split);
  const int tiles = k_end > k_begin ? (k_end - k_begin + P::kDepth - 1) / P::kDepth : 0;

  float sum[P::kThreadM][P::kThreadN] = {};
  if (tiles > 0)
    store_tiles<P>(fetch_tiles<P, kVectorLoads>(a, b, m, n, k, first_row, first_col, k_begin, k_end),
                   &a_tiles[0][0][0], &b_tiles[0][0][0]);
  __syncthreads();
  for (int tile = 0; tile < tiles; ++tile) {
    const int buffer = tile % 2;
    TileLoad<P> next{};
    if (tile + 1 < tiles)
      next = fetch_tiles<P, kVectorLoads>(a, b, m, n, k, first_row, first_col, k_begin + (tile + 1) * P::kDepth, k_end);
    multiply_tile<P, FmaOrder::kRowByRow, P::kPitchA>(&a_tiles[buffer][0][0], &b_tiles[buffer][0][0], me.tx, me.ty,
                                                      sum);
    if (tile + 1 < tiles) store_tiles<P>(next, &a_tiles[1 - buffer][0][0], &b_tiles[1 - buffer][0][0]);
    __syncthreads();
  }
  float* const out = gridDim.z == 1 ? c : partials + std::size_t(blockIdx.z) * m * n;
  store_piece<P, kVectorLoads>(sum, out, first_row, first_col, m, n, me.tx, me.ty);
}

// C = the sum of the slices' partial products, added in slice order.
__global__ void sum_splits_kernel(const float* __restrict__ partials, float* __restrict__ c, std::size_t count,
                                  int splits) {
  for (std::size_t e = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; e < count;
       e += std::size_t(gridDim.x) * blockDim.x) {
    float total = 0.0f;
    for (int s = 0; s < splits; ++s) total += partials[s * count + e];
    c[e] = total;
  }
}

void sum_splits(const GemmProblem& p, const float* partials, int splits, cudaStream_t stream) {
  constexpr int kSumThreads = 256;
  const std::size_t c_floats = std::size_t(p.m) * p.n;
  const int sum_blocks =
      static_cast<int>(std::min<std::size_t>(workbook::ceil_div(c_floats, std::size_t(kSumThreads)), 4096));
  workbook::launch(sum_splits_kernel, dim3(sum_blocks), dim3(kSumThreads), 0, stream, partials, p.c, c_floats, splits);
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

// 04.9's slices for a problem: how many, and how deep (a whole number of tiles; rounding the depth
// up may leave fewer slices than the GPU has room for). The launcher and the workspace query both
// ask this one function, so that they agree.
struct SplitPlan {
  int splits = 1;       // slices of k; 1: the kernel writes C, no workspace, no second kernel
  int k_per_split = 0;  // each slice's depth
  std::size_t workspace_bytes(const GemmProblem& p) const {
    return splits > 1 ? std::size_t(splits) * std::size_t(p.m) * std::size_t(p.n) * sizeof(float) : 0;
  }
};

SplitPlan plan_split_k(const GemmProblem& p) {
  using P = BlockedPolicy;
  SplitPlan plan;
  plan.k_per_split = p.k;
  if (p.m <= 0 || p.n <= 0 || p.k <= 0) return plan;
  static const int slots = block_slots(sgemm_split_k_kernel<P, true>, P::kThreads, 0);
  const int wanted = splits_to_fill_gpu<P>(p, slots);
  if (wanted > 1) {
    plan.k_per_split = workbook::ceil_div(workbook::ceil_div(p.k, wanted), P::kDepth) * P::kDepth;
    plan.splits = workbook::ceil_div(p.k, plan.k_per_split);
  }
  return plan;
}

// Whether every row of A, B and C starts on a 16-byte boundary, so that the kernels may move them
// as float4 (k and n multiples of 4, the pointers 16-byte aligned).
bool rows_are_16_byte_aligned(const GemmProblem& p) {
  return p.k % 4 == 0 && p.n % 4 == 0 && aligned16(p.a) && aligned16(p.b) && aligned16(p.c);
}

}  // namespace
}  // namespace sgemm_lab
