// Lab 03_transpose: the diagnostic kernels. Given complete: read them, do not edit them.
//
// A transpose does no arithmetic, so a copy of the same bytes is its speed of light. These four
// kernels use 03.2's shape (32 x 32 tiles, 32 x 8 threads, four rows per thread) and each does one
// part of a transpose's work. Their speeds, beside the steps' in `./workbook bench 03`, say where a
// transpose loses time:
//   copy_plain              a copy: the ceiling for this shape of kernel
//   copy_through_shared     a copy that stages each tile in shared memory: what the barrier costs
//   transpose_within_tiles  the fine-grained half: transposes inside each tile, tiles stay put
//   move_tiles              the coarse-grained half: tiles move to their transposed place intact
// If transpose_within_tiles is slow, the loss is inside the SM (shared memory, bank conflicts); if
// move_tiles is slow, it is in how the writes reach device memory.

#include <stdexcept>
#include <string>

#include "transpose.h"
#include "workbook/launch.cuh"

namespace transpose_lab {

namespace {

struct DiagnosticPolicy {
  static constexpr int kTile = 32;       // floats per tile side: one warp reads one tile row
  static constexpr int kBlockRows = 8;   // 32 x 8 threads, so each thread moves kTile / 8 rows
  static_assert(kTile % kBlockRows == 0, "every thread must move the same number of rows");
};
constexpr int kTile = DiagnosticPolicy::kTile;
constexpr int kBlockRows = DiagnosticPolicy::kBlockRows;
constexpr int kRowsPerThread = kTile / kBlockRows;

// Element (r, c) of a matrix with `width` columns.
__device__ inline std::size_t at(int r, int c, int width) { return std::size_t(r) * width + c; }

__global__ void copy_plain_kernel(const float* __restrict__ in, float* __restrict__ out, int cols) {
  const int c = blockIdx.x * kTile + threadIdx.x;
  const int r = blockIdx.y * kTile + threadIdx.y;
  // Every load before any store, so that four loads are in flight per thread, as in the tile kernels.
  float values[kRowsPerThread];
  for (int k = 0; k < kRowsPerThread; ++k) values[k] = in[at(r + k * kBlockRows, c, cols)];
  for (int k = 0; k < kRowsPerThread; ++k) out[at(r + k * kBlockRows, c, cols)] = values[k];
}

__global__ void copy_through_shared_kernel(const float* __restrict__ in, float* __restrict__ out, int cols) {
  __shared__ float tile[kTile][kTile + 1];
  const int c = blockIdx.x * kTile + threadIdx.x;
  const int r = blockIdx.y * kTile + threadIdx.y;
  for (int k = 0; k < kTile; k += kBlockRows) tile[threadIdx.y + k][threadIdx.x] = in[at(r + k, c, cols)];
  __syncthreads();
  for (int k = 0; k < kTile; k += kBlockRows) out[at(r + k, c, cols)] = tile[threadIdx.y + k][threadIdx.x];
}

// out has the shape of in: tile (x, y) of out is tile (x, y) of in, transposed.
__global__ void transpose_within_tiles_kernel(const float* __restrict__ in, float* __restrict__ out, int cols) {
  __shared__ float tile[kTile][kTile + 1];
  const int c = blockIdx.x * kTile + threadIdx.x;
  const int r = blockIdx.y * kTile + threadIdx.y;
  for (int k = 0; k < kTile; k += kBlockRows) tile[threadIdx.y + k][threadIdx.x] = in[at(r + k, c, cols)];
  __syncthreads();
  for (int k = 0; k < kTile; k += kBlockRows) out[at(r + k, c, cols)] = tile[threadIdx.x][threadIdx.y + k];
}

// out is cols x rows: tile (x, y) of in lands at tile (y, x) of out, in its original orientation.
__global__ void move_tiles_kernel(const float* __restrict__ in, float* __restrict__ out, int rows, int cols) {
  __shared__ float tile[kTile][kTile + 1];
  const int c = blockIdx.x * kTile + threadIdx.x;
  const int r = blockIdx.y * kTile + threadIdx.y;
  for (int k = 0; k < kTile; k += kBlockRows) tile[threadIdx.y + k][threadIdx.x] = in[at(r + k, c, cols)];
  __syncthreads();
  const int out_c = blockIdx.y * kTile + threadIdx.x;
  const int out_r = blockIdx.x * kTile + threadIdx.y;
  for (int k = 0; k < kTile; k += kBlockRows) out[at(out_r + k, out_c, rows)] = tile[threadIdx.y + k][threadIdx.x];
}

// The diagnostics are measuring instruments, not solutions: they handle whole tiles only.
dim3 whole_tiles_grid(const TransposeProblem& p, const char* name) {
  if (p.rows <= 0 || p.cols <= 0 || p.rows % kTile != 0 || p.cols % kTile != 0)
    throw std::invalid_argument(std::string(name) + ": the diagnostic kernels need rows and cols that are positive "
                                "multiples of 32, not " + std::to_string(p.rows) + " x " + std::to_string(p.cols));
  if (p.in == nullptr || p.out == nullptr) throw std::invalid_argument(std::string(name) + ": in and out must not be null");
  if (p.rows / kTile > 65535) throw std::invalid_argument(std::string(name) + ": at most 65535 * 32 rows");
  return dim3(static_cast<unsigned>(p.cols / kTile), static_cast<unsigned>(p.rows / kTile));
}

const dim3 kThreads(kTile, kBlockRows);

}  // namespace

void copy_plain(const TransposeProblem& p, cudaStream_t stream) {
  workbook::launch(copy_plain_kernel, whole_tiles_grid(p, "copy_plain"), kThreads, 0, stream, p.in, p.out, p.cols);
}

void copy_through_shared(const TransposeProblem& p, cudaStream_t stream) {
  workbook::launch(copy_through_shared_kernel, whole_tiles_grid(p, "copy_through_shared"), kThreads, 0, stream, p.in,
                   p.out, p.cols);
}

void transpose_within_tiles(const TransposeProblem& p, cudaStream_t stream) {
  workbook::launch(transpose_within_tiles_kernel, whole_tiles_grid(p, "transpose_within_tiles"), kThreads, 0, stream,
                   p.in, p.out, p.cols);
}

void move_tiles(const TransposeProblem& p, cudaStream_t stream) {
  workbook::launch(move_tiles_kernel, whole_tiles_grid(p, "move_tiles"), kThreads, 0, stream, p.in, p.out, p.rows,
                   p.cols);
}

}  // namespace transpose_lab
