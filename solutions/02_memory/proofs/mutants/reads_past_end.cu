// Memcheck mutant: a correct copy whose threads also read the float after the one they copy (for
// the last thread, one past the end of `in`), used in a comparison that never holds. Inside the
// grader's guard region that read is legal memory, so the output checks pass; with exact-size
// allocations compute-sanitizer's memcheck reports it (the `sanitize` test).
#include "every_step.h"
#include "workbook/launch.cuh"

namespace {
__global__ void copy_reading_ahead_kernel(const float* in, float* out, std::size_t n) {
  const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float next = in[i + 1];  // the defect: in[n] for the last thread
  out[i] = next == -12345.0f ? next : in[i];
}
}  // namespace

void memory_mutant::wrong_copy(const memory_lab::CopyProblem& p, cudaStream_t stream) {
  if (p.n == 0) return;
  workbook::launch(copy_reading_ahead_kernel, dim3(static_cast<unsigned>((p.n + 127) / 128)), dim3(128),
                   p.occupancy_padding_bytes, stream, p.in, p.out, p.n);
}
