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

#include <cstddef>
#include <string>

#include "copy_engine.cuh"  // given: tensor maps, mbarriers, register hand-over for TODO(04.11)
#include "cp_async.cuh"     // given: cp.async for TODO(04.10)
#include "given.cuh"        // given: validate(), workspace_of(), at()
#include "sgemm.h"
#include "workbook/launch.cuh"

#include <algorithm>
#include <cstdint>

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

// ---------------------------------------------------------------------------------------------
// Small helpers shared by the launchers.

bool aligned16(const void* pointer) { return reinterpret_cast<std::uintptr_t>(pointer) % 16 == 0; }

// float4 loads and stores are legal when every row of A, B and C starts on a 16-byte boundary.
bool rows_aligned(const GemmProblem& p) {
  return p.k % 4 == 0 && p.n % 4 == 0 && aligned16(p.a) && aligned16(p.b) && aligned16(p.c);
}

int round_up(int value, int multiple) { return workbook::ceil_div(value, multiple) * multiple; }
std::size_t round_up_bytes(std::size_t bytes) { return (bytes + 255) / 256 * 256; }

int multiprocessor_count() {
  int device = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  int sms = 0;
  CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  return sms;
}

// ---------------------------------------------------------------------------------------------
// TODO(04.1): threadIdx.x along j, a row of C: a warp reads one line of B and one float of A.

constexpr int kCoalescedCols = 32;
constexpr int kCoalescedRows = 8;

__global__ void sgemm_coalesced_kernel(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c,
                                       int m, int n, int k) {
  const int j = blockIdx.x * kCoalescedCols + threadIdx.x;
  const int i = blockIdx.y * kCoalescedRows + threadIdx.y;
  if (i >= m || j >= n) return;
  float sum = 0.0f;
  for (int kk = 0; kk < k; ++kk) sum = fmaf(a[at(i, kk, k)], b[at(kk, j, n)], sum);
  c[at(i, j, n)] = sum;
}

// ---------------------------------------------------------------------------------------------
// TODO(04.2 to 04.5): 32 x 32 tiles in shared memory, R outputs of one column per thread.

constexpr int kTile = 32;

template <int kOutputsPerThread>
__global__ void __launch_bounds__(kTile * kTile / kOutputsPerThread)
    sgemm_tile_kernel(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c, int m, int n,
                      int k) {
  constexpr int kRowStep = kTile / kOutputsPerThread;  // blockDim.y
  __shared__ float a_tile[kTile][kTile];
  __shared__ float b_tile[kTile][kTile];
  const int x = threadIdx.x, y = threadIdx.y;
  const int row0 = blockIdx.y * kTile, col0 = blockIdx.x * kTile;
  float sum[kOutputsPerThread];
#pragma unroll
  for (int r = 0; r < kOutputsPerThread; ++r) sum[r] = 0.0f;

  for (int k0 = 0; k0 < k; k0 += kTile) {
#pragma unroll
    for (int r = 0; r < kOutputsPerThread; ++r) {
      const int row = y + r * kRowStep;
      const int ai = row0 + row, ak = k0 + x;
      a_tile[row][x] = (ai < m && ak < k) ? a[at(ai, ak, k)] : 0.0f;
      const int bk = k0 + row, bj = col0 + x;
      b_tile[row][x] = (bk < k && bj < n) ? b[at(bk, bj, n)] : 0.0f;
    }
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < kTile; ++kk) {
      const float bv = b_tile[kk][x];  // once, for all R outputs
#pragma unroll
      for (int r = 0; r < kOutputsPerThread; ++r) sum[r] = fmaf(a_tile[y + r * kRowStep][kk], bv, sum[r]);
    }
    __syncthreads();
  }
  const int j = col0 + x;
  if (j >= n) return;
#pragma unroll
  for (int r = 0; r < kOutputsPerThread; ++r) {
    const int i = row0 + y + r * kRowStep;
    if (i < m) c[at(i, j, n)] = sum[r];
  }
}

template <int kOutputsPerThread>
void launch_tile_kernel(const GemmProblem& p, cudaStream_t stream) {
  const dim3 grid(workbook::ceil_div(p.n, kTile), workbook::ceil_div(p.m, kTile));
  const dim3 block(kTile, kTile / kOutputsPerThread);
  workbook::launch(sgemm_tile_kernel<kOutputsPerThread>, grid, block, 0, stream, p.a, p.b, p.c, p.m, p.n, p.k);
}

// ---------------------------------------------------------------------------------------------
// TODO(04.6): rank-1 updates. A block of 256 threads computes 64 x 256 of C; thread x keeps its
// column's 64 sums in registers. B(k, x) goes straight from global memory into a register; A's
// 64 x 8 tile sits in shared memory k-major, read as sixteen float4 broadcasts per k.

constexpr int kRank1Rows = 64;
constexpr int kRank1Cols = 256;
constexpr int kRank1Depth = 8;
constexpr int kRank1Pitch = kRank1Rows + 4;  // 68: the threads storing the transposed tile hit 32 banks

__global__ void __launch_bounds__(kRank1Cols, 2)
    sgemm_rank1_kernel(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c, int m, int n,
                       int k) {
  __shared__ __align__(16) float a_tile[kRank1Depth][kRank1Pitch];
  const int x = threadIdx.x;
  const int row0 = blockIdx.y * kRank1Rows;
  const int j = blockIdx.x * kRank1Cols + x;
  float sum[kRank1Rows];
#pragma unroll
  for (int r = 0; r < kRank1Rows; ++r) sum[r] = 0.0f;

  for (int k0 = 0; k0 < k; k0 += kRank1Depth) {
    // B first: its loads are in flight while the block stores A and waits.
    float b_reg[kRank1Depth];
#pragma unroll
    for (int kk = 0; kk < kRank1Depth; ++kk)
      b_reg[kk] = (k0 + kk < k && j < n) ? b[at(k0 + kk, j, n)] : 0.0f;
    // A's 64 x 8 tile, two floats a thread, 8 neighbours of a row per 8 threads, stored transposed.
#pragma unroll
    for (int e = 0; e < 2; ++e) {
      const int index = x + e * kRank1Cols;
      const int r = index / kRank1Depth, kk = index % kRank1Depth;
      const int ai = row0 + r, ak = k0 + kk;
      a_tile[kk][r] = (ai < m && ak < k) ? a[at(ai, ak, k)] : 0.0f;
    }
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < kRank1Depth; ++kk) {
      const float4* column = reinterpret_cast<const float4*>(a_tile[kk]);
#pragma unroll
      for (int q = 0; q < kRank1Rows / 4; ++q) {
        const float4 av = column[q];
        sum[4 * q + 0] = fmaf(av.x, b_reg[kk], sum[4 * q + 0]);
        sum[4 * q + 1] = fmaf(av.y, b_reg[kk], sum[4 * q + 1]);
        sum[4 * q + 2] = fmaf(av.z, b_reg[kk], sum[4 * q + 2]);
        sum[4 * q + 3] = fmaf(av.w, b_reg[kk], sum[4 * q + 3]);
      }
    }
    __syncthreads();
  }
  if (j >= n) return;
#pragma unroll
  for (int r = 0; r < kRank1Rows; ++r)
    if (row0 + r < m) c[at(row0 + r, j, n)] = sum[r];
}

// ---------------------------------------------------------------------------------------------
// TODO(04.7), TODO(04.8), TODO(04.9): 128 x 128 tiles of C, 16 deep, 256 threads of 8 x 8 outputs:
// rows 4 ty.. and 64 + 4 ty.., columns 4 tx.. and 64 + 4 tx... A's tile transposed, rows padded to
// 132 floats; B's tile as it lies.

constexpr int kBlockTile = 128;
constexpr int kDepth = 16;
constexpr int kThreads = 256;
constexpr int kAPitch = kBlockTile + 4;  // 132
constexpr int kBPitch = kBlockTile;

// A thread's share of one pair of tiles, in registers: A rows (idx / 4), k (4 (idx % 4) ..);
// B row (idx / 32), columns (4 (idx % 32) ..), for idx = tid and tid + 256.
struct TileRegisters {
  float4 a[2];
  float4 b[2];
};

// Loads of the tile pair at depth k0 (zeros outside A, outside B and past k_end). With kVector,
// every row starts on a 16-byte boundary (k, n multiples of 4, a and b aligned).
template <bool kVector>
__device__ __forceinline__ void load_tile_pair(const float* __restrict__ a, const float* __restrict__ b, int m, int n,
                                               int k, int k_end, int row0, int col0, int k0, int tid,
                                               TileRegisters& r) {
#pragma unroll
  for (int e = 0; e < 2; ++e) {
    const int index = tid + e * kThreads;
    const int ai = row0 + index / 4, ak = k0 + 4 * (index % 4);
    if constexpr (kVector) {
      r.a[e] = (ai < m && ak < k_end) ? *reinterpret_cast<const float4*>(a + at(ai, ak, k))
                                      : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    } else {
      const bool row_in = ai < m;
      r.a[e].x = (row_in && ak + 0 < k_end) ? a[at(ai, ak + 0, k)] : 0.0f;
      r.a[e].y = (row_in && ak + 1 < k_end) ? a[at(ai, ak + 1, k)] : 0.0f;
      r.a[e].z = (row_in && ak + 2 < k_end) ? a[at(ai, ak + 2, k)] : 0.0f;
      r.a[e].w = (row_in && ak + 3 < k_end) ? a[at(ai, ak + 3, k)] : 0.0f;
    }
    const int bk = k0 + index / 32, bj = col0 + 4 * (index % 32);
    if constexpr (kVector) {
      r.b[e] = (bk < k_end && bj < n) ? *reinterpret_cast<const float4*>(b + at(bk, bj, n))
                                      : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    } else {
      const bool k_in = bk < k_end;
      r.b[e].x = (k_in && bj + 0 < n) ? b[at(bk, bj + 0, n)] : 0.0f;
      r.b[e].y = (k_in && bj + 1 < n) ? b[at(bk, bj + 1, n)] : 0.0f;
      r.b[e].z = (k_in && bj + 2 < n) ? b[at(bk, bj + 2, n)] : 0.0f;
      r.b[e].w = (k_in && bj + 3 < n) ? b[at(bk, bj + 3, n)] : 0.0f;
    }
  }
}

__device__ __forceinline__ void store_tile_pair(float (*a_tile)[kAPitch], float (*b_tile)[kBPitch], int tid,
                                                const TileRegisters& r) {
#pragma unroll
  for (int e = 0; e < 2; ++e) {
    const int index = tid + e * kThreads;
    const int row = index / 4, kk = 4 * (index % 4);
    a_tile[kk + 0][row] = r.a[e].x;  // transposed
    a_tile[kk + 1][row] = r.a[e].y;
    a_tile[kk + 2][row] = r.a[e].z;
    a_tile[kk + 3][row] = r.a[e].w;
    *reinterpret_cast<float4*>(&b_tile[index / 32][4 * (index % 32)]) = r.b[e];
  }
}

// The 16 k of one tile pair: for each k, four float4 loads from shared memory and 64 FMAs.
// a_tile: k-major, a_pitch floats per k; b_tile: 128 floats per k.
__device__ __forceinline__ void multiply_tile_pair(const float* a_tile, int a_pitch, const float* b_tile, int tx,
                                                   int ty, float (&acc)[8][8]) {
#pragma unroll
  for (int kk = 0; kk < kDepth; ++kk) {
    const float4 a0 = *reinterpret_cast<const float4*>(a_tile + kk * a_pitch + 4 * ty);
    const float4 a1 = *reinterpret_cast<const float4*>(a_tile + kk * a_pitch + 64 + 4 * ty);
    const float4 b0 = *reinterpret_cast<const float4*>(b_tile + kk * kBPitch + 4 * tx);
    const float4 b1 = *reinterpret_cast<const float4*>(b_tile + kk * kBPitch + 64 + 4 * tx);
    const float av[8] = {a0.x, a0.y, a0.z, a0.w, a1.x, a1.y, a1.z, a1.w};
    const float bv[8] = {b0.x, b0.y, b0.z, b0.w, b1.x, b1.y, b1.z, b1.w};
#pragma unroll
    for (int i = 0; i < 8; ++i)
#pragma unroll
      for (int j = 0; j < 8; ++j) acc[i][j] = fmaf(av[i], bv[j], acc[i][j]);
  }
}

// A thread's 8 x 8 piece into C (or into a slice of the partial products), guarded at the edges;
// float4 stores when the rows of `out` start on 16-byte boundaries.
__device__ __forceinline__ void store_piece(float* __restrict__ out, int m, int n, int row0, int col0, int tx, int ty,
                                            bool vector, const float (&acc)[8][8]) {
#pragma unroll
  for (int i = 0; i < 8; ++i) {
    const int row = row0 + (i < 4 ? 4 * ty + i : 64 + 4 * ty + (i - 4));
    if (row >= m) continue;
#pragma unroll
    for (int q = 0; q < 2; ++q) {
      const int col = col0 + 64 * q + 4 * tx;
      if (vector) {
        if (col < n)
          *reinterpret_cast<float4*>(out + at(row, col, n)) =
              make_float4(acc[i][4 * q + 0], acc[i][4 * q + 1], acc[i][4 * q + 2], acc[i][4 * q + 3]);
      } else {
#pragma unroll
        for (int j = 0; j < 4; ++j)
          if (col + j < n) out[at(row, col + j, n)] = acc[i][4 * q + j];
      }
    }
  }
}

// TODO(04.7): one buffer, two barriers per tile.
template <bool kVector>
__global__ void __launch_bounds__(kThreads, 2)
    sgemm_register_blocked_kernel(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c,
                                  int m, int n, int k) {
  __shared__ __align__(16) float a_tile[kDepth][kAPitch];
  __shared__ __align__(16) float b_tile[kDepth][kBPitch];
  const int tid = threadIdx.x, tx = tid % 16, ty = tid / 16;
  const int row0 = blockIdx.y * kBlockTile, col0 = blockIdx.x * kBlockTile;
  float acc[8][8];
#pragma unroll
  for (int i = 0; i < 8; ++i)
#pragma unroll
    for (int j = 0; j < 8; ++j) acc[i][j] = 0.0f;

  for (int k0 = 0; k0 < k; k0 += kDepth) {
    TileRegisters r;
    load_tile_pair<kVector>(a, b, m, n, k, k, row0, col0, k0, tid, r);
    store_tile_pair(a_tile, b_tile, tid, r);
    __syncthreads();
    multiply_tile_pair(&a_tile[0][0], kAPitch, &b_tile[0][0], tx, ty, acc);
    __syncthreads();
  }
  store_piece(c, m, n, row0, col0, tx, ty, kVector, acc);
}

// TODO(04.8) and TODO(04.9): two copies of each tile, the next pair fetched into registers before
// multiplying this one and stored into the other copy after: one barrier per tile. Block
// (x, y, s) multiplies slice s of k, [s slice_depth, (s + 1) slice_depth), into slice s of `out`
// (m n floats apart); with one slice, `out` is C.
template <bool kVector>
__global__ void __launch_bounds__(kThreads, 2)
    sgemm_double_buffered_kernel(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ out,
                                 int m, int n, int k, int slice_depth) {
  __shared__ __align__(16) float a_tile[2][kDepth][kAPitch];
  __shared__ __align__(16) float b_tile[2][kDepth][kBPitch];
  const int tid = threadIdx.x, tx = tid % 16, ty = tid / 16;
  const int row0 = blockIdx.y * kBlockTile, col0 = blockIdx.x * kBlockTile;
  const int k_begin = blockIdx.z * slice_depth;
  const int k_end = min(k, k_begin + slice_depth);
  const int tiles = k_end > k_begin ? (k_end - k_begin + kDepth - 1) / kDepth : 0;
  out += std::size_t(blockIdx.z) * m * n;

  float acc[8][8];
#pragma unroll
  for (int i = 0; i < 8; ++i)
#pragma unroll
    for (int j = 0; j < 8; ++j) acc[i][j] = 0.0f;

  TileRegisters r;
  load_tile_pair<kVector>(a, b, m, n, k, k_end, row0, col0, k_begin, tid, r);
  store_tile_pair(a_tile[0], b_tile[0], tid, r);
  __syncthreads();
  for (int t = 0; t < tiles; ++t) {
    const int current = t & 1;
    const bool more = t + 1 < tiles;
    if (more) load_tile_pair<kVector>(a, b, m, n, k, k_end, row0, col0, k_begin + (t + 1) * kDepth, tid, r);
    multiply_tile_pair(&a_tile[current][0][0], kAPitch, &b_tile[current][0][0], tx, ty, acc);
    if (more) store_tile_pair(a_tile[current ^ 1], b_tile[current ^ 1], tid, r);
    __syncthreads();
  }
  store_piece(out, m, n, row0, col0, tx, ty, kVector, acc);
}

// TODO(04.9): C = slice 0 + slice 1 + ..., in slice order, one thread per element.
__global__ void sum_slices_kernel(const float* __restrict__ partials, float* __restrict__ c, std::size_t count,
                                  int splits) {
  const std::size_t index = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (index >= count) return;
  float sum = partials[index];
  for (int s = 1; s < splits; ++s) sum += partials[std::size_t(s) * count + index];
  c[index] = sum;
}

void launch_sum_slices(const float* partials, float* c, int m, int n, int splits, cudaStream_t stream) {
  const std::size_t count = std::size_t(m) * n;
  const unsigned blocks = static_cast<unsigned>((count + 255) / 256);
  workbook::launch(sum_slices_kernel, dim3(blocks), dim3(256), 0, stream, partials, c, count, splits);
}

__global__ void fill_zero_kernel(float* __restrict__ c, std::size_t count) {
  const std::size_t index = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (index < count) c[index] = 0.0f;
}

// The plan of slices: split only when C's tiles leave block slots idle; slices a whole number of
// tiles deep and at least 128 deep.
struct SplitPlan {
  int splits = 1;
  int depth = 0;  // k per slice, a multiple of 16
};

SplitPlan plan_slices(int m, int n, int k, int tile_rows, int tile_cols, int blocks_per_sm) {
  SplitPlan plan;
  plan.depth = round_up(k, kDepth);
  if (k <= 0 || m <= 0 || n <= 0) return plan;
  const long long tiles = 1LL * workbook::ceil_div(m, tile_rows) * workbook::ceil_div(n, tile_cols);
  const long long slots = 1LL * multiprocessor_count() * std::max(1, blocks_per_sm);
  long long splits = slots / tiles;
  splits = std::min<long long>(splits, k / 128);  // each slice at least 128 deep
  if (splits <= 1) return plan;
  plan.depth = round_up(workbook::ceil_div(k, static_cast<int>(splits)), kDepth);
  plan.splits = workbook::ceil_div(k, plan.depth);
  if (plan.splits <= 1) plan = SplitPlan{1, round_up(k, kDepth)};
  return plan;
}

template <typename Kernel>
int blocks_per_sm(Kernel kernel, int threads, std::size_t dynamic_shared_bytes) {
  if (dynamic_shared_bytes > 48 * 1024)
    CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    static_cast<int>(dynamic_shared_bytes)));
  int blocks = 0;
  CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, threads, dynamic_shared_bytes));
  return std::max(1, blocks);
}

SplitPlan split_k_plan(const GemmProblem& p) {
  const int blocks = rows_aligned(p) ? blocks_per_sm(sgemm_double_buffered_kernel<true>, kThreads, 0)
                                     : blocks_per_sm(sgemm_double_buffered_kernel<false>, kThreads, 0);
  return plan_slices(p.m, p.n, p.k, kBlockTile, kBlockTile, blocks);
}

void launch_double_buffered(const GemmProblem& p, float* out, const SplitPlan& plan, cudaStream_t stream) {
  const dim3 grid(workbook::ceil_div(p.n, kBlockTile), workbook::ceil_div(p.m, kBlockTile), plan.splits);
  if (rows_aligned(p))
    workbook::launch(sgemm_double_buffered_kernel<true>, grid, dim3(kThreads), 0, stream, p.a, p.b, out, p.m, p.n, p.k,
                     plan.depth);
  else
    workbook::launch(sgemm_double_buffered_kernel<false>, grid, dim3(kThreads), 0, stream, p.a, p.b, out, p.m, p.n,
                     p.k, plan.depth);
}

// ---------------------------------------------------------------------------------------------
// TODO(04.10): packed operands and a cp.async pipeline.
//
// Packed A: for block row br (kRows rows of A) and tile t (16 k), a chunk of 16 x kRows floats,
// k-major (chunk[kk][r] = A(br kRows + r, 16 t + kk)), zeros past the edges; the chunks of one
// block row follow each other: chunk br * tiles_k + t.
template <int kRows>
__global__ void __launch_bounds__(256) pack_a_kernel(const float* __restrict__ a, float* __restrict__ packed, int m,
                                                     int k, int tiles_k) {
  __shared__ float piece[kDepth][kRows + 1];
  const int t = blockIdx.x, br = blockIdx.y;
  const int row0 = br * kRows, k0 = t * kDepth;
  for (int index = threadIdx.x; index < kDepth * kRows; index += blockDim.x) {
    const int r = index / kDepth, kk = index % kDepth;  // 16 neighbours of a row of A
    const int ai = row0 + r, ak = k0 + kk;
    piece[kk][r] = (ai < m && ak < k) ? a[at(ai, ak, k)] : 0.0f;
  }
  __syncthreads();
  float* chunk = packed + (std::size_t(br) * tiles_k + t) * (kDepth * kRows);
  for (int index = threadIdx.x; index < kDepth * kRows; index += blockDim.x)
    chunk[index] = piece[index / kRows][index % kRows];
}

// Packed B (only when B's rows are not 16-byte aligned): the same chunks without the
// transposition, 16 x 128, chunk bc * tiles_k + t for block column bc.
__global__ void __launch_bounds__(256) pack_b_kernel(const float* __restrict__ b, float* __restrict__ packed, int n,
                                                     int k, int tiles_k) {
  const int t = blockIdx.x, bc = blockIdx.y;
  float* chunk = packed + (std::size_t(bc) * tiles_k + t) * (kDepth * kBlockTile);
  for (int index = threadIdx.x; index < kDepth * kBlockTile; index += blockDim.x) {
    const int bk = t * kDepth + index / kBlockTile, bj = bc * kBlockTile + index % kBlockTile;
    chunk[index] = (bk < k && bj < n) ? b[at(bk, bj, n)] : 0.0f;
  }
}

constexpr int kStages = 3;
constexpr int kStageFloats = 2 * kDepth * kBlockTile;  // A's chunk then B's tile: 16 KiB
constexpr std::size_t kPipelineSharedBytes = kStages * kStageFloats * sizeof(float);  // 48 KiB

// 04.8's multiply fed by cp.async, three stages. B comes from packed_b when it is not null, else
// from b in place (rows 16-byte aligned).
__global__ void __launch_bounds__(kThreads, 2)
    sgemm_pipeline_kernel(const float* __restrict__ packed_a, const float* __restrict__ b,
                          const float* __restrict__ packed_b, float* __restrict__ out, int m, int n, int k,
                          int slice_depth, bool vector_out) {
  extern __shared__ __align__(16) float stages[];
  const int tid = threadIdx.x, tx = tid % 16, ty = tid / 16;
  const int row0 = blockIdx.y * kBlockTile, col0 = blockIdx.x * kBlockTile;
  const int tiles_k = (k + kDepth - 1) / kDepth;
  const int k_begin = blockIdx.z * slice_depth;
  const int k_end = min(k, k_begin + slice_depth);
  const int tile_begin = k_begin / kDepth;
  const int tiles = k_end > k_begin ? (k_end - k_begin + kDepth - 1) / kDepth : 0;
  out += std::size_t(blockIdx.z) * m * n;
  const float* a_chunks = packed_a + std::size_t(blockIdx.y) * tiles_k * (kDepth * kBlockTile);
  const float* b_chunks = packed_b ? packed_b + std::size_t(blockIdx.x) * tiles_k * (kDepth * kBlockTile) : nullptr;

  // Start the copies of tile t (of this slice) into stage s: two pieces of 16 bytes of A and two of B.
  const auto start_copies = [&](int t, int s) {
    float* a_stage = stages + s * kStageFloats;
    float* b_stage = a_stage + kDepth * kBlockTile;
    const int tile = tile_begin + t;
    const float* a_src = a_chunks + std::size_t(tile) * (kDepth * kBlockTile);
    copy_16_bytes(a_stage + 4 * tid, a_src + 4 * tid);
    copy_16_bytes(a_stage + 1024 + 4 * tid, a_src + 1024 + 4 * tid);
    if (b_chunks != nullptr) {
      const float* b_src = b_chunks + std::size_t(tile) * (kDepth * kBlockTile);
      copy_16_bytes(b_stage + 4 * tid, b_src + 4 * tid);
      copy_16_bytes(b_stage + 1024 + 4 * tid, b_src + 1024 + 4 * tid);
    } else {
#pragma unroll
      for (int e = 0; e < 2; ++e) {
        const int index = tid + e * kThreads;
        const int kk = index / 32, c4 = 4 * (index % 32);
        const int bk = tile * kDepth + kk, bj = col0 + c4;
        const bool valid = bk < k && bj < n;  // zero-fill past k and n; the source stays a valid address
        copy_16_bytes(b_stage + kk * kBlockTile + c4, valid ? b + at(bk, bj, n) : b, valid);
      }
    }
  };

  float acc[8][8];
#pragma unroll
  for (int i = 0; i < 8; ++i)
#pragma unroll
    for (int j = 0; j < 8; ++j) acc[i][j] = 0.0f;

  if (tiles > 0) start_copies(0, 0);
  commit_copies();
  if (tiles > 1) start_copies(1, 1);
  commit_copies();
  for (int t = 0; t < tiles; ++t) {
    wait_for_copies<1>();  // this tile's group has landed
    __syncthreads();       // everyone's has, and everyone is done with the stage refilled next
    if (t + 2 < tiles) start_copies(t + 2, (t + 2) % kStages);
    commit_copies();  // even when empty, so that the wait keeps meaning "this tile"
    const float* a_stage = stages + (t % kStages) * kStageFloats;
    multiply_tile_pair(a_stage, kBlockTile, a_stage + kDepth * kBlockTile, tx, ty, acc);
  }
  store_piece(out, m, n, row0, col0, tx, ty, vector_out, acc);
}

// The workspace of 04.10 (and 04.11): packed A, packed B when needed, then the partial products.
struct PackedLayout {
  SplitPlan plan;
  int tiles_k = 0;
  bool pack_b = false;
  std::size_t a_offset = 0, b_offset = 0, partials_offset = 0, total = 0;  // bytes
};

PackedLayout packed_layout(const GemmProblem& p) {
  PackedLayout layout;
  if (p.m <= 0 || p.n <= 0 || p.k <= 0) return layout;
  layout.plan = plan_slices(p.m, p.n, p.k, kBlockTile, kBlockTile,
                            blocks_per_sm(sgemm_pipeline_kernel, kThreads, kPipelineSharedBytes));
  layout.tiles_k = workbook::ceil_div(p.k, kDepth);
  layout.pack_b = !(p.n % 4 == 0 && aligned16(p.b));
  const std::size_t chunk_bytes = kDepth * kBlockTile * sizeof(float);
  std::size_t offset = 0;
  layout.a_offset = offset;
  offset += round_up_bytes(std::size_t(workbook::ceil_div(p.m, kBlockTile)) * layout.tiles_k * chunk_bytes);
  layout.b_offset = offset;
  if (layout.pack_b)
    offset += round_up_bytes(std::size_t(workbook::ceil_div(p.n, kBlockTile)) * layout.tiles_k * chunk_bytes);
  layout.partials_offset = offset;
  if (layout.plan.splits > 1) offset += round_up_bytes(std::size_t(layout.plan.splits) * p.m * p.n * sizeof(float));
  layout.total = offset;
  return layout;
}

// ---------------------------------------------------------------------------------------------
// TODO(04.11): 256 x 128 tiles, 12 warps: 8 consumers (4 x 2 warps of 64 x 64, 16 x 8 outputs per
// thread) and a producer warpgroup whose one thread asks the copy engine for each stage's tiles.

constexpr int kWsRows = 256;
constexpr int kWsCols = 128;
constexpr int kWsStages = 4;
constexpr int kWsConsumerWarps = 8;
constexpr int kWsThreads = 12 * 32;
constexpr int kWsAFloats = kDepth * kWsRows;                 // 16 KiB
constexpr int kWsBFloats = kDepth * kWsCols;                 // 8 KiB
constexpr int kWsStageFloats = kWsAFloats + kWsBFloats;      // 24 KiB
constexpr unsigned kWsStageBytes = kWsStageFloats * sizeof(float);
constexpr std::size_t kWsSharedBytes =
    kWsStages * std::size_t(kWsStageBytes) + copy_engine::kTileAlignment;  // room to align the stages

__global__ void __launch_bounds__(kWsThreads, 1)
    sgemm_warp_specialized_kernel(const __grid_constant__ copy_engine::TileMap a_map,
                                  const __grid_constant__ copy_engine::TileMap b_map, float* __restrict__ out, int m,
                                  int n, int k, int slice_depth, bool vector_out) {
  namespace ce = copy_engine;
  extern __shared__ __align__(128) unsigned char raw_shared[];
  __shared__ __align__(8) std::uint64_t landed[kWsStages];
  __shared__ __align__(8) std::uint64_t freed[kWsStages];
  // The stages 128-byte aligned in the shared window, whatever the dynamic base's alignment.
  const unsigned base = ce::shared_address(raw_shared);
  float* stages = reinterpret_cast<float*>(raw_shared + ((ce::kTileAlignment - base % ce::kTileAlignment) %
                                                         ce::kTileAlignment));

  const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
  const int tiles_k = (k + kDepth - 1) / kDepth;
  const int k_begin = blockIdx.z * slice_depth;
  const int k_end = min(k, k_begin + slice_depth);
  const int tile_begin = k_begin / kDepth;
  const int tiles = k_end > k_begin ? (k_end - k_begin + kDepth - 1) / kDepth : 0;

  if (tid == 0) {
    for (int s = 0; s < kWsStages; ++s) {
      ce::init_barrier(&landed[s], 1);                 // the producer's expect_bytes
      ce::init_barrier(&freed[s], kWsConsumerWarps);  // one arrival per consumer warp
    }
    ce::make_barrier_inits_visible();
  }
  __syncthreads();  // the last block-wide barrier

  if (warp >= kWsConsumerWarps) {
    // The producer warpgroup.
    ce::give_registers<40>();
    if (tid == kWsConsumerWarps * 32) {
      for (int t = 0; t < tiles; ++t) {
        const int s = t % kWsStages;
        const int use = t / kWsStages;
        if (use > 0) ce::wait_for_phase(&freed[s], (use - 1) & 1);  // the consumers are done with it
        float* a_stage = stages + s * kWsStageFloats;
        float* b_stage = a_stage + kWsAFloats;
        const int tile = tile_begin + t;
        ce::expect_bytes(&landed[s], kWsStageBytes);
        ce::load_tile(a_stage, a_map, (blockIdx.y * tiles_k + tile) * kDepth, 0, &landed[s]);
        ce::load_tile(b_stage, b_map, tile * kDepth, blockIdx.x * kWsCols, &landed[s]);
      }
    }
    return;
  }

  // The consumers.
  ce::take_registers<232>();
  const int warp_row = warp / 2, warp_col = warp % 2;  // 4 x 2 warps of 64 x 64
  const int lane_row = lane / 8, lane_col = lane % 8;  // 4 x 8 lanes
  const int a_offset = warp_row * 64 + 4 * lane_row;   // + 16 i, i < 4
  const int b_offset = warp_col * 64 + 4 * lane_col;   // + 32 j, j < 2

  float acc[16][8];
#pragma unroll
  for (int i = 0; i < 16; ++i)
#pragma unroll
    for (int j = 0; j < 8; ++j) acc[i][j] = 0.0f;

  for (int t = 0; t < tiles; ++t) {
    const int s = t % kWsStages;
    ce::wait_for_phase(&landed[s], (t / kWsStages) & 1);
    const float* a_stage = stages + s * kWsStageFloats;
    const float* b_stage = a_stage + kWsAFloats;
#pragma unroll
    for (int kk = 0; kk < kDepth; ++kk) {
      float av[16], bv[8];
#pragma unroll
      for (int q = 0; q < 4; ++q) {
        const float4 v = *reinterpret_cast<const float4*>(a_stage + kk * kWsRows + a_offset + 16 * q);
        av[4 * q + 0] = v.x;
        av[4 * q + 1] = v.y;
        av[4 * q + 2] = v.z;
        av[4 * q + 3] = v.w;
      }
#pragma unroll
      for (int q = 0; q < 2; ++q) {
        const float4 v = *reinterpret_cast<const float4*>(b_stage + kk * kWsCols + b_offset + 32 * q);
        bv[4 * q + 0] = v.x;
        bv[4 * q + 1] = v.y;
        bv[4 * q + 2] = v.z;
        bv[4 * q + 3] = v.w;
      }
#pragma unroll
      for (int i = 0; i < 16; ++i)
#pragma unroll
        for (int j = 0; j < 8; ++j) acc[i][j] = fmaf(av[i], bv[j], acc[i][j]);
    }
    __syncwarp();
    if (lane == 0) ce::arrive(&freed[s]);  // this warp is done with the stage
  }

  out += std::size_t(blockIdx.z) * m * n;
  const int row0 = blockIdx.y * kWsRows + a_offset, col0 = blockIdx.x * kWsCols + b_offset;
#pragma unroll
  for (int i = 0; i < 16; ++i) {
    const int row = row0 + 16 * (i / 4) + i % 4;
    if (row >= m) continue;
#pragma unroll
    for (int q = 0; q < 2; ++q) {
      const int col = col0 + 32 * q;
      if (vector_out) {
        if (col < n)
          *reinterpret_cast<float4*>(out + at(row, col, n)) =
              make_float4(acc[i][4 * q + 0], acc[i][4 * q + 1], acc[i][4 * q + 2], acc[i][4 * q + 3]);
      } else {
#pragma unroll
        for (int j = 0; j < 4; ++j)
          if (col + j < n) out[at(row, col + j, n)] = acc[i][4 * q + j];
      }
    }
  }
}

// Copy of B with rows padded to a multiple of 4 floats (pitch), for the copy engine.
__global__ void copy_b_aligned_kernel(const float* __restrict__ b, float* __restrict__ copy, int n, int pitch,
                                      std::size_t count) {
  const std::size_t index = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (index >= count) return;
  const std::size_t row = index / n, col = index % n;
  copy[row * pitch + col] = b[index];
}

struct WsLayout {
  SplitPlan plan;
  int tiles_k = 0;
  bool copy_b = false;
  int b_pitch = 0;
  std::size_t a_offset = 0, b_offset = 0, partials_offset = 0, total = 0;  // bytes
};

WsLayout ws_layout(const GemmProblem& p) {
  WsLayout layout;
  if (p.m <= 0 || p.n <= 0 || p.k <= 0) return layout;
  layout.plan = plan_slices(p.m, p.n, p.k, kWsRows, kWsCols,
                            blocks_per_sm(sgemm_warp_specialized_kernel, kWsThreads, kWsSharedBytes));
  layout.tiles_k = workbook::ceil_div(p.k, kDepth);
  layout.copy_b = !(p.n % 4 == 0 && aligned16(p.b));
  layout.b_pitch = round_up(p.n, 4);
  std::size_t offset = 0;
  layout.a_offset = offset;
  offset += round_up_bytes(std::size_t(workbook::ceil_div(p.m, kWsRows)) * layout.tiles_k * kWsAFloats * sizeof(float));
  layout.b_offset = offset;
  if (layout.copy_b) offset += round_up_bytes(std::size_t(p.k) * layout.b_pitch * sizeof(float));
  layout.partials_offset = offset;
  if (layout.plan.splits > 1) offset += round_up_bytes(std::size_t(layout.plan.splits) * p.m * p.n * sizeof(float));
  layout.total = offset;
  return layout;
}

}  // namespace

// Each launcher: validate (return when there is nothing to do), size the grid so that partial tiles
// are covered (workbook::ceil_div), and launch with
// workbook::launch(kernel, grid, block, 0, stream, problem.a, problem.b, problem.c, problem.m, problem.n, problem.k).

void sgemm_coalesced(const GemmProblem& problem, cudaStream_t stream) {
  if (!validate(problem, "sgemm_coalesced", 8)) return;
  const dim3 grid(workbook::ceil_div(problem.n, kCoalescedCols), workbook::ceil_div(problem.m, kCoalescedRows));
  workbook::launch(sgemm_coalesced_kernel, grid, dim3(kCoalescedCols, kCoalescedRows), 0, stream, problem.a, problem.b,
                   problem.c, problem.m, problem.n, problem.k);
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
  const dim3 grid(workbook::ceil_div(problem.n, kBlockTile), workbook::ceil_div(problem.m, kBlockTile));
  if (rows_aligned(problem))
    workbook::launch(sgemm_register_blocked_kernel<true>, grid, dim3(kThreads), 0, stream, problem.a, problem.b,
                     problem.c, problem.m, problem.n, problem.k);
  else
    workbook::launch(sgemm_register_blocked_kernel<false>, grid, dim3(kThreads), 0, stream, problem.a, problem.b,
                     problem.c, problem.m, problem.n, problem.k);
}

void sgemm_double_buffered(const GemmProblem& problem, cudaStream_t stream) {
  if (!validate(problem, "sgemm_double_buffered", 128)) return;
  launch_double_buffered(problem, problem.c, SplitPlan{1, round_up(problem.k, kDepth)}, stream);
}

void sgemm_split_k(const GemmProblem& problem, cudaStream_t stream) {
  if (!validate(problem, "sgemm_split_k", 128)) return;
  const SplitPlan plan = split_k_plan(problem);
  if (plan.splits <= 1) {
    launch_double_buffered(problem, problem.c, plan, stream);
    return;
  }
  float* partials = workspace_of(problem, "sgemm_split_k", sgemm_split_k_workspace_bytes(problem));
  launch_double_buffered(problem, partials, plan, stream);
  launch_sum_slices(partials, problem.c, problem.m, problem.n, plan.splits, stream);
}

void sgemm_packed_pipeline(const GemmProblem& problem, cudaStream_t stream) {
  if (!validate(problem, "sgemm_packed_pipeline", 128)) return;
  const GemmProblem& p = problem;
  const std::size_t count = std::size_t(p.m) * p.n;
  if (p.k == 0) {  // C = 0
    workbook::launch(fill_zero_kernel, dim3(static_cast<unsigned>((count + 255) / 256)), dim3(256), 0, stream, p.c,
                     count);
    return;
  }
  const PackedLayout layout = packed_layout(p);
  auto* workspace =
      reinterpret_cast<unsigned char*>(workspace_of(p, "sgemm_packed_pipeline", sgemm_packed_pipeline_workspace_bytes(p)));
  auto* packed_a = reinterpret_cast<float*>(workspace + layout.a_offset);
  float* packed_b = layout.pack_b ? reinterpret_cast<float*>(workspace + layout.b_offset) : nullptr;
  const bool split = layout.plan.splits > 1;
  float* out = split ? reinterpret_cast<float*>(workspace + layout.partials_offset) : p.c;
  const bool vector_out = p.n % 4 == 0 && aligned16(out);

  const int block_rows = workbook::ceil_div(p.m, kBlockTile), block_cols = workbook::ceil_div(p.n, kBlockTile);
  workbook::launch(pack_a_kernel<kBlockTile>, dim3(layout.tiles_k, block_rows), dim3(256), 0, stream, p.a, packed_a,
                   p.m, p.k, layout.tiles_k);
  if (layout.pack_b)
    workbook::launch(pack_b_kernel, dim3(layout.tiles_k, block_cols), dim3(256), 0, stream, p.b, packed_b, p.n, p.k,
                     layout.tiles_k);
  const float* packed_b_const = packed_b;
  const float* packed_a_const = packed_a;
  workbook::launch(sgemm_pipeline_kernel, dim3(block_cols, block_rows, layout.plan.splits), dim3(kThreads),
                   kPipelineSharedBytes, stream, packed_a_const, p.b, packed_b_const, out, p.m, p.n, p.k,
                   layout.plan.depth, vector_out);
  if (split) launch_sum_slices(out, p.c, p.m, p.n, layout.plan.splits, stream);
}

void sgemm_warp_specialized(const GemmProblem& problem, cudaStream_t stream) {
  if (!validate(problem, "sgemm_warp_specialized", 256)) return;
  const GemmProblem& p = problem;
  const std::size_t count = std::size_t(p.m) * p.n;
  if (p.k == 0) {  // C = 0 (a tensor map of an empty matrix does not exist)
    workbook::launch(fill_zero_kernel, dim3(static_cast<unsigned>((count + 255) / 256)), dim3(256), 0, stream, p.c,
                     count);
    return;
  }
  const WsLayout layout = ws_layout(p);
  auto* workspace = reinterpret_cast<unsigned char*>(
      workspace_of(p, "sgemm_warp_specialized", sgemm_warp_specialized_workspace_bytes(p)));
  auto* packed_a = reinterpret_cast<float*>(workspace + layout.a_offset);
  const bool split = layout.plan.splits > 1;
  float* out = split ? reinterpret_cast<float*>(workspace + layout.partials_offset) : p.c;
  const bool vector_out = p.n % 4 == 0 && aligned16(out);
  const int block_rows = workbook::ceil_div(p.m, kWsRows), block_cols = workbook::ceil_div(p.n, kWsCols);

  workbook::launch(pack_a_kernel<kWsRows>, dim3(layout.tiles_k, block_rows), dim3(256), 0, stream, p.a, packed_a, p.m,
                   p.k, layout.tiles_k);
  const float* b_source = p.b;
  int b_pitch = p.n;
  if (layout.copy_b) {
    auto* b_copy = reinterpret_cast<float*>(workspace + layout.b_offset);
    const std::size_t b_count = std::size_t(p.k) * p.n;
    workbook::launch(copy_b_aligned_kernel, dim3(static_cast<unsigned>((b_count + 255) / 256)), dim3(256), 0, stream,
                     p.b, b_copy, p.n, layout.b_pitch, b_count);
    b_source = b_copy;
    b_pitch = layout.b_pitch;
  }
  const copy_engine::TileMap a_map =
      copy_engine::make_tile_map(packed_a, block_rows * layout.tiles_k * kDepth, kWsRows, kWsRows, kDepth, kWsRows);
  const copy_engine::TileMap b_map = copy_engine::make_tile_map(b_source, p.k, p.n, b_pitch, kDepth, kWsCols);
  workbook::launch(sgemm_warp_specialized_kernel, dim3(block_cols, block_rows, layout.plan.splits), dim3(kWsThreads),
                   kWsSharedBytes, stream, a_map, b_map, out, p.m, p.n, p.k, layout.plan.depth, vector_out);
  if (split) launch_sum_slices(out, p.c, p.m, p.n, layout.plan.splits, stream);
}

std::size_t sgemm_split_k_workspace_bytes(const GemmProblem& shape) {
  if (shape.m <= 0 || shape.n <= 0 || shape.k <= 0) return 0;
  const SplitPlan plan = split_k_plan(shape);
  return plan.splits > 1 ? std::size_t(plan.splits) * shape.m * shape.n * sizeof(float) : 0;
}

std::size_t sgemm_packed_pipeline_workspace_bytes(const GemmProblem& shape) { return packed_layout(shape).total; }

std::size_t sgemm_warp_specialized_workspace_bytes(const GemmProblem& shape) { return ws_layout(shape).total; }

}  // namespace sgemm_lab
