// Defence mutant [block-order]: the look-back scan with each block's tile taken from blockIdx.x
// instead of a counter. Right and fast on a GPU that starts blocks in blockIdx order, as the H100
// does; where a later block starts first (another GPU, another scheduler, work beside it holding
// SMs), a block may spin on a predecessor that cannot start until a spinning block finishes: a hang.
// No run on this GPU shows it, so the grader reads the kernel's machine code for blockIdx.
#include "every_step.h"
#include "tile_scan.cuh"

namespace {
using namespace reduce_scan_mutant;

struct TilesByBlockIndex {
  __device__ static unsigned take(const ScanWorkspace&) { return blockIdx.x; }  // the defect
};
}  // namespace

namespace reduce_scan_mutant {
void wrong_sum(const reduce_scan_lab::SumProblem&, cudaStream_t) { not_this_mutant("sums"); }
void wrong_scan(const reduce_scan_lab::SumProblem& p, cudaStream_t s) {
  tile_scan<TilesByBlockIndex, WholeWordLookBack>(p, s, "look_back_by_block_index");
}
std::size_t sum_workspace_bytes(const reduce_scan_lab::SumProblem&) { return 0; }
std::size_t scan_workspace_bytes(const reduce_scan_lab::SumProblem& shape) { return scan_workspace_bytes_for(shape.n); }
}  // namespace reduce_scan_mutant
