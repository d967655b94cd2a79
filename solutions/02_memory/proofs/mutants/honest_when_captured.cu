// Boundary mutant: a launcher that asks whether its stream is being
// captured into a graph, as an audit that captures one call would, and is honest only then. On
// every other call it copies at full occupancy with a <<<>>> launch on the given stream (so it is
// timed) and records a token kernel through workbook::launch, whose registers and occupancy the
// report would then show as the step's. Judged, its planner refuses the <<<>>> launch, captured or not.
#include "every_step.h"
#include "honest_copy.cuh"

namespace {
__global__ void token_kernel() {}
}  // namespace

void memory_mutant::wrong_copy(const memory_lab::CopyProblem& p, cudaStream_t stream) {
  cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
  CUDA_CHECK(cudaStreamIsCapturing(stream, &capture));
  if (capture == cudaStreamCaptureStatusActive) {  // what a graph of one call would see
    honest_copy(p, p.n, stream);
    return;
  }
  if (p.n > 0) honest_copy_kernel<<<honest_grid(p.n, 256), 256, 0, stream>>>(p.in, p.out, p.n);  // the defect
  workbook::launch(token_kernel, dim3(1), dim3(p.threads_per_block), p.occupancy_padding_bytes, stream);
}
