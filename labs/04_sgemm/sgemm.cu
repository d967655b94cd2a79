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
// FP32 FMA on the CUDA cores only: no tensor cores, no TF32, and no library (the grader checks).
// Grade it with `./workbook grade 04_sgemm`.

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "cp_async.cuh"  // given: cp.async for TODO(04.10)
#include "sgemm.h"
#include "workbook/launch.cuh"

namespace sgemm_lab {

namespace {

// What every launcher checks before it launches (given: use it as it is). A shape a step cannot
// multiply correctly is refused with a message that says why, never multiplied wrongly.
// False: nothing to do (C is empty). rows_per_block: the rows of C one block computes.
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

// Element (i, j) of a row-major matrix `width` floats wide (given). [[maybe_unused]] until your
// kernels use it.
[[maybe_unused]] __host__ __device__ inline std::size_t at(int i, int j, int width) {
  return std::size_t(i) * width + j;
}

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
// TODO(04.10): a kernel that packs A, each 128 x 16 tile transposed into a contiguous chunk (and
// one that packs B when its rows are not 16-byte aligned), then 04.8's multiply fed by cp.async
// copies of whole chunks, three tiles in flight (cp_async.cuh gives the copies); split k as in
// 04.9. The handout has the details.

[[noreturn]] void not_implemented(const char* todo, const char* step) {
  throw workbook::NotImplemented(std::string(todo) + " not implemented: " + step + " (labs/04_sgemm/sgemm.cu)");
}

}  // namespace

// Each launcher: validate (return when there is nothing to do), size the grid so that partial tiles
// are covered (workbook::ceil_div), and launch with
// workbook::launch(kernel, grid, block, 0, stream, problem.a, problem.b, problem.c, problem.m, problem.n, problem.k).

void sgemm_coalesced(const GemmProblem& problem, cudaStream_t) {
  if (!validate(problem, "sgemm_coalesced", 8)) return;
  not_implemented("TODO(04.1)", "sgemm_coalesced");
}

void sgemm_shared_tiles(const GemmProblem& problem, cudaStream_t) {
  if (!validate(problem, "sgemm_shared_tiles", 32)) return;
  not_implemented("TODO(04.2)", "sgemm_shared_tiles");
}

void sgemm_2_outputs_per_thread(const GemmProblem& problem, cudaStream_t) {
  if (!validate(problem, "sgemm_2_outputs_per_thread", 32)) return;
  not_implemented("TODO(04.3)", "sgemm_2_outputs_per_thread");
}

void sgemm_4_outputs_per_thread(const GemmProblem& problem, cudaStream_t) {
  if (!validate(problem, "sgemm_4_outputs_per_thread", 32)) return;
  not_implemented("TODO(04.4)", "sgemm_4_outputs_per_thread");
}

void sgemm_8_outputs_per_thread(const GemmProblem& problem, cudaStream_t) {
  if (!validate(problem, "sgemm_8_outputs_per_thread", 32)) return;
  not_implemented("TODO(04.5)", "sgemm_8_outputs_per_thread");
}

void sgemm_rank1_updates(const GemmProblem& problem, cudaStream_t) {
  if (!validate(problem, "sgemm_rank1_updates", 64)) return;
  not_implemented("TODO(04.6)", "sgemm_rank1_updates");
}

void sgemm_register_blocked(const GemmProblem& problem, cudaStream_t) {
  if (!validate(problem, "sgemm_register_blocked", 128)) return;
  not_implemented("TODO(04.7)", "sgemm_register_blocked");
}

void sgemm_double_buffered(const GemmProblem& problem, cudaStream_t) {
  if (!validate(problem, "sgemm_double_buffered", 128)) return;
  not_implemented("TODO(04.8)", "sgemm_double_buffered");
}

void sgemm_split_k(const GemmProblem& problem, cudaStream_t) {
  if (!validate(problem, "sgemm_split_k", 128)) return;
  not_implemented("TODO(04.9)", "sgemm_split_k");
}

void sgemm_packed_pipeline(const GemmProblem& problem, cudaStream_t) {
  if (!validate(problem, "sgemm_packed_pipeline", 128)) return;
  not_implemented("TODO(04.10)", "sgemm_packed_pipeline");
}

}  // namespace sgemm_lab
