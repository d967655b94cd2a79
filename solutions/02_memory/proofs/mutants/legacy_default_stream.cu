// Boundary mutant: a quarter of the copy is launched with <<<>>> and no stream,
// onto the legacy default stream, beside the stream the launcher was given. The grader's stream is
// non-blocking, so nothing orders the two: the quarter runs while the grader's gate still holds the
// given stream, before the start event, and is never timed. No launch record names it, and it
// finishes long before the call's stop event. Judged, as a student's file is, its <<<>>> launch is
// refused in its planner.
#include "student_copy.cuh"

namespace {
void copy(const memory_lab::CopyProblem& p, cudaStream_t stream) {
  const std::size_t quarter = p.n / 16 * 4;  // whole float4s, so that the rest starts 16-byte aligned
  if (quarter > 0) copy_kernel<<<blocks_for(quarter, 256), 256>>>(p.in, p.out, quarter);  // the defect: stream 0
  if (p.n > quarter)
    workbook::launch(copy_kernel, dim3(blocks_for(p.n - quarter, p.threads_per_block)), dim3(p.threads_per_block),
                     p.occupancy_padding_bytes, stream, p.in + quarter, p.out + quarter, p.n - quarter);
}
}  // namespace
