// Lab 06_reduce_scan, reference solution: Harris's reduction ladder and the scan, to CUB speed.
//
// A sum of n ints reads 4n bytes and does n - 1 additions: at memory speed the additions are free,
// so a reduction is a read, and every step below removes a reason it is not yet one (Harris,
// "Optimizing Parallel Reduction in CUDA", 2007: seven kernels, 2.08 to 62.67 GB/s on a G80):
//   06.1  interleaved addressing with a strided index: no divergent warps (the baseline's
//         tid % (2s) test leaves most threads of every warp idle), but bank conflicts
//   06.2  sequential addressing: no bank conflicts
//   06.3  the first addition during the load: no thread idle from the first level on
//   06.4  the last warp by shuffles (Harris's unsynchronized last warp is a race since Volta)
//   06.5  complete unrolling: the block size a template parameter
//   06.6  many elements per thread, int4 loads in flight, a grid sized to the GPU, one pass
// An exclusive scan reads 4n bytes and writes 4n; the steps take it from three passes over memory
// to one (Blelloch 1990; Merrill and Garland 2016):
//   06.7  Blelloch's work-efficient up-sweep and down-sweep in shared memory, bank-conflict free;
//         block totals scanned; offsets added
//   06.8  Hillis-Steele within each warp by shuffles: fewer barriers beat fewer additions
//   06.9  register blocking: 16 elements per thread, moved by warp transposes, reduce-then-scan
//   06.10 a single pass with decoupled look-back
// The kernels are in two parts: reduce_steps.cuh and scan_steps.cuh; this file holds the launchers
// and the workspace sizes.

#include <algorithm>
#include <cstddef>

#include "given.cuh"  // validate(), workspace_of(): the starter's, unchanged
#include "reduce_scan.h"
#include "reduce_steps.cuh"
#include "scan_steps.cuh"
#include "workbook/launch.cuh"

namespace reduce_scan_lab {

namespace {

const Sum* input(const SumProblem& p) { return reinterpret_cast<const Sum*>(p.in); }
Sum* output(const SumProblem& p) { return reinterpret_cast<Sum*>(p.out); }

// How many blocks of `kernel` the GPU holds at once: SMs x blocks per SM.
template <typename... Params>
int block_slots(void (*kernel)(Params...), int threads) {
  int device = 0, sms = 0, blocks_per_sm = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_sm, kernel, threads, 0));
  return sms * blocks_per_sm;
}

// The multi-pass reductions (06.1 to 06.5): one block per `per_block` elements, pass after pass.
template <typename Kernel>
void reduce_multi_pass(const SumProblem& p, const char* step, Kernel kernel, int per_block, cudaStream_t stream) {
  validate(p, step, Output::kOneSum);
  Sum* const scratch =
      static_cast<Sum*>(workspace_of(p, step, reduce_passes_sums(p.n, per_block) * sizeof(Sum)));
  reduce_in_passes(kernel, per_block, input(p), p.n, output(p), scratch, stream);
}

// 06.10's workspace: one state word per tile, and the counter that numbers the tiles.
struct LookBackWorkspace {
  std::size_t tiles = 0;
  std::size_t bytes() const { return tiles * sizeof(unsigned long long) + sizeof(unsigned long long); }
};
LookBackWorkspace look_back_workspace(std::size_t n) { return {workbook::ceil_div(n, std::size_t(TilePolicy::kTile))}; }

// 06.9's workspace: the tiles' totals, then the scratch of their scan in levels.
std::size_t reduce_then_scan_sums(std::size_t n) {
  const std::size_t tiles = workbook::ceil_div(n, std::size_t(TilePolicy::kTile));
  return tiles + scan_levels_sums(tiles, ReducePolicy::kThreads);
}

}  // namespace

std::size_t reduce_workspace_bytes(const SumProblem& shape) {
  // 06.1 and 06.2 cover 256 elements per block and need the most; 06.6 needs none.
  return reduce_passes_sums(shape.n, ReducePolicy::kThreads) * sizeof(Sum);
}

std::size_t scan_workspace_bytes(const SumProblem& shape) {
  const std::size_t n = shape.n;
  return std::max({scan_levels_sums(n, ReducePolicy::kThreads) * sizeof(Sum),
                   scan_levels_sums(n, BlellochPolicy::kElements) * sizeof(Sum), reduce_then_scan_sums(n) * sizeof(Sum),
                   look_back_workspace(n).bytes()});
}

void reduce_interleaved(const SumProblem& p, cudaStream_t stream) {
  reduce_multi_pass(p, "reduce_interleaved", reduce_interleaved_kernel, ReducePolicy::kThreads, stream);
}

void reduce_sequential(const SumProblem& p, cudaStream_t stream) {
  reduce_multi_pass(p, "reduce_sequential", reduce_sequential_kernel, ReducePolicy::kThreads, stream);
}

void reduce_first_add_during_load(const SumProblem& p, cudaStream_t stream) {
  reduce_multi_pass(p, "reduce_first_add_during_load", reduce_first_add_kernel, 2 * ReducePolicy::kThreads, stream);
}

void reduce_last_warp_shuffled(const SumProblem& p, cudaStream_t stream) {
  reduce_multi_pass(p, "reduce_last_warp_shuffled", reduce_last_warp_kernel, 2 * ReducePolicy::kThreads, stream);
}

void reduce_unrolled(const SumProblem& p, cudaStream_t stream) {
  reduce_multi_pass(p, "reduce_unrolled", reduce_unrolled_kernel<ReducePolicy::kThreads>, 2 * ReducePolicy::kThreads,
                    stream);
}

void reduce_at_cub_speed(const SumProblem& p, cudaStream_t stream) {
  using P = ManyPolicy;
  validate(p, "reduce_at_cub_speed", Output::kOneSum);
  static const int slots = block_slots(reduce_many_kernel<P>, P::kThreads);
  // No more blocks than the GPU holds at once, nor than there are int4 to load.
  const std::size_t wanted = workbook::ceil_div(p.n / 4 + 1, std::size_t(P::kThreads));
  const unsigned blocks = static_cast<unsigned>(std::min<std::size_t>(slots, wanted));
  CUDA_CHECK(cudaMemsetAsync(p.out, 0, sizeof(Sum), stream));  // the blocks add their sums to it
  workbook::launch(reduce_many_kernel<P>, dim3(blocks), dim3(P::kThreads), 0, stream, input(p), output(p), p.n);
}

void scan_blelloch(const SumProblem& p, cudaStream_t stream) {
  using P = BlellochPolicy;
  validate(p, "scan_blelloch", Output::kPrefixSums);
  Sum* const scratch =
      static_cast<Sum*>(workspace_of(p, "scan_blelloch", scan_levels_sums(p.n, P::kElements) * sizeof(Sum)));
  scan_in_levels(scan_blelloch_kernel<P>, P::kThreads, P::kElements, input(p), output(p), p.n, scratch, stream);
}

void scan_hillis_steele(const SumProblem& p, cudaStream_t stream) {
  validate(p, "scan_hillis_steele", Output::kPrefixSums);
  constexpr int kThreads = ReducePolicy::kThreads;
  Sum* const scratch = static_cast<Sum*>(
      workspace_of(p, "scan_hillis_steele", scan_levels_sums(p.n, kThreads) * sizeof(Sum)));
  scan_in_levels(scan_shuffle_kernel<kThreads>, kThreads, kThreads, input(p), output(p), p.n, scratch, stream);
}

void scan_register_blocked(const SumProblem& p, cudaStream_t stream) {
  using P = TilePolicy;
  validate(p, "scan_register_blocked", Output::kPrefixSums);
  if (p.n == 0) return;
  Sum* const totals =
      static_cast<Sum*>(workspace_of(p, "scan_register_blocked", reduce_then_scan_sums(p.n) * sizeof(Sum)));
  const std::size_t tiles = workbook::ceil_div(p.n, std::size_t(P::kTile));
  workbook::launch(tile_totals_kernel<P>, dim3(static_cast<unsigned>(tiles)), dim3(P::kThreads), 0, stream, input(p),
                   p.n, totals);
  constexpr int kThreads = ReducePolicy::kThreads;  // the totals: scanned in place as 06.8 scans
  scan_in_levels(scan_shuffle_kernel<kThreads>, kThreads, kThreads, totals, totals, tiles, totals + tiles, stream);
  workbook::launch(scan_tiles_kernel<P>, dim3(static_cast<unsigned>(tiles)), dim3(P::kThreads), 0, stream, input(p),
                   output(p), p.n, totals);
}

void scan_decoupled_look_back(const SumProblem& p, cudaStream_t stream) {
  using P = TilePolicy;
  validate(p, "scan_decoupled_look_back", Output::kPrefixSums);
  if (p.n == 0) return;
  const LookBackWorkspace layout = look_back_workspace(p.n);
  void* const workspace = workspace_of(p, "scan_decoupled_look_back", layout.bytes());
  auto* const states = static_cast<unsigned long long*>(workspace);
  auto* const next_tile = reinterpret_cast<unsigned*>(states + layout.tiles);
  // Every tile starts with nothing published, and the counter at 0: the workspace holds garbage.
  CUDA_CHECK(cudaMemsetAsync(workspace, 0, layout.bytes(), stream));
  workbook::launch(scan_look_back_kernel<P>, dim3(static_cast<unsigned>(layout.tiles)), dim3(P::kThreads), 0, stream,
                   input(p), output(p), p.n, states, next_tile);
}

}  // namespace reduce_scan_lab
