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

[[noreturn]] void not_implemented(const char* todo, const char* step) {
  throw workbook::NotImplemented(std::string(todo) + " not implemented: " + step + " (labs/04_sgemm/sgemm.cu)");
}

}  // namespace

// Each launcher: validate (return when there is nothing to do), size the grid so that partial tiles
// are covered (workbook::ceil_div), and launch, for 04.1 to 04.7, with
// workbook::launch(kernel, grid, block, 0, stream, problem.a, problem.b, problem.c, problem.m, problem.n, problem.k)
// (from 04.8 on, with the dynamic shared memory and arguments the step's paragraph gives). Name the
// launcher's cudaStream_t parameter (stream) to pass it on.

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

void sgemm_warp_specialized(const GemmProblem& problem, cudaStream_t) {
  if (!validate(problem, "sgemm_warp_specialized", 256)) return;
  not_implemented("TODO(04.11)", "sgemm_warp_specialized");
}

std::size_t sgemm_split_k_workspace_bytes(const GemmProblem&) {
  not_implemented("TODO(04.9)", "sgemm_split_k_workspace_bytes");
}

std::size_t sgemm_packed_pipeline_workspace_bytes(const GemmProblem&) {
  not_implemented("TODO(04.10)", "sgemm_packed_pipeline_workspace_bytes");
}

std::size_t sgemm_warp_specialized_workspace_bytes(const GemmProblem&) {
  not_implemented("TODO(04.11)", "sgemm_warp_specialized_workspace_bytes");
}

}  // namespace sgemm_lab
