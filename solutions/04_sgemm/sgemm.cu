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
//   04.11 the copy engine and a producer warpgroup (Hopper): cuBLAS's 256 x 128 tile, 16 x 8
//         outputs per thread, 8 warps that only multiply, fed through mbarriers by a warpgroup
//         that asks the copy engine for each tile and gives its registers to the multipliers
// Steps 04.2 to 04.5 are one template, sgemm_tile_kernel<kOutputsPerThread>: the lesson is in its
// parameter. 04.7, 04.8 and 04.9 each have a kernel of their own, built from the same pieces (fetch
// a tile pair, store it, multiply it), so that the difference between two of them is the step's
// one idea. 04.10 is sgemm_pipelined_kernel, and splits k as 04.9 does.
// The kernels are in four parts: tiled_steps.cuh (04.1 to 04.6), blocked_steps.cuh (04.7 to 04.9),
// packed_pipeline.cuh (04.10) and warp_specialized.cuh (04.11); this file holds the launchers.

#include <cstddef>

#include "blocked_steps.cuh"    // 04.7 to 04.9
#include "given.cuh"            // validate(), workspace_of(), at(): the starter's, unchanged
#include "packed_pipeline.cuh"  // 04.10
#include "sgemm.h"
#include "tiled_steps.cuh"  // 04.1 to 04.6
#include "warp_specialized.cuh"  // 04.11
#include "workbook/launch.cuh"

namespace sgemm_lab {

namespace {

// The grid of 04.7 to 04.9: one block per 128 x 128 tile of C, and `splits` slices of k.
dim3 blocked_grid(const GemmProblem& p, int splits = 1) {
  return dim3(workbook::ceil_div(p.n, BlockedPolicy::kTileN), workbook::ceil_div(p.m, BlockedPolicy::kTileM), splits);
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
  using P = BlockedPolicy;
  if (!validate(p, "sgemm_register_blocked", P::kTileM)) return;
  const auto kernel = rows_are_16_byte_aligned(p) ? sgemm_register_blocked_kernel<P, true>
                                                  : sgemm_register_blocked_kernel<P, false>;
  workbook::launch(kernel, blocked_grid(p), dim3(P::kThreads), 0, stream, p.a, p.b, p.c, p.m, p.n, p.k);
}

void sgemm_double_buffered(const GemmProblem& p, cudaStream_t stream) {
  using P = BlockedPolicy;
  if (!validate(p, "sgemm_double_buffered", P::kTileM)) return;
  const auto kernel = rows_are_16_byte_aligned(p) ? sgemm_double_buffered_kernel<P, true>
                                                  : sgemm_double_buffered_kernel<P, false>;
  workbook::launch(kernel, blocked_grid(p), dim3(P::kThreads), 0, stream, p.a, p.b, p.c, p.m, p.n, p.k);
}

std::size_t sgemm_split_k_workspace_bytes(const GemmProblem& shape) {
  return plan_split_k(shape).workspace_bytes(shape);
}

void sgemm_split_k(const GemmProblem& p, cudaStream_t stream) {
  using P = BlockedPolicy;
  if (!validate(p, "sgemm_split_k", P::kTileM)) return;
  const SplitPlan plan = plan_split_k(p);
  float* const partials = workspace_of(p, "sgemm_split_k", plan.workspace_bytes(p));
  const auto kernel = rows_are_16_byte_aligned(p) ? sgemm_split_k_kernel<P, true> : sgemm_split_k_kernel<P, false>;
  workbook::launch(kernel, blocked_grid(p, plan.splits), dim3(P::kThreads), 0, stream, p.a, p.b, p.c, p.m, p.n, p.k,
                   plan.k_per_split, partials);
  if (plan.splits > 1) sum_splits(p, partials, plan.splits, stream);
}

std::size_t sgemm_packed_pipeline_workspace_bytes(const GemmProblem& shape) {
  return plan_pipeline<PipelinedPolicy, FmaOrder::kColumnsZigZag>(shape).workspace_bytes();
}

void sgemm_packed_pipeline(const GemmProblem& p, cudaStream_t stream) {
  using P = PipelinedPolicy;
  if (!validate(p, "sgemm_packed_pipeline", P::kTileM)) return;
  constexpr FmaOrder kOrder = FmaOrder::kColumnsZigZag;
  float* const workspace = workspace_of(p, "sgemm_packed_pipeline", plan_pipeline<P, kOrder>(p).workspace_bytes());
  launch_pipelined_kernel<P, kOrder>(p, workspace, stream);
}

std::size_t sgemm_warp_specialized_workspace_bytes(const GemmProblem& shape) {
  return plan_warp_specialized<SpecializedPolicy<>>(shape).workspace_bytes();
}

void sgemm_warp_specialized(const GemmProblem& p, cudaStream_t stream) {
  using P = SpecializedPolicy<>;
  if (!validate(p, "sgemm_warp_specialized", P::kTileM)) return;
  float* const workspace = workspace_of(p, "sgemm_warp_specialized", plan_warp_specialized<P>(p).workspace_bytes());
  launch_warp_specialized<P>(p, workspace, stream);
}

}  // namespace sgemm_lab
