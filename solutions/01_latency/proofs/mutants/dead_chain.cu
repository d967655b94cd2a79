// Mutant of 01.1: the chain's result is never stored, so the compiler deletes the chain and the
// clock reads time nothing. The grader must reject it for the missing result, not for a number.
#include "latency.h"
#include "one_defect.h"
#include "workbook/launch.cuh"

namespace latency_lab {
namespace {
__global__ void dead_chain_kernel(const float* start, int length, float a, float b, long long* cycles) {
  float x = *start;
  const long long begin = clock64();
  for (int i = 0; i < length; ++i) x = fmaf(x, a, b);  // x is never used: dead code
  const long long finish = clock64();
  *cycles = finish - begin;
}
}  // namespace

void measure_fma_latency(const LatencyProblem& p, cudaStream_t stream) {
  workbook::launch(dead_chain_kernel, dim3(1), dim3(1), 0, stream, p.fma.start, p.fma.length, p.fma.a, p.fma.b, p.cycles);
}
void measure_load_latency(const LatencyProblem&, cudaStream_t) { latency_mutant::not_this_mutant("01.1"); }
Occupancy occupancy_of(const BlockShape&, const SmLimits&) { latency_mutant::not_this_mutant("01.1"); }
void fma_with_ilp(const LatencyProblem&, cudaStream_t) { latency_mutant::not_this_mutant("01.1"); }
}  // namespace latency_lab
