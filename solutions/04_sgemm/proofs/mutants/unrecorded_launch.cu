// Boundary mutant: the tile kernel is launched with <<<>>> on the given stream
// (so it is timed, honestly), while a token kernel goes through workbook::launch. The grader would
// report the token's registers and occupancy as the step's: the report's resource columns, the
// point of the lab, would describe a kernel that did nothing. Judged, its planner refuses the <<<>>>.
#include "every_step.h"
#include "tile_gemm.cuh"

namespace {
__global__ void token_kernel() {}
}  // namespace

void sgemm_mutant::wrong_gemm(const sgemm_lab::GemmProblem& p, cudaStream_t stream) {
  if (p.m > 0 && p.n > 0) {  // the defect: the real work bypasses workbook::launch
    const dim3 grid(workbook::ceil_div(p.n, kTile), workbook::ceil_div(p.m, kTile));
    tile_gemm_kernel<Honest><<<grid, dim3(kTile, kRowsPerPass), 0, stream>>>(p.a, p.b, p.c, p.m, p.n, p.k, p.m);
  }
  workbook::launch(token_kernel, dim3(1), dim3(32), 0, stream);
}
