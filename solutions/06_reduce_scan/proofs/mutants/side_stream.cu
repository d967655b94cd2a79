// Boundary mutant: a correct sum and a correct scan, each launched through workbook::launch on a
// stream of the launcher's own. The timer sees only the stream it gave; judged, the plan's launches
// are replayed on that stream, and timed like any other.
#include "every_step.h"
#include "tile_scan.cuh"

namespace {
cudaStream_t own_stream() {
  static cudaStream_t own = [] {
    cudaStream_t s = nullptr;
    CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    return s;
  }();
  return own;
}
}  // namespace

namespace reduce_scan_mutant {
void wrong_sum(const reduce_scan_lab::SumProblem& p, cudaStream_t) { grid_sum(p, own_stream(), "side_stream"); }
void wrong_scan(const reduce_scan_lab::SumProblem& p, cudaStream_t) {
  tile_scan<TilesByCounter, WholeWordLookBack>(p, own_stream(), "side_stream");  // the defect: not its stream
}
std::size_t sum_workspace_bytes(const reduce_scan_lab::SumProblem&) { return 0; }
std::size_t scan_workspace_bytes(const reduce_scan_lab::SumProblem& shape) { return scan_workspace_bytes_for(shape.n); }
}  // namespace reduce_scan_mutant
