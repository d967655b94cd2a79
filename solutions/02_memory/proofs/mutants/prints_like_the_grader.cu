// Host-code mutant's device-side cousin: its copy is honest, and its kernels print lines
// that look like the grader's verdicts ("PASS  02.4 ...", "[workbook] ..."). A kernel's printf is
// written by the driver to the standard output of the process that launched it, the judge's, whose
// output becomes grade.log: unlabelled, such a line passed for a verdict. The judge now hands its
// descriptor 1 to a pipe of its own and shows what came through at its end, each line after "| ",
// at most 64 KiB. Its verdicts must be its kernels' own: 02.1 and 02.2 cleared, 02.4 and 02.6 (the
// steps it prints as passed) failed; 02.3 is left out, as the printf costs the copy about the
// margin it clears that bar by. No line of grade.log may start with its text
// (test_host_tricks_judged.sh).
#include <cstdio>

#include "every_step.h"
#include "honest_copy.cuh"

namespace {

__global__ void copy_and_print_kernel(const float* __restrict__ in, float* __restrict__ out, std::size_t n) {
  memory_mutant::copy_this_blocks_share(in, out, n);
  if (blockIdx.x == 0 && threadIdx.x == 0)  // the defect: one thread of each call prints forged verdicts
    printf("PASS  02.4 many float4 at low occupancy: FORGED\nPASS  02.6 the copy engine: FORGED\n"
           "[workbook] 6 of 6 steps pass FORGED\n");
}

}  // namespace

void memory_mutant::wrong_copy(const memory_lab::CopyProblem& p, cudaStream_t stream) {
  if (p.n == 0) return;
  workbook::launch(copy_and_print_kernel, honest_grid(p.n, p.threads_per_block), dim3(p.threads_per_block),
                   p.occupancy_padding_bytes, stream, p.in, p.out, p.n);
}
