// Lab 04_sgemm: register blocking and lower occupancy, to cuBLAS speed. This is the file you edit.
//
// C = A B does 2 m n k flops on m k + k n + m n floats: at 4096^3, 137 GFLOP on 192 MiB. Memory is
// not the limit; feeding the FMA units is. Each FMA needs two operands, and only registers deliver
// them as fast as the FMA units consume them: shared memory delivers an eighth of that. So every
// step makes each operand a thread loads serve more FMAs; labs/04_sgemm/README.md explains each
// one, with the numbers this GPU measured, and the bar it must clear.
//   TODO(04.1)  naive, one output per thread, threadIdx.x along the columns of C
//   TODO(04.2)  32 x 32 tiles of A and B in shared memory, one output per thread
//   TODO(04.3)  2 outputs per thread (32 x 16 threads)
//   TODO(04.4)  4 outputs per thread (32 x 8 threads)
//   TODO(04.5)  8 outputs per thread (32 x 4 threads)
//   TODO(04.6)  rank-1 updates: A's tile in shared memory, B through registers, C in registers
//   TODO(04.7)  2D register blocking: 128 x 128 tiles, 8 x 8 outputs per thread
//   TODO(04.8)  double buffering
//   TODO(04.9)  split-k: fill the GPU when C has fewer tiles than it has room for blocks
//   TODO(04.10) pack A (transposed, tile by tile) and copy tiles with cp.async, three in flight
//   TODO(04.11) Hopper: 256 x 128 tiles, 16 x 8 outputs per thread, fed by a producer warpgroup
//               through the copy engine and mbarriers (compute capability 9.0 and newer)
// FP32 FMA on the CUDA cores only: no tensor cores, no TF32, and no library (the grader checks).
// Grade it with `./workbook grade 04_sgemm`.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>

#include "copy_engine.cuh"  // given: tensor maps, mbarriers, register hand-over for TODO(04.11)
#include "cp_async.cuh"     // given: cp.async for TODO(04.10)
#include "given.cuh"        // given: validate(), workspace_of(), at()
#include "sgemm.h"
#include "workbook/launch.cuh"

namespace sgemm_lab {

namespace {

// TODO(04.1): a kernel with one thread per element of C, blocks of 32 x 8 threads, threadIdx.x
// along j (the columns of C and B): sum A(i, kk) B(kk, j) over kk with fmaf() and store it.
//
// TODO(04.2 to 04.5): one template, sgemm_tile_kernel<kOutputsPerThread>. A block computes a 32 x 32
// tile of C with 32 x (32 / kOutputsPerThread) threads; thread (x, y) computes column x, rows y,
// y + 32 / R, .... Loop over k in steps of 32: load a 32 x 32 tile of A and one of B into shared
// memory (zeros outside the matrices), __syncthreads(), accumulate, __syncthreads(). In the inner
// loop load b_tile[kk][x] once and use it for all R outputs.
//
// TODO(04.6): the handout describes the kernel (a 64 x 256 tile of C, 256 threads, one column of
// 64 outputs each).
// TODO(04.7), TODO(04.8): the handout describes them, with the layout that avoids bank conflicts.
// TODO(04.9): 04.8's kernel on a grid with a third dimension, blockIdx.z a slice of k; then a
// second kernel that adds the slices' partial products. The handout says when to split and how far.
// The partial products go in the problem's workspace: sgemm_split_k_workspace_bytes() says how
// much it needs, and the launcher gets it with workspace_of().
// TODO(04.10): a kernel that packs A, each 128 x 16 tile transposed into a contiguous chunk (and
// one that packs B when its rows are not 16-byte aligned), then 04.8's multiply fed by cp.async
// copies of whole chunks, three tiles in flight (cp_async.cuh gives the copies); split k as in
// 04.9. The packed operands and the partial products share the workspace. The handout has the
// details.
// TODO(04.11): 12 warps, one block per SM. Warps 8 to 11 (a warpgroup) give their registers away
// and one of their threads asks the copy engine for each stage's two tiles (A packed as in 04.10,
// 256 rows a chunk; B in place, or copied to aligned rows), counted on the stage's "landed"
// mbarrier; it refills a stage only after its "freed" mbarrier says all 8 consumer warps are done
// with it. Warps 0 to 7 take the registers, wait for each stage, do its 16 k of 16 x 8 outer
// products and say they are done. copy_engine.cuh gives the instructions; the handout has the
// layout.
using copy_engine::TileMap;

__host__ __device__ inline bool aligned16(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; }

// ---------------------------------------------------------------------------------------------
// TODO(04.1): one thread per element of C, threadIdx.x along j.
constexpr int kCoalescedCols = 32;
constexpr int kCoalescedRows = 8;

__global__ void __launch_bounds__(kCoalescedCols * kCoalescedRows)
    sgemm_coalesced_kernel(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c, int m, int n,
                           int k) {
  const int j = blockIdx.x * kCoalescedCols + threadIdx.x;
  const int i = blockIdx.y * kCoalescedRows + threadIdx.y;
  if (i >= m || j >= n) return;
  const float* a_row = a + at(i, 0, k);
  float sum = 0.0f;
  for (int kk = 0; kk < k; ++kk) sum = fmaf(a_row[kk], b[at(kk, j, n)], sum);
  c[at(i, j, n)] = sum;
}

// ---------------------------------------------------------------------------------------------
// TODO(04.2 to 04.5): 32 x 32 tiles in shared memory, R outputs of one column per thread.
constexpr int kSmallTile = 32;

template <int kOutputsPerThread>
__global__ void __launch_bounds__(kSmallTile * kSmallTile / kOutputsPerThread)
    sgemm_tile_kernel(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c, int m, int n,
                      int k) {
  constexpr int kRowStep = kSmallTile / kOutputsPerThread;  // blockDim.y
  __shared__ float a_tile[kSmallTile][kSmallTile];
  __shared__ float b_tile[kSmallTile][kSmallTile];
  const int x = threadIdx.x, y = threadIdx.y;
  const int row0 = blockIdx.y * kSmallTile;
  const int col = blockIdx.x * kSmallTile + x;
  float acc[kOutputsPerThread];
#pragma unroll
  for (int r = 0; r < kOutputsPerThread; ++r) acc[r] = 0.0f;

  for (int k0 = 0; k0 < k; k0 += kSmallTile) {
#pragma unroll
    for (int r = 0; r < kOutputsPerThread; ++r) {
      const int row = y + r * kRowStep;
      a_tile[row][x] = (row0 + row < m && k0 + x < k) ? a[at(row0 + row, k0 + x, k)] : 0.0f;
      b_tile[row][x] = (k0 + row < k && col < n) ? b[at(k0 + row, col, n)] : 0.0f;
    }
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < kSmallTile; ++kk) {
      const float b_value = b_tile[kk][x];
#pragma unroll
      for (int r = 0; r < kOutputsPerThread; ++r) acc[r] = fmaf(a_tile[y + r * kRowStep][kk], b_value, acc[r]);
    }
    __syncthreads();
  }
  if (col >= n) return;
#pragma unroll
  for (int r = 0; r < kOutputsPerThread; ++r) {
    const int row = row0 + y + r * kRowStep;
    if (row < m) c[at(row, col, n)] = acc[r];
  }
}

template <int kOutputsPerThread>
void launch_tile_kernel(const GemmProblem& p, cudaStream_t stream) {
  const dim3 grid(workbook::ceil_div(p.n, kSmallTile), workbook::ceil_div(p.m, kSmallTile));
  const dim3 block(kSmallTile, kSmallTile / kOutputsPerThread);
  workbook::launch(sgemm_tile_kernel<kOutputsPerThread>, grid, block, 0, stream, p.a, p.b, p.c, p.m, p.n, p.k);
}

// ---------------------------------------------------------------------------------------------
// TODO(04.6): rank-1 updates. A block of 256 threads, a 64 x 256 tile of C; thread x keeps its
// column's 64 sums in registers, B(k, x) comes from global memory into a register, A's tile sits
// in shared memory k-major (transposed), read as sixteen float4 broadcasts per k. Tile depth 8.
constexpr int kRank1Rows = 64;
constexpr int kRank1Cols = 256;
constexpr int kRank1Depth = 8;
constexpr int kRank1Pitch = kRank1Rows + 4;  // 16-byte rows; the transposed stores hit 32 banks

__global__ void __launch_bounds__(kRank1Cols, 2)
    sgemm_rank1_kernel(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c, int m, int n,
                       int k) {
  __shared__ __align__(16) float a_tile[kRank1Depth][kRank1Pitch];
  const int t = threadIdx.x;
  const int row0 = blockIdx.y * kRank1Rows;
  const int col = blockIdx.x * kRank1Cols + t;
  const bool col_inside = col < n;
  float acc[kRank1Rows];
#pragma unroll
  for (int r = 0; r < kRank1Rows; ++r) acc[r] = 0.0f;

  for (int k0 = 0; k0 < k; k0 += kRank1Depth) {
    // B's eight values first: their loads are in flight while A is stored and the block waits.
    float b_values[kRank1Depth];
#pragma unroll
    for (int kk = 0; kk < kRank1Depth; ++kk)
      b_values[kk] = (col_inside && k0 + kk < k) ? b[at(k0 + kk, col, n)] : 0.0f;
    // A's 64 x 8 tile, 2 elements per thread, stored transposed.
#pragma unroll
    for (int i = 0; i < kRank1Rows * kRank1Depth / kRank1Cols; ++i) {
      const int e = t + i * kRank1Cols;
      const int r = e / kRank1Depth, kk = e % kRank1Depth;
      a_tile[kk][r] = (row0 + r < m && k0 + kk < k) ? a[at(row0 + r, k0 + kk, k)] : 0.0f;
    }
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < kRank1Depth; ++kk) {
      const float4* a_row = reinterpret_cast<const float4*>(&a_tile[kk][0]);
#pragma unroll
      for (int q = 0; q < kRank1Rows / 4; ++q) {
        const float4 av = a_row[q];
        acc[4 * q + 0] = fmaf(av.x, b_values[kk], acc[4 * q + 0]);
        acc[4 * q + 1] = fmaf(av.y, b_values[kk], acc[4 * q + 1]);
        acc[4 * q + 2] = fmaf(av.z, b_values[kk], acc[4 * q + 2]);
        acc[4 * q + 3] = fmaf(av.w, b_values[kk], acc[4 * q + 3]);
      }
    }
    __syncthreads();
  }
  if (!col_inside) return;
#pragma unroll
  for (int r = 0; r < kRank1Rows; ++r)
    if (row0 + r < m) c[at(row0 + r, col, n)] = acc[r];
}

// ---------------------------------------------------------------------------------------------
// TODO(04.7 to 04.10): 128 x 128 tiles of C, 256 threads (16 x 16), each an 8 x 8 piece: rows
// 4 ty .. 4 ty + 3 and 64 + 4 ty .. 64 + 4 ty + 3, columns likewise with tx. Tile depth 16.
constexpr int kTile = 128;
constexpr int kDepth = 16;
constexpr int kThreads = 256;
constexpr int kPaddedPitch = kTile + 4;  // A's transposed tile in 04.7 and 04.8
constexpr int kChunkFloats = kTile * kDepth;  // one packed 128 x 16 tile: 8 KiB

// A thread's share of one tile pair, fetched from global memory: two float4 of A (rows
// t / 4 and 64 + t / 4, k 4 (t % 4) ...) and two of B (rows t / 32 and 8 + t / 32, columns 4 (t % 32) ...).
struct Fetched {
  float4 a[2];
  float4 b[2];
};

template <bool kVectorized>
__device__ __forceinline__ void fetch_tiles(const float* __restrict__ a, const float* __restrict__ b, int m, int n,
                                            int k, int row0, int col0, int k0, int t, Fetched& f) {
  const int a_k = k0 + (t % 4) * 4;
#pragma unroll
  for (int i = 0; i < 2; ++i) {
    const int row = row0 + t / 4 + 64 * i;
    if constexpr (kVectorized) {
      f.a[i] = (row < m && a_k < k) ? __ldg(reinterpret_cast<const float4*>(a + at(row, a_k, k)))
                                    : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    } else {
      const bool row_ok = row < m;
      f.a[i].x = (row_ok && a_k + 0 < k) ? a[at(row, a_k + 0, k)] : 0.0f;
      f.a[i].y = (row_ok && a_k + 1 < k) ? a[at(row, a_k + 1, k)] : 0.0f;
      f.a[i].z = (row_ok && a_k + 2 < k) ? a[at(row, a_k + 2, k)] : 0.0f;
      f.a[i].w = (row_ok && a_k + 3 < k) ? a[at(row, a_k + 3, k)] : 0.0f;
    }
  }
  const int b_col = col0 + (t % 32) * 4;
#pragma unroll
  for (int i = 0; i < 2; ++i) {
    const int row = k0 + t / 32 + 8 * i;
    if constexpr (kVectorized) {
      f.b[i] = (row < k && b_col < n) ? __ldg(reinterpret_cast<const float4*>(b + at(row, b_col, n)))
                                      : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    } else {
      const bool row_ok = row < k;
      f.b[i].x = (row_ok && b_col + 0 < n) ? b[at(row, b_col + 0, n)] : 0.0f;
      f.b[i].y = (row_ok && b_col + 1 < n) ? b[at(row, b_col + 1, n)] : 0.0f;
      f.b[i].z = (row_ok && b_col + 2 < n) ? b[at(row, b_col + 2, n)] : 0.0f;
      f.b[i].w = (row_ok && b_col + 3 < n) ? b[at(row, b_col + 3, n)] : 0.0f;
    }
  }
}

// A's part lands transposed (a_tile[kk][row], rows kPaddedPitch floats apart), B's as it is.
__device__ __forceinline__ void stash_tiles(float* a_tile, float* b_tile, const Fetched& f, int t) {
  const int a_k = (t % 4) * 4;
#pragma unroll
  for (int i = 0; i < 2; ++i) {
    const int row = t / 4 + 64 * i;
    a_tile[(a_k + 0) * kPaddedPitch + row] = f.a[i].x;
    a_tile[(a_k + 1) * kPaddedPitch + row] = f.a[i].y;
    a_tile[(a_k + 2) * kPaddedPitch + row] = f.a[i].z;
    a_tile[(a_k + 3) * kPaddedPitch + row] = f.a[i].w;
  }
#pragma unroll
  for (int i = 0; i < 2; ++i)
    *reinterpret_cast<float4*>(b_tile + (t / 32 + 8 * i) * kTile + (t % 32) * 4) = f.b[i];
}

// The 16 k of one tile pair: per k, two float4 of A and two of B, 64 FMAs (row by row, or, with
// kSnake, down column 0, up column 1, ...: the same sums in the same order, another schedule).
template <int kAPitch, bool kSnake = false>
__device__ __forceinline__ void multiply_tile(const float* a_tile, const float* b_tile, int tx, int ty,
                                              float (&acc)[8][8]) {
#pragma unroll
  for (int kk = 0; kk < kDepth; ++kk) {
    const float4 a0 = *reinterpret_cast<const float4*>(a_tile + kk * kAPitch + 4 * ty);
    const float4 a1 = *reinterpret_cast<const float4*>(a_tile + kk * kAPitch + 64 + 4 * ty);
    const float4 b0 = *reinterpret_cast<const float4*>(b_tile + kk * kTile + 4 * tx);
    const float4 b1 = *reinterpret_cast<const float4*>(b_tile + kk * kTile + 64 + 4 * tx);
    const float av[8] = {a0.x, a0.y, a0.z, a0.w, a1.x, a1.y, a1.z, a1.w};
    const float bv[8] = {b0.x, b0.y, b0.z, b0.w, b1.x, b1.y, b1.z, b1.w};
    if constexpr (kSnake) {
#pragma unroll
      for (int j = 0; j < 8; ++j)
#pragma unroll
        for (int step = 0; step < 8; ++step) {
          const int i = j % 2 == 0 ? step : 7 - step;
          acc[i][j] = fmaf(av[i], bv[j], acc[i][j]);
        }
    } else {
#pragma unroll
      for (int i = 0; i < 8; ++i)
#pragma unroll
        for (int j = 0; j < 8; ++j) acc[i][j] = fmaf(av[i], bv[j], acc[i][j]);
    }
  }
}

// A thread's 8 x 8 piece into C (guarded; float4 when C's rows start on 16-byte boundaries).
__device__ __forceinline__ void store_piece(float* __restrict__ c, int m, int n, int row0, int col0, int tx, int ty,
                                            const float (&acc)[8][8], bool vectorized) {
#pragma unroll
  for (int i = 0; i < 8; ++i) {
    const int row = row0 + (i < 4 ? 4 * ty + i : 64 + 4 * ty + i - 4);
    if (row >= m) continue;
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int col = col0 + 64 * h + 4 * tx;
      if (vectorized) {
        if (col < n)
          *reinterpret_cast<float4*>(c + at(row, col, n)) =
              make_float4(acc[i][4 * h + 0], acc[i][4 * h + 1], acc[i][4 * h + 2], acc[i][4 * h + 3]);
      } else {
#pragma unroll
        for (int j = 0; j < 4; ++j)
          if (col + j < n) c[at(row, col + j, n)] = acc[i][4 * h + j];
      }
    }
  }
}

__device__ __forceinline__ void zero(float (&acc)[8][8]) {
#pragma unroll
  for (int i = 0; i < 8; ++i)
#pragma unroll
    for (int j = 0; j < 8; ++j) acc[i][j] = 0.0f;
}

// TODO(04.7): 2D register blocking, one copy of each tile, two barriers per tile.
template <bool kVectorized>
__global__ void __launch_bounds__(kThreads, 2)
    sgemm_register_blocked_kernel(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c,
                                  int m, int n, int k) {
  __shared__ __align__(16) float a_tile[kDepth * kPaddedPitch];
  __shared__ __align__(16) float b_tile[kDepth * kTile];
  const int t = threadIdx.x, tx = t % 16, ty = t / 16;
  const int row0 = blockIdx.y * kTile, col0 = blockIdx.x * kTile;
  float acc[8][8];
  zero(acc);
  for (int k0 = 0; k0 < k; k0 += kDepth) {
    Fetched f;
    fetch_tiles<kVectorized>(a, b, m, n, k, row0, col0, k0, t, f);
    stash_tiles(a_tile, b_tile, f, t);
    __syncthreads();
    multiply_tile<kPaddedPitch>(a_tile, b_tile, tx, ty, acc);
    __syncthreads();
  }
  store_piece(c, m, n, row0, col0, tx, ty, acc, kVectorized);
}

// TODO(04.8), and 04.9's first kernel: two copies of each tile, one barrier per tile. Block
// (x, y, s) multiplies the slice of k [s slice_k, (s + 1) slice_k) and writes its product to
// c + s m n (slice_k a multiple of 16, or k itself with one slice).
template <bool kVectorized>
__global__ void __launch_bounds__(kThreads, 2)
    sgemm_double_buffered_kernel(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c,
                                 int m, int n, int k, int slice_k) {
  __shared__ __align__(16) float a_tiles[2][kDepth * kPaddedPitch];
  __shared__ __align__(16) float b_tiles[2][kDepth * kTile];
  const int t = threadIdx.x, tx = t % 16, ty = t / 16;
  const int row0 = blockIdx.y * kTile, col0 = blockIdx.x * kTile;
  const int k_begin = blockIdx.z * slice_k;
  const int k_end = min(k, k_begin + slice_k);
  c += std::size_t(blockIdx.z) * m * n;
  float acc[8][8];
  zero(acc);
  if (k_begin < k_end) {
    Fetched f;
    fetch_tiles<kVectorized>(a, b, m, n, k, row0, col0, k_begin, t, f);
    stash_tiles(a_tiles[0], b_tiles[0], f, t);
    __syncthreads();
    int buffer = 0;
    for (int k0 = k_begin; k0 < k_end; k0 += kDepth) {
      const bool more = k0 + kDepth < k_end;
      if (more) fetch_tiles<kVectorized>(a, b, m, n, k, row0, col0, k0 + kDepth, t, f);
      multiply_tile<kPaddedPitch>(a_tiles[buffer], b_tiles[buffer], tx, ty, acc);
      if (more) stash_tiles(a_tiles[buffer ^ 1], b_tiles[buffer ^ 1], f, t);
      __syncthreads();
      buffer ^= 1;
    }
  }
  store_piece(c, m, n, row0, col0, tx, ty, acc, kVectorized);
}

// TODO(04.9): the slices added up in slice order, one thread per element (four with float4).
__global__ void __launch_bounds__(256)
    sum_slices_kernel(const float* __restrict__ partial, float* __restrict__ c, std::size_t elements, int splits) {
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  for (std::size_t e = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; e < elements; e += stride) {
    float sum = partial[e];
    for (int s = 1; s < splits; ++s) sum += partial[std::size_t(s) * elements + e];
    c[e] = sum;
  }
}

__global__ void __launch_bounds__(256)
    sum_slices4_kernel(const float4* __restrict__ partial, float4* __restrict__ c, std::size_t elements4, int splits) {
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  for (std::size_t e = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; e < elements4; e += stride) {
    float4 sum = partial[e];
    for (int s = 1; s < splits; ++s) {
      const float4 v = partial[std::size_t(s) * elements4 + e];
      sum.x += v.x;
      sum.y += v.y;
      sum.z += v.z;
      sum.w += v.w;
    }
    c[e] = sum;
  }
}

__global__ void __launch_bounds__(256) fill_zero_kernel(float* __restrict__ c, std::size_t elements) {
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  for (std::size_t e = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; e < elements; e += stride) c[e] = 0.0f;
}

int sm_count() {
  int device = 0, sms = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  return sms;
}

// Grid-stride launches of the small kernels: a few waves of 256-thread blocks.
unsigned stride_blocks(std::size_t work) {
  const std::size_t wanted = (work + 255) / 256;
  const std::size_t most = std::size_t(sm_count()) * 8;
  return static_cast<unsigned>(std::max<std::size_t>(1, std::min(wanted, most)));
}

void launch_sum_slices(const float* partial, float* c, int m, int n, int splits, cudaStream_t stream) {
  const std::size_t elements = std::size_t(m) * n;
  if (elements % 4 == 0 && aligned16(c) && aligned16(partial)) {
    workbook::launch(sum_slices4_kernel, dim3(stride_blocks(elements / 4)), dim3(256), 0, stream,
                     reinterpret_cast<const float4*>(partial), reinterpret_cast<float4*>(c), elements / 4, splits);
  } else {
    workbook::launch(sum_slices_kernel, dim3(stride_blocks(elements)), dim3(256), 0, stream, partial, c, elements,
                     splits);
  }
}

void launch_fill_zero(float* c, int m, int n, cudaStream_t stream) {
  const std::size_t elements = std::size_t(m) * n;
  workbook::launch(fill_zero_kernel, dim3(stride_blocks(elements)), dim3(256), 0, stream, c, elements);
}

// The plan of slices (04.9, 04.10, 04.11): split only when the tiles leave block slots idle,
// splits = slots / tiles, each slice at least 128 deep and a whole number of 16-deep tiles.
struct SplitPlan {
  int splits = 1;
  int slice_k = 0;  // a multiple of kDepth when splits > 1; k itself otherwise
};

SplitPlan plan_split(int m, int n, int k, int tile_rows, int tile_cols, int blocks_per_sm) {
  SplitPlan plan{1, k};
  if (m <= 0 || n <= 0 || k <= 0) return plan;
  const long long tiles = (long long)workbook::ceil_div(m, tile_rows) * workbook::ceil_div(n, tile_cols);
  const long long slots = (long long)sm_count() * std::max(1, blocks_per_sm);
  long long splits = slots / tiles;
  splits = std::min<long long>(splits, k / 128);  // each slice at least 128 deep
  if (splits <= 1) return plan;
  const int k_tiles = workbook::ceil_div(k, kDepth);
  const int slice_tiles = workbook::ceil_div(k_tiles, static_cast<int>(splits));
  plan.slice_k = slice_tiles * kDepth;
  plan.splits = workbook::ceil_div(k, plan.slice_k);
  if (plan.splits <= 1) plan = SplitPlan{1, k};
  return plan;
}

int blocks_per_sm(const void* kernel, int threads, std::size_t dynamic_shared_bytes) {
  int blocks = 0;
  CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, threads, dynamic_shared_bytes));
  return std::max(1, blocks);
}

bool loads_vectorize(const GemmProblem& p, const void* destination) {
  return p.k % 4 == 0 && p.n % 4 == 0 && aligned16(p.a) && aligned16(p.b) && aligned16(destination);
}

SplitPlan split_k_plan(const GemmProblem& p) {
  return plan_split(p.m, p.n, p.k, kTile, kTile,
                    blocks_per_sm(reinterpret_cast<const void*>(sgemm_double_buffered_kernel<true>), kThreads, 0));
}

void launch_double_buffered(const GemmProblem& p, float* destination, int slice_k, int splits, cudaStream_t stream) {
  const dim3 grid(workbook::ceil_div(p.n, kTile), workbook::ceil_div(p.m, kTile), splits);
  if (loads_vectorize(p, destination))
    workbook::launch(sgemm_double_buffered_kernel<true>, grid, dim3(kThreads), 0, stream, p.a, p.b, destination, p.m,
                     p.n, p.k, slice_k);
  else
    workbook::launch(sgemm_double_buffered_kernel<false>, grid, dim3(kThreads), 0, stream, p.a, p.b, destination, p.m,
                     p.n, p.k, slice_k);
}

// ---------------------------------------------------------------------------------------------
// TODO(04.10): packed operands and a cp.async pipeline.
//
// Packed A: chunk (mt, kt), at (mt k_tiles + kt) kRows 16 floats, holds A's rows mt kRows ... and
// k kt 16 ... transposed (kk-major: element (row, kk) at kk kRows + row), zeros past the edges.
template <int kRows>
__global__ void __launch_bounds__(256)
    pack_a_kernel(const float* __restrict__ a, float* __restrict__ packed, int m, int k, int k_tiles) {
  __shared__ float piece[kDepth][kRows + 1];
  const int chunk = blockIdx.x;
  const int row0 = (chunk / k_tiles) * kRows, k0 = (chunk % k_tiles) * kDepth;
  for (int e = threadIdx.x; e < kRows * kDepth; e += blockDim.x) {
    const int r = e / kDepth, kk = e % kDepth;
    piece[kk][r] = (row0 + r < m && k0 + kk < k) ? a[at(row0 + r, k0 + kk, k)] : 0.0f;
  }
  __syncthreads();
  float* out = packed + std::size_t(chunk) * kRows * kDepth;
  for (int e = threadIdx.x; e < kRows * kDepth; e += blockDim.x) out[e] = piece[e / kRows][e % kRows];
}

// Packed B (when B's rows do not start on 16-byte boundaries): chunk (nt, kt), at
// (nt k_tiles + kt) 16 kTile floats, holds B's rows kt 16 ... and columns nt kTile ..., row-major.
__global__ void __launch_bounds__(256)
    pack_b_kernel(const float* __restrict__ b, float* __restrict__ packed, int k, int n, int k_tiles) {
  const int chunk = blockIdx.x;
  const int col0 = (chunk / k_tiles) * kTile, k0 = (chunk % k_tiles) * kDepth;
  float* out = packed + std::size_t(chunk) * kChunkFloats;
  for (int e = threadIdx.x; e < kChunkFloats; e += blockDim.x) {
    const int r = e / kTile, cc = e % kTile;
    out[e] = (k0 + r < k && col0 + cc < n) ? b[at(k0 + r, col0 + cc, n)] : 0.0f;
  }
}

constexpr int kPipelineStages = 3;
constexpr int kStageFloats = 2 * kChunkFloats;  // A's chunk, then B's tile
constexpr std::size_t kPipelineSharedBytes = std::size_t(kPipelineStages) * kStageFloats * sizeof(float);  // 48 KiB

template <bool kPackedB>
__global__ void __launch_bounds__(kThreads, 2)
    sgemm_packed_pipeline_kernel(const float* __restrict__ packed_a, const float* __restrict__ b, float* __restrict__ c,
                                 int m, int n, int k, int k_tiles, int slice_tiles, bool vectorized_c) {
  extern __shared__ __align__(16) float stages[];
  const int t = threadIdx.x, tx = t % 16, ty = t / 16;
  const int row0 = blockIdx.y * kTile, col0 = blockIdx.x * kTile;
  const int kt_begin = blockIdx.z * slice_tiles;
  const int tiles = min(k_tiles, kt_begin + slice_tiles) - kt_begin;
  c += std::size_t(blockIdx.z) * m * n;
  const float* a_chunks = packed_a + (std::size_t(blockIdx.y) * k_tiles + kt_begin) * kChunkFloats;
  const float* b_chunks = kPackedB ? b + (std::size_t(blockIdx.x) * k_tiles + kt_begin) * kChunkFloats : b;

  // Tile `tile` of this slice into stage `stage`: 512 pieces of 16 bytes of each operand, two per thread.
  const auto start_copies = [&](int tile, int stage) {
    float* a_stage = stages + stage * kStageFloats;
    float* b_stage = a_stage + kChunkFloats;
    const float* a_source = a_chunks + std::size_t(tile) * kChunkFloats;
    copy_16_bytes(a_stage + 4 * t, a_source + 4 * t);
    copy_16_bytes(a_stage + 4 * (t + kThreads), a_source + 4 * (t + kThreads));
    if constexpr (kPackedB) {
      const float* b_source = b_chunks + std::size_t(tile) * kChunkFloats;
      copy_16_bytes(b_stage + 4 * t, b_source + 4 * t);
      copy_16_bytes(b_stage + 4 * (t + kThreads), b_source + 4 * (t + kThreads));
    } else {
      const int k0 = (kt_begin + tile) * kDepth;
#pragma unroll
      for (int i = 0; i < 2; ++i) {
        const int piece = t + i * kThreads;
        const int r = piece / 32, c4 = (piece % 32) * 4;
        const bool valid = k0 + r < k && col0 + c4 < n;
        copy_16_bytes(b_stage + r * kTile + c4, valid ? b + at(k0 + r, col0 + c4, n) : b, valid);
      }
    }
  };

  float acc[8][8];
  zero(acc);
  if (tiles > 0) start_copies(0, 0);
  commit_copies();
  if (tiles > 1) start_copies(1, 1);
  commit_copies();
  int stage = 0;
  for (int tile = 0; tile < tiles; ++tile) {
    wait_for_copies<1>();  // this tile's group has landed
    __syncthreads();       // everyone's has, and everyone is done with the stage refilled next
    if (tile + 2 < tiles) start_copies(tile + 2, stage == 0 ? 2 : stage - 1);
    commit_copies();
    const float* a_stage = stages + stage * kStageFloats;
    multiply_tile<kTile, true>(a_stage, a_stage + kChunkFloats, tx, ty, acc);
    stage = stage == kPipelineStages - 1 ? 0 : stage + 1;
  }
  store_piece(c, m, n, row0, col0, tx, ty, acc, vectorized_c);
}

// The workspace of 04.10: packed A, packed B (only when B's rows are not aligned), partial products.
struct PipelineLayout {
  int k_tiles = 0;
  bool pack_b = false;
  SplitPlan plan;
  std::size_t a_floats = 0, b_floats = 0, partial_floats = 0;
  std::size_t bytes() const { return (a_floats + b_floats + partial_floats) * sizeof(float); }
};

PipelineLayout pipeline_layout(const GemmProblem& p) {
  PipelineLayout l;
  if (p.m <= 0 || p.n <= 0 || p.k <= 0) return l;
  l.k_tiles = workbook::ceil_div(p.k, kDepth);
  l.pack_b = !(p.n % 4 == 0 && aligned16(p.b));
  l.plan = plan_split(p.m, p.n, p.k, kTile, kTile,
                      blocks_per_sm(reinterpret_cast<const void*>(sgemm_packed_pipeline_kernel<false>), kThreads,
                                    kPipelineSharedBytes));
  l.a_floats = std::size_t(workbook::ceil_div(p.m, kTile)) * l.k_tiles * kChunkFloats;
  l.b_floats = l.pack_b ? std::size_t(workbook::ceil_div(p.n, kTile)) * l.k_tiles * kChunkFloats : 0;
  l.partial_floats = l.plan.splits > 1 ? std::size_t(l.plan.splits) * p.m * p.n : 0;
  return l;
}

// ---------------------------------------------------------------------------------------------
// TODO(04.11): 256 x 128 tiles, 12 warps: warps 0-7 consume (4 x 2 warps of 64 x 64, each thread 4
// quads of rows 16 apart by 2 quads of columns 32 apart), warps 8-11 produce through the copy engine.
constexpr int kWideRows = 256;
constexpr int kWideCols = 128;
constexpr int kWideStages = 4;
constexpr int kConsumerWarps = 8;
constexpr int kWideThreads = 12 * 32;
constexpr int kWideAFloats = kDepth * kWideRows;  // 16 KiB
constexpr int kWideBFloats = kDepth * kWideCols;  // 8 KiB
constexpr int kWideStageFloats = kWideAFloats + kWideBFloats;
constexpr unsigned kWideStageBytes = kWideStageFloats * sizeof(float);  // 24 KiB
constexpr std::size_t kWideSharedBytes =
    std::size_t(kWideStages) * kWideStageBytes + 2 * kWideStages * sizeof(std::uint64_t) + copy_engine::kTileAlignment;

__global__ void __launch_bounds__(kWideThreads, 1)
    sgemm_warp_specialized_kernel(const __grid_constant__ TileMap a_map, const __grid_constant__ TileMap b_map,
                                  float* __restrict__ c, int m, int n, int k_tiles, int slice_tiles,
                                  bool vectorized_c) {
  extern __shared__ float raw_shared[];
  float* stages = reinterpret_cast<float*>(
      (reinterpret_cast<std::uintptr_t>(raw_shared) + copy_engine::kTileAlignment - 1) &
      ~std::uintptr_t(copy_engine::kTileAlignment - 1));
  std::uint64_t* landed = reinterpret_cast<std::uint64_t*>(stages + kWideStages * kWideStageFloats);
  std::uint64_t* freed = landed + kWideStages;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int kt_begin = blockIdx.z * slice_tiles;
  const int tiles = min(k_tiles, kt_begin + slice_tiles) - kt_begin;

  if (threadIdx.x == 0) {
    for (int s = 0; s < kWideStages; ++s) {
      copy_engine::init_barrier(&landed[s], 1);
      copy_engine::init_barrier(&freed[s], kConsumerWarps);
    }
    copy_engine::make_barrier_inits_visible();
  }
  __syncthreads();

  if (warp >= kConsumerWarps) {  // the producer warpgroup
    copy_engine::give_registers<40>();
    if (threadIdx.x == kConsumerWarps * 32) {
      const int a_row0 = (blockIdx.y * k_tiles + kt_begin) * kDepth;  // packed A's chunks of this block row
      const int col0 = blockIdx.x * kWideCols;
      for (int tile = 0; tile < tiles; ++tile) {
        const int s = tile % kWideStages;
        if (tile >= kWideStages) copy_engine::wait_for_phase(&freed[s], ((tile / kWideStages) - 1) & 1);
        float* a_stage = stages + s * kWideStageFloats;
        copy_engine::expect_bytes(&landed[s], kWideStageBytes);
        copy_engine::load_tile(a_stage, a_map, a_row0 + tile * kDepth, 0, &landed[s]);
        copy_engine::load_tile(a_stage + kWideAFloats, b_map, (kt_begin + tile) * kDepth, col0, &landed[s]);
      }
    }
    return;
  }

  copy_engine::take_registers<232>();
  const int warp_row = (warp / 2) * 64, warp_col = (warp % 2) * 64;
  const int tx = lane % 8, ty = lane / 8;
  float acc[16][8];
#pragma unroll
  for (int i = 0; i < 16; ++i)
#pragma unroll
    for (int j = 0; j < 8; ++j) acc[i][j] = 0.0f;

  for (int tile = 0; tile < tiles; ++tile) {
    const int s = tile % kWideStages;
    copy_engine::wait_for_phase(&landed[s], (tile / kWideStages) & 1);
    const float* a_stage = stages + s * kWideStageFloats + warp_row + 4 * ty;
    const float* b_stage = stages + s * kWideStageFloats + kWideAFloats + warp_col + 4 * tx;
#pragma unroll
    for (int kk = 0; kk < kDepth; ++kk) {
      float av[16], bv[8];
#pragma unroll
      for (int q = 0; q < 4; ++q) {
        const float4 v = *reinterpret_cast<const float4*>(a_stage + kk * kWideRows + 16 * q);
        av[4 * q + 0] = v.x;
        av[4 * q + 1] = v.y;
        av[4 * q + 2] = v.z;
        av[4 * q + 3] = v.w;
      }
#pragma unroll
      for (int p = 0; p < 2; ++p) {
        const float4 v = *reinterpret_cast<const float4*>(b_stage + kk * kWideCols + 32 * p);
        bv[4 * p + 0] = v.x;
        bv[4 * p + 1] = v.y;
        bv[4 * p + 2] = v.z;
        bv[4 * p + 3] = v.w;
      }
#pragma unroll
      for (int j = 0; j < 8; ++j)  // down column 0, up column 1, ...
#pragma unroll
        for (int step = 0; step < 16; ++step) {
          const int i = j % 2 == 0 ? step : 15 - step;
          acc[i][j] = fmaf(av[i], bv[j], acc[i][j]);
        }
    }
    __syncwarp();
    if (lane == 0) copy_engine::arrive(&freed[s]);
  }

  c += std::size_t(blockIdx.z) * m * n;
  const int row0 = blockIdx.y * kWideRows + warp_row + 4 * ty;
  const int col0 = blockIdx.x * kWideCols + warp_col + 4 * tx;
#pragma unroll
  for (int i = 0; i < 16; ++i) {
    const int row = row0 + 16 * (i / 4) + i % 4;
    if (row >= m) continue;
#pragma unroll
    for (int p = 0; p < 2; ++p) {
      const int col = col0 + 32 * p;
      if (vectorized_c) {
        if (col < n)
          *reinterpret_cast<float4*>(c + at(row, col, n)) =
              make_float4(acc[i][4 * p + 0], acc[i][4 * p + 1], acc[i][4 * p + 2], acc[i][4 * p + 3]);
      } else {
#pragma unroll
        for (int j = 0; j < 4; ++j)
          if (col + j < n) c[at(row, col + j, n)] = acc[i][4 * p + j];
      }
    }
  }
}

// B with rows padded to a multiple of 4 floats (pitch), for the copy engine, when B's own rows
// do not start on 16-byte boundaries.
__global__ void __launch_bounds__(256)
    copy_b_aligned_kernel(const float* __restrict__ b, float* __restrict__ copy, int k, int n, int pitch) {
  const std::size_t elements = std::size_t(k) * pitch;
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  for (std::size_t e = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; e < elements; e += stride) {
    const std::size_t row = e / pitch;
    const int col = static_cast<int>(e % pitch);
    copy[e] = col < n ? b[row * n + col] : 0.0f;
  }
}

struct WideLayout {
  int k_tiles = 0, m_tiles = 0;
  bool copy_b = false;
  int b_pitch = 0;
  SplitPlan plan;
  std::size_t a_floats = 0, b_floats = 0, partial_floats = 0;
  std::size_t bytes() const { return (a_floats + b_floats + partial_floats) * sizeof(float); }
};

WideLayout wide_layout(const GemmProblem& p) {
  WideLayout l;
  if (p.m <= 0 || p.n <= 0 || p.k <= 0) return l;
  l.k_tiles = workbook::ceil_div(p.k, kDepth);
  l.m_tiles = workbook::ceil_div(p.m, kWideRows);
  l.copy_b = !(p.n % 4 == 0 && aligned16(p.b));
  l.b_pitch = workbook::ceil_div(p.n, 4) * 4;
  // Above 48 KiB the occupancy calculator counts the block only once the kernel may ask that much.
  CUDA_CHECK(cudaFuncSetAttribute(sgemm_warp_specialized_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                  static_cast<int>(kWideSharedBytes)));
  l.plan = plan_split(p.m, p.n, p.k, kWideRows, kWideCols,
                      blocks_per_sm(reinterpret_cast<const void*>(sgemm_warp_specialized_kernel), kWideThreads,
                                    kWideSharedBytes));
  l.a_floats = std::size_t(l.m_tiles) * l.k_tiles * kWideAFloats;
  l.b_floats = l.copy_b ? std::size_t(p.k) * l.b_pitch : 0;
  l.partial_floats = l.plan.splits > 1 ? std::size_t(l.plan.splits) * p.m * p.n : 0;
  return l;
}

}  // namespace

// Each launcher: validate (return when there is nothing to do), size the grid so that partial tiles
// are covered (workbook::ceil_div), and launch with
// workbook::launch(kernel, grid, block, 0, stream, problem.a, problem.b, problem.c, problem.m, problem.n, problem.k).

void sgemm_coalesced(const GemmProblem& problem, cudaStream_t stream) {
  if (!validate(problem, "sgemm_coalesced", 8)) return;
  const dim3 grid(workbook::ceil_div(problem.n, kCoalescedCols), workbook::ceil_div(problem.m, kCoalescedRows));
  workbook::launch(sgemm_coalesced_kernel, grid, dim3(kCoalescedCols, kCoalescedRows), 0, stream, problem.a,
                   problem.b, problem.c, problem.m, problem.n, problem.k);
}

void sgemm_shared_tiles(const GemmProblem& problem, cudaStream_t stream) {
  if (!validate(problem, "sgemm_shared_tiles", 32)) return;
  launch_tile_kernel<1>(problem, stream);
}

void sgemm_2_outputs_per_thread(const GemmProblem& problem, cudaStream_t stream) {
  if (!validate(problem, "sgemm_2_outputs_per_thread", 32)) return;
  launch_tile_kernel<2>(problem, stream);
}

void sgemm_4_outputs_per_thread(const GemmProblem& problem, cudaStream_t stream) {
  if (!validate(problem, "sgemm_4_outputs_per_thread", 32)) return;
  launch_tile_kernel<4>(problem, stream);
}

void sgemm_8_outputs_per_thread(const GemmProblem& problem, cudaStream_t stream) {
  if (!validate(problem, "sgemm_8_outputs_per_thread", 32)) return;
  launch_tile_kernel<8>(problem, stream);
}

void sgemm_rank1_updates(const GemmProblem& problem, cudaStream_t stream) {
  if (!validate(problem, "sgemm_rank1_updates", 64)) return;
  const dim3 grid(workbook::ceil_div(problem.n, kRank1Cols), workbook::ceil_div(problem.m, kRank1Rows));
  workbook::launch(sgemm_rank1_kernel, grid, dim3(kRank1Cols), 0, stream, problem.a, problem.b, problem.c, problem.m,
                   problem.n, problem.k);
}

void sgemm_register_blocked(const GemmProblem& problem, cudaStream_t stream) {
  if (!validate(problem, "sgemm_register_blocked", 128)) return;
  const dim3 grid(workbook::ceil_div(problem.n, kTile), workbook::ceil_div(problem.m, kTile));
  if (loads_vectorize(problem, problem.c))
    workbook::launch(sgemm_register_blocked_kernel<true>, grid, dim3(kThreads), 0, stream, problem.a, problem.b,
                     problem.c, problem.m, problem.n, problem.k);
  else
    workbook::launch(sgemm_register_blocked_kernel<false>, grid, dim3(kThreads), 0, stream, problem.a, problem.b,
                     problem.c, problem.m, problem.n, problem.k);
}

void sgemm_double_buffered(const GemmProblem& problem, cudaStream_t stream) {
  if (!validate(problem, "sgemm_double_buffered", 128)) return;
  launch_double_buffered(problem, problem.c, problem.k, 1, stream);
}

void sgemm_split_k(const GemmProblem& problem, cudaStream_t stream) {
  if (!validate(problem, "sgemm_split_k", 128)) return;
  const SplitPlan plan = split_k_plan(problem);
  if (plan.splits <= 1) {
    launch_double_buffered(problem, problem.c, problem.k, 1, stream);
    return;
  }
  float* partial = workspace_of(problem, "sgemm_split_k", sgemm_split_k_workspace_bytes(problem));
  launch_double_buffered(problem, partial, plan.slice_k, plan.splits, stream);
  launch_sum_slices(partial, problem.c, problem.m, problem.n, plan.splits, stream);
}

void sgemm_packed_pipeline(const GemmProblem& problem, cudaStream_t stream) {
  if (!validate(problem, "sgemm_packed_pipeline", 128)) return;
  if (problem.k == 0) {
    launch_fill_zero(problem.c, problem.m, problem.n, stream);
    return;
  }
  const PipelineLayout l = pipeline_layout(problem);
  float* workspace = workspace_of(problem, "sgemm_packed_pipeline", l.bytes());
  float* packed_a = workspace;
  float* packed_b = packed_a + l.a_floats;
  float* partial = packed_b + l.b_floats;
  const int m_tiles = workbook::ceil_div(problem.m, kTile), n_tiles = workbook::ceil_div(problem.n, kTile);
  workbook::launch(pack_a_kernel<kTile>, dim3(m_tiles * l.k_tiles), dim3(256), 0, stream, problem.a, packed_a,
                   problem.m, problem.k, l.k_tiles);
  if (l.pack_b)
    workbook::launch(pack_b_kernel, dim3(n_tiles * l.k_tiles), dim3(256), 0, stream, problem.b, packed_b, problem.k,
                     problem.n, l.k_tiles);
  float* destination = l.plan.splits > 1 ? partial : problem.c;
  const bool vectorized_c = problem.n % 4 == 0 && aligned16(destination);
  const int slice_tiles = l.plan.splits > 1 ? l.plan.slice_k / kDepth : l.k_tiles;
  const dim3 grid(n_tiles, m_tiles, l.plan.splits);
  if (l.pack_b)
    workbook::launch(sgemm_packed_pipeline_kernel<true>, grid, dim3(kThreads), kPipelineSharedBytes, stream,
                     static_cast<const float*>(packed_a), static_cast<const float*>(packed_b), destination, problem.m,
                     problem.n, problem.k, l.k_tiles, slice_tiles, vectorized_c);
  else
    workbook::launch(sgemm_packed_pipeline_kernel<false>, grid, dim3(kThreads), kPipelineSharedBytes, stream,
                     static_cast<const float*>(packed_a), problem.b, destination, problem.m, problem.n, problem.k,
                     l.k_tiles, slice_tiles, vectorized_c);
  if (l.plan.splits > 1) launch_sum_slices(partial, problem.c, problem.m, problem.n, l.plan.splits, stream);
}

void sgemm_warp_specialized(const GemmProblem& problem, cudaStream_t stream) {
  if (!validate(problem, "sgemm_warp_specialized", 256)) return;
  if (problem.k == 0) {
    launch_fill_zero(problem.c, problem.m, problem.n, stream);
    return;
  }
  const WideLayout l = wide_layout(problem);
  float* workspace = workspace_of(problem, "sgemm_warp_specialized", l.bytes());
  float* packed_a = workspace;
  float* b_copy = packed_a + l.a_floats;
  float* partial = b_copy + l.b_floats;
  // The tensor maps first: packed A as rows of 256 floats (a 16 x 256 box is one chunk), B in place
  // or its copy with aligned rows (16 x 128 boxes; zeros past the edges).
  const TileMap a_map =
      copy_engine::make_tile_map(packed_a, l.m_tiles * l.k_tiles * kDepth, kWideRows, kWideRows, kDepth, kWideRows);
  const TileMap b_map = l.copy_b
                            ? copy_engine::make_tile_map(b_copy, problem.k, problem.n, l.b_pitch, kDepth, kWideCols)
                            : copy_engine::make_tile_map(problem.b, problem.k, problem.n, problem.n, kDepth, kWideCols);
  workbook::launch(pack_a_kernel<kWideRows>, dim3(l.m_tiles * l.k_tiles), dim3(256), 0, stream, problem.a, packed_a,
                   problem.m, problem.k, l.k_tiles);
  if (l.copy_b)
    workbook::launch(copy_b_aligned_kernel, dim3(stride_blocks(std::size_t(problem.k) * l.b_pitch)), dim3(256), 0,
                     stream, problem.b, b_copy, problem.k, problem.n, l.b_pitch);
  float* destination = l.plan.splits > 1 ? partial : problem.c;
  const bool vectorized_c = problem.n % 4 == 0 && aligned16(destination);
  const int slice_tiles = l.plan.splits > 1 ? l.plan.slice_k / kDepth : l.k_tiles;
  const dim3 grid(workbook::ceil_div(problem.n, kWideCols), l.m_tiles, l.plan.splits);
  workbook::launch(sgemm_warp_specialized_kernel, grid, dim3(kWideThreads), kWideSharedBytes, stream, a_map, b_map,
                   destination, problem.m, problem.n, l.k_tiles, slice_tiles, vectorized_c);
  if (l.plan.splits > 1) launch_sum_slices(partial, problem.c, problem.m, problem.n, l.plan.splits, stream);
}

std::size_t sgemm_split_k_workspace_bytes(const GemmProblem& shape) {
  if (shape.m <= 0 || shape.n <= 0 || shape.k <= 0) return 0;
  const SplitPlan plan = split_k_plan(shape);
  return plan.splits > 1 ? std::size_t(plan.splits) * shape.m * shape.n * sizeof(float) : 0;
}

std::size_t sgemm_packed_pipeline_workspace_bytes(const GemmProblem& shape) { return pipeline_layout(shape).bytes(); }

std::size_t sgemm_warp_specialized_workspace_bytes(const GemmProblem& shape) { return wide_layout(shape).bytes(); }

}  // namespace sgemm_lab
