// Mutant of 01.2: the chase links each line to the next one (line k to k + 1): one cycle through
// every line, every link followed, but in an order the hardware can predict, so it need not measure
// a load's latency. The grader must reject the regular stride.
#include <cstdint>
#include <vector>

#include "given.cuh"
#include "latency.h"
#include "one_defect.h"
#include "workbook/launch.cuh"

namespace latency_lab {
namespace {
__global__ void chase_kernel(const std::uint32_t* lines, int warmup_loads, int timed_loads, std::uint32_t* last,
                             long long* cycles) {
  std::uint32_t link = 0;
  for (int i = 0; i < warmup_loads; ++i) link = lines[link];
  const long long begin = clock64();
  for (int i = 0; i < timed_loads; ++i) link = lines[link];
  const long long finish = clock64();
  *last = link;
  *cycles = finish - begin;
}
}  // namespace

void measure_load_latency(const LatencyProblem& p, cudaStream_t stream) {
  const std::size_t lines = p.chase.bytes / kLineBytes;
  std::vector<std::uint32_t> words(lines * kWordsPerLine, 0u);
  for (std::size_t k = 0; k < lines; ++k) words[k * kWordsPerLine] = static_cast<std::uint32_t>((k + 1) % lines * kWordsPerLine);
  CUDA_CHECK(cudaMemcpyAsync(p.chase.lines, words.data(), p.chase.bytes, cudaMemcpyHostToDevice, stream));
  workbook::launch(chase_kernel, dim3(1), dim3(1), 0, stream, p.chase.lines, p.chase.warmup_loads, p.chase.timed_loads,
                   p.chase.last, p.cycles);
}
void measure_fma_latency(const LatencyProblem&, cudaStream_t) { latency_mutant::not_this_mutant("01.2"); }
Occupancy occupancy_of(const BlockShape&, const SmLimits&) { latency_mutant::not_this_mutant("01.2"); }
void fma_with_ilp(const LatencyProblem&, cudaStream_t) { latency_mutant::not_this_mutant("01.2"); }
}  // namespace latency_lab
