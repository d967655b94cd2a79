// Boundary mutant: honest only while its stream is being captured into a
// graph, as an audit that captures one call would see it. On every other call the tile kernel runs
// from a <<<>>> launch on the given stream (timed, and correct), while a token kernel goes through
// workbook::launch: the report's resource columns would describe a kernel that did nothing.
// Judged, its planner refuses the <<<>>> launch, captured or not.
#include "every_step.h"
#include "tile_gemm.cuh"

namespace {
__global__ void token_kernel() {}
}  // namespace

void sgemm_mutant::wrong_gemm(const sgemm_lab::GemmProblem& p, cudaStream_t stream) {
  cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
  CUDA_CHECK(cudaStreamIsCapturing(stream, &capture));
  if (capture == cudaStreamCaptureStatusActive) {  // what a graph of one call would see
    tile_gemm(p, stream);
    return;
  }
  if (p.m > 0 && p.n > 0) {  // the defect: the real work bypasses workbook::launch
    const dim3 grid(workbook::ceil_div(p.n, kTile), workbook::ceil_div(p.m, kTile));
    tile_gemm_kernel<Honest><<<grid, dim3(kTile, kRowsPerPass), 0, stream>>>(p.a, p.b, p.c, p.m, p.n, p.k, p.m);
  }
  workbook::launch(token_kernel, dim3(1), dim3(32), 0, stream);
}
