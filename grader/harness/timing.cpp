#include "timing.h"

#include <chrono>

#include "stats.h"
#include "workbook/cuda.h"

namespace workbook {

namespace {

// Writing a buffer twice the size of L2 evicts whatever the previous run left there, so that
// every timed run starts from device memory, as it would in a real application.
class L2Flusher {
 public:
  L2Flusher() {
    int device = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    int l2_bytes = 0;
    CUDA_CHECK(cudaDeviceGetAttribute(&l2_bytes, cudaDevAttrL2CacheSize, device));
    bytes_ = 2 * static_cast<std::size_t>(l2_bytes);
    CUDA_CHECK(cudaMalloc(&buffer_, bytes_));
  }
  ~L2Flusher() { cudaFree(buffer_); }
  void flush(cudaStream_t stream) { CUDA_CHECK(cudaMemsetAsync(buffer_, ++value_, bytes_, stream)); }

 private:
  void* buffer_ = nullptr;
  std::size_t bytes_ = 0;
  unsigned char value_ = 0;
};

class Event {
 public:
  Event() { CUDA_CHECK(cudaEventCreate(&event_)); }
  ~Event() { cudaEventDestroy(event_); }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  cudaEvent_t get() const { return event_; }

 private:
  cudaEvent_t event_ = nullptr;
};

}  // namespace

std::vector<Timing> time_interleaved(const std::vector<GpuWork>& works, cudaStream_t stream,
                                     const TimingOptions& options) {
  L2Flusher flusher;
  for (int warmup = 0; warmup < options.warmup_runs; ++warmup)
    for (const GpuWork& work : works) work(stream);
  CUDA_CHECK(cudaStreamSynchronize(stream));

  const std::size_t count = works.size();
  std::vector<std::vector<double>> samples(count);
  std::vector<Event> starts(count), stops(count);
  const auto began = std::chrono::steady_clock::now();
  for (int run = 0; run < options.max_runs; ++run) {
    for (std::size_t w = 0; w < count; ++w) {
      if (options.flush_l2) flusher.flush(stream);
      CUDA_CHECK(cudaEventRecord(starts[w].get(), stream));
      works[w](stream);
      CUDA_CHECK(cudaEventRecord(stops[w].get(), stream));
    }
    CUDA_CHECK(cudaStreamSynchronize(stream));
    for (std::size_t w = 0; w < count; ++w) {
      float ms = 0;
      CUDA_CHECK(cudaEventElapsedTime(&ms, starts[w].get(), stops[w].get()));
      samples[w].push_back(ms);
    }
    if (run + 1 < options.min_runs) continue;
    bool precise = true;
    for (const auto& s : samples)
      precise = precise && relative_standard_error(s) <= options.target_relative_standard_error;
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
    if (precise || elapsed > options.max_seconds) break;
  }

  std::vector<Timing> result;
  for (const auto& s : samples)
    result.push_back({median(s), relative_standard_error(s), static_cast<int>(s.size())});
  return result;
}

}  // namespace workbook
