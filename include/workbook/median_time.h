// For the instructor's experiments beside the reference solutions, which time variants
// of a kernel against each other outside the grader: the median time of a piece of GPU work.
// The grader's own timing, with its defences, is timing.h.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <functional>
#include <vector>

namespace workbook {

// Median time of `work` in ms over `runs` runs, after two warm-up runs; when `flush` is given, its
// `flush_bytes` are overwritten before each run, so that L2 starts cold.
inline float median_ms(const std::function<void()>& work, int runs, char* flush = nullptr,
                       std::size_t flush_bytes = 0) {
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  for (int i = 0; i < 2; ++i) work();
  std::vector<float> times;
  for (int i = 0; i < runs; ++i) {
    if (flush != nullptr) cudaMemsetAsync(flush, i, flush_bytes);
    cudaEventRecord(start);
    work();
    cudaEventRecord(stop);
    cudaEventSynchronize(stop);
    float ms = 0;
    cudaEventElapsedTime(&ms, start, stop);
    times.push_back(ms);
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

}  // namespace workbook
