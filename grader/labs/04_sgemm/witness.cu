// The witnesses of lab 04_sgemm: see witness.h. Each kernel is written from its step's paragraph in
// the handout, in the most direct way: loads straight from global memory into shared memory inside
// the loop, a bounds check on every element that can fall outside a matrix, no prefetching the
// handout does not ask for. Where a witness and the reference solution differ, the difference is
// tuning the bar must not demand.
#include "witness.h"

#include <cstddef>
#include <cstdint>

#include "given.cuh"  // validate(), at()
#include "workbook/launch.cuh"

namespace sgemm_witness {

namespace {

using sgemm_lab::at;

// A(i, kk), or 0 outside the matrix: the plainest guard.
__device__ inline float element_or_zero(const float* matrix, int rows, int cols, int i, int j) {
  return (i < rows && j < cols) ? matrix[at(i, j, cols)] : 0.0f;
}

// 04.1: one output per thread, threadIdx.x along a row of C.
__global__ void coalesced_kernel(const float* a, const float* b, float* c, int m, int n, int k) {
  const int i = blockIdx.y * blockDim.y + threadIdx.y;
  const int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= m || j >= n) return;
  float sum = 0.0f;
  for (int kk = 0; kk < k; ++kk) sum += a[at(i, kk, k)] * b[at(kk, j, n)];
  c[at(i, j, n)] = sum;
}

// 04.2 to 04.5: 32 x 32 tiles of A and B in shared memory; a block of 32 x (32 / R) threads, thread
// (x, y) computing the R consecutive outputs of column x that start at row R y.
template <int R>
__global__ void tiled_kernel(const float* a, const float* b, float* c, int m, int n, int k) {
  constexpr int kTile = 32;
  __shared__ float a_tile[kTile][kTile];
  __shared__ float b_tile[kTile][kTile];
  const int x = threadIdx.x, y = threadIdx.y;
  const int row0 = blockIdx.y * kTile, col = blockIdx.x * kTile + x;
  float sum[R] = {};
  for (int k0 = 0; k0 < k; k0 += kTile) {
    for (int r = 0; r < R; ++r) {
      const int row = R * y + r;
      a_tile[row][x] = element_or_zero(a, m, k, row0 + row, k0 + x);
      b_tile[row][x] = element_or_zero(b, k, n, k0 + row, col);
    }
    __syncthreads();
    for (int kk = 0; kk < kTile; ++kk) {
      const float b_value = b_tile[kk][x];
      for (int r = 0; r < R; ++r) sum[r] += a_tile[R * y + r][kk] * b_value;
    }
    __syncthreads();
  }
  for (int r = 0; r < R; ++r)
    if (row0 + R * y + r < m && col < n) c[at(row0 + R * y + r, col, n)] = sum[r];
}

template <int R>
void launch_tiled(const GemmProblem& p, const char* name, cudaStream_t stream) {
  if (!sgemm_lab::validate(p, name, 32)) return;
  const dim3 grid(workbook::ceil_div(p.n, 32), workbook::ceil_div(p.m, 32));
  workbook::launch(tiled_kernel<R>, grid, dim3(32, 32 / R), 0, stream, p.a, p.b, p.c, p.m, p.n, p.k);
}

// 04.6: a block of 256 threads, a 64 x 256 tile of C; thread x keeps column x's 64 sums. Per tile,
// its 8 values of B(k, x) from global memory into registers, loaded before the barrier as the handout
// says (one per k inside the loop measured below 04.5); A's 64 values per k from shared memory,
// stored k-major and read as float4 broadcasts. Tile depth 8.
__global__ void rank1_kernel(const float* a, const float* b, float* c, int m, int n, int k) {
  constexpr int kRows = 64, kThreads = 256, kDepth = 8;
  __shared__ __align__(16) float a_tile[kDepth][kRows];
  const int x = threadIdx.x;
  const int row0 = blockIdx.y * kRows, col = blockIdx.x * kThreads + x;
  float sum[kRows] = {};
  for (int k0 = 0; k0 < k; k0 += kDepth) {
    float b_values[kDepth];
#pragma unroll
    for (int kk = 0; kk < kDepth; ++kk) b_values[kk] = element_or_zero(b, k, n, k0 + kk, col);
    for (int e = x; e < kRows * kDepth; e += kThreads) {
      const int row = e / kDepth, kk = e % kDepth;
      a_tile[kk][row] = element_or_zero(a, m, k, row0 + row, k0 + kk);
    }
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < kDepth; ++kk) {
#pragma unroll
      for (int row = 0; row < kRows; row += 4) {
        const float4 a4 = *reinterpret_cast<const float4*>(&a_tile[kk][row]);
        sum[row + 0] += a4.x * b_values[kk];
        sum[row + 1] += a4.y * b_values[kk];
        sum[row + 2] += a4.z * b_values[kk];
        sum[row + 3] += a4.w * b_values[kk];
      }
    }
    __syncthreads();
  }
#pragma unroll
  for (int row = 0; row < kRows; ++row)
    if (row0 + row < m && col < n) c[at(row0 + row, col, n)] = sum[row];
}

// 04.7 and 04.8: a block of 256 threads, a 128 x 128 tile of C; thread (tx, ty) computes rows 4 ty ..
// and 64 + 4 ty .. by columns 4 tx .. and 64 + 4 tx ... A's 128 x 16 tile is stored transposed, rows
// padded to 132 floats; B's 16 x 128 as it is. kVector: k and n are multiples of 4 and the pointers
// 16-byte aligned, so a thread fetches each float4 of a tile in one load, else as four guarded floats.
constexpr int kTileM = 128, kTileN = 128, kDepth = 16, kPitchA = kTileM + 4, kBlockThreads = 256;

template <bool kVector>
__device__ inline float4 fetch4(const float* matrix, int rows, int cols, int i, int j) {
  if (kVector) {
    if (i < rows && j < cols) return *reinterpret_cast<const float4*>(matrix + at(i, j, cols));
    return make_float4(0.0f, 0.0f, 0.0f, 0.0f);
  }
  return make_float4(element_or_zero(matrix, rows, cols, i, j), element_or_zero(matrix, rows, cols, i, j + 1),
                     element_or_zero(matrix, rows, cols, i, j + 2), element_or_zero(matrix, rows, cols, i, j + 3));
}

// A's two float4 of this thread (row t / 4 and t / 4 + 64, k0 + 4 (t % 4)) and B's two (row t / 32 and
// t / 32 + 8, column 4 (t % 32)) of the tiles at k0.
struct Fetched {
  float4 a[2], b[2];
};

template <bool kVector>
__device__ inline Fetched fetch_tiles(const float* a, const float* b, int m, int n, int k, int row0, int col0, int k0) {
  const int t = threadIdx.x;
  Fetched f;
  for (int h = 0; h < 2; ++h) {
    f.a[h] = fetch4<kVector>(a, m, k, row0 + t / 4 + 64 * h, k0 + 4 * (t % 4));
    f.b[h] = fetch4<kVector>(b, k, n, k0 + t / 32 + 8 * h, col0 + 4 * (t % 32));
  }
  return f;
}

__device__ inline void store_tiles(const Fetched& f, float (*a_tile)[kPitchA], float (*b_tile)[kTileN]) {
  const int t = threadIdx.x;
  for (int h = 0; h < 2; ++h) {
    const int row = t / 4 + 64 * h, kk = 4 * (t % 4);
    a_tile[kk + 0][row] = f.a[h].x;
    a_tile[kk + 1][row] = f.a[h].y;
    a_tile[kk + 2][row] = f.a[h].z;
    a_tile[kk + 3][row] = f.a[h].w;
    *reinterpret_cast<float4*>(&b_tile[t / 32 + 8 * h][4 * (t % 32)]) = f.b[h];
  }
}

__device__ inline void multiply_tiles(const float (*a_tile)[kPitchA], const float (*b_tile)[kTileN], int tx, int ty,
                                      float (&sum)[8][8]) {
#pragma unroll
  for (int kk = 0; kk < kDepth; ++kk) {
    const float4 a_low = *reinterpret_cast<const float4*>(&a_tile[kk][4 * ty]);
    const float4 a_high = *reinterpret_cast<const float4*>(&a_tile[kk][64 + 4 * ty]);
    const float4 b_low = *reinterpret_cast<const float4*>(&b_tile[kk][4 * tx]);
    const float4 b_high = *reinterpret_cast<const float4*>(&b_tile[kk][64 + 4 * tx]);
    const float a_values[8] = {a_low.x, a_low.y, a_low.z, a_low.w, a_high.x, a_high.y, a_high.z, a_high.w};
    const float b_values[8] = {b_low.x, b_low.y, b_low.z, b_low.w, b_high.x, b_high.y, b_high.z, b_high.w};
#pragma unroll
    for (int r = 0; r < 8; ++r)
#pragma unroll
      for (int s = 0; s < 8; ++s) sum[r][s] += a_values[r] * b_values[s];
  }
}

__device__ inline void store_sums(const float (&sum)[8][8], float* c, int m, int n, int row0, int col0, int tx, int ty) {
#pragma unroll
  for (int r = 0; r < 8; ++r)
#pragma unroll
    for (int s = 0; s < 8; ++s) {
      const int i = row0 + (r < 4 ? 4 * ty + r : 64 + 4 * ty + r - 4);
      const int j = col0 + (s < 4 ? 4 * tx + s : 64 + 4 * tx + s - 4);
      if (i < m && j < n) c[at(i, j, n)] = sum[r][s];
    }
}

// 04.7: fetch a tile pair, store it, wait, multiply it, wait, the next.
template <bool kVector>
__global__ void __launch_bounds__(kBlockThreads) register_blocked_kernel(const float* a, const float* b, float* c,
                                                                          int m, int n, int k) {
  __shared__ __align__(16) float a_tile[kDepth][kPitchA];
  __shared__ __align__(16) float b_tile[kDepth][kTileN];
  const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
  const int row0 = blockIdx.y * kTileM, col0 = blockIdx.x * kTileN;
  float sum[8][8] = {};
  for (int k0 = 0; k0 < k; k0 += kDepth) {
    store_tiles(fetch_tiles<kVector>(a, b, m, n, k, row0, col0, k0), a_tile, b_tile);
    __syncthreads();
    multiply_tiles(a_tile, b_tile, tx, ty, sum);
    __syncthreads();
  }
  store_sums(sum, c, m, n, row0, col0, tx, ty);
}

// 04.8: two copies of each tile. The next pair is fetched into registers before this one is
// multiplied and stored into the other copy after: one barrier per tile.
template <bool kVector>
__global__ void __launch_bounds__(kBlockThreads) double_buffered_kernel(const float* a, const float* b, float* c,
                                                                         int m, int n, int k) {
  __shared__ __align__(16) float a_tile[2][kDepth][kPitchA];
  __shared__ __align__(16) float b_tile[2][kDepth][kTileN];
  const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
  const int row0 = blockIdx.y * kTileM, col0 = blockIdx.x * kTileN;
  float sum[8][8] = {};
  store_tiles(fetch_tiles<kVector>(a, b, m, n, k, row0, col0, 0), a_tile[0], b_tile[0]);
  __syncthreads();
  int buffer = 0;
  for (int k0 = 0; k0 < k; k0 += kDepth) {
    const bool more = k0 + kDepth < k;
    Fetched next;
    if (more) next = fetch_tiles<kVector>(a, b, m, n, k, row0, col0, k0 + kDepth);
    multiply_tiles(a_tile[buffer], b_tile[buffer], tx, ty, sum);
    if (more) store_tiles(next, a_tile[1 - buffer], b_tile[1 - buffer]);
    __syncthreads();
    buffer = 1 - buffer;
  }
  store_sums(sum, c, m, n, row0, col0, tx, ty);
}

bool rows_start_16_byte_aligned(const GemmProblem& p) {
  const auto aligned = [](const void* pointer) { return reinterpret_cast<std::uintptr_t>(pointer) % 16 == 0; };
  return p.k % 4 == 0 && p.n % 4 == 0 && aligned(p.a) && aligned(p.b);
}

template <typename Kernel>
void launch_blocked(const GemmProblem& p, const char* name, Kernel vector_kernel, Kernel scalar_kernel,
                    cudaStream_t stream) {
  if (!sgemm_lab::validate(p, name, kTileM)) return;
  const dim3 grid(workbook::ceil_div(p.n, kTileN), workbook::ceil_div(p.m, kTileM));
  workbook::launch(rows_start_16_byte_aligned(p) ? vector_kernel : scalar_kernel, grid, dim3(kBlockThreads), 0, stream,
                   p.a, p.b, p.c, p.m, p.n, p.k);
}

}  // namespace

void coalesced(const GemmProblem& p, cudaStream_t stream) {
  if (!sgemm_lab::validate(p, "witness of 04.1", 32)) return;
  const dim3 grid(workbook::ceil_div(p.n, 32), workbook::ceil_div(p.m, 32));
  workbook::launch(coalesced_kernel, grid, dim3(32, 32), 0, stream, p.a, p.b, p.c, p.m, p.n, p.k);
}

void shared_tiles(const GemmProblem& p, cudaStream_t stream) { launch_tiled<1>(p, "witness of 04.2", stream); }
void outputs_per_thread_2(const GemmProblem& p, cudaStream_t stream) { launch_tiled<2>(p, "witness of 04.3", stream); }
void outputs_per_thread_4(const GemmProblem& p, cudaStream_t stream) { launch_tiled<4>(p, "witness of 04.4", stream); }
void outputs_per_thread_8(const GemmProblem& p, cudaStream_t stream) { launch_tiled<8>(p, "witness of 04.5", stream); }

void rank1_updates(const GemmProblem& p, cudaStream_t stream) {
  if (!sgemm_lab::validate(p, "witness of 04.6", 64)) return;
  const dim3 grid(workbook::ceil_div(p.n, 256), workbook::ceil_div(p.m, 64));
  workbook::launch(rank1_kernel, grid, dim3(256), 0, stream, p.a, p.b, p.c, p.m, p.n, p.k);
}

void register_blocked(const GemmProblem& p, cudaStream_t stream) {
  launch_blocked(p, "witness of 04.7", register_blocked_kernel<true>, register_blocked_kernel<false>, stream);
}

void double_buffered(const GemmProblem& p, cudaStream_t stream) {
  launch_blocked(p, "witness of 04.8", double_buffered_kernel<true>, double_buffered_kernel<false>, stream);
}

}  // namespace sgemm_witness
