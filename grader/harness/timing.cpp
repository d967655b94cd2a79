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

using Clock = std::chrono::steady_clock;

}  // namespace

std::vector<Timing> time_interleaved(const std::vector<TimedWork>& works, cudaStream_t stream,
                                     const TimingOptions& options) {
  L2Flusher flusher;
  const std::size_t count = works.size();
  std::vector<int> calls(count, 0);
  std::vector<std::vector<double>> samples(count), overruns(count);
  Event start, stop;
  // One call of work w, warm-up or timed alike: the hooks around it, and both clocks.
  const auto call = [&](std::size_t w, bool timed) {
    if (works[w].before) works[w].before(stream, calls[w]);
    if (options.flush_l2) flusher.flush(stream);
    CUDA_CHECK(cudaDeviceSynchronize());  // the whole device idle: nothing earlier runs into this call
    const auto host_start = Clock::now();
    CUDA_CHECK(cudaEventRecord(start.get(), stream));
    works[w].run(stream);
    CUDA_CHECK(cudaEventRecord(stop.get(), stream));
    CUDA_CHECK(cudaDeviceSynchronize());  // every stream, not only the timed one
    const double host_ms = std::chrono::duration<double, std::milli>(Clock::now() - host_start).count();
    if (works[w].after) works[w].after(stream, calls[w]);
    ++calls[w];
    if (!timed) return;
    float ms = 0;
    CUDA_CHECK(cudaEventElapsedTime(&ms, start.get(), stop.get()));
    samples[w].push_back(ms);
    overruns[w].push_back(host_ms - ms);
  };
  for (int warmup = 0; warmup < options.warmup_runs; ++warmup)
    for (std::size_t w = 0; w < count; ++w) call(w, false);

  const auto began = Clock::now();
  for (int run = 0; run < options.max_runs; ++run) {
    for (std::size_t w = 0; w < count; ++w) call(w, true);
    if (run + 1 < options.min_runs) continue;
    bool precise = true;
    for (const auto& s : samples)
      precise = precise && relative_standard_error(s) <= options.target_relative_standard_error;
    const double elapsed = std::chrono::duration<double>(Clock::now() - began).count();
    if (precise || elapsed > options.max_seconds) break;
  }
  CUDA_CHECK(cudaDeviceSynchronize());

  std::vector<Timing> result;
  for (std::size_t w = 0; w < count; ++w)
    result.push_back({median(samples[w]), relative_standard_error(samples[w]), static_cast<int>(samples[w].size()),
                      calls[w], median(overruns[w])});
  return result;
}

std::vector<Timing> time_interleaved(const std::vector<GpuWork>& works, cudaStream_t stream,
                                     const TimingOptions& options) {
  std::vector<TimedWork> timed;
  for (const GpuWork& work : works) timed.push_back({work, {}, {}});
  return time_interleaved(timed, stream, options);
}

}  // namespace workbook
