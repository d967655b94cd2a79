#include "harness/timing.h"

#include <chrono>
#include <numeric>

#include "harness/stats.h"
#include "workbook/cuda.h"
#include "workbook/launch_log.h"

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

// Spins until the host's flag reaches `ticket`, or until `timeout_ns` have passed (then it says so
// in *timed_out): a launcher that waits for the device inside its call would otherwise wait for
// this kernel, which waits for the host, forever.
__global__ void wait_for_host_kernel(const volatile unsigned* flag, unsigned ticket, unsigned long long timeout_ns,
                                     volatile unsigned* timed_out) {
  unsigned long long start = 0, now = 0;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  while (*flag < ticket) {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
    if (now - start > timeout_ns) {
      *timed_out = ticket;
      return;
    }
    __nanosleep(200);
  }
}

// Holds a stream until the host opens it. A timed call is queued behind the gate, so that its
// start event fires only once the launcher has returned and all its work is queued: the event
// clock then times the GPU's work alone, as it would in a program that queues ahead, and not
// the host's launch latency (a few microseconds, which the shortest steps would feel).
class HostGate {
 public:
  HostGate() {
    CUDA_CHECK(cudaHostAlloc(&flags_, 2 * sizeof(unsigned), cudaHostAllocMapped));
    flags_[0] = flags_[1] = 0;
    CUDA_CHECK(cudaHostGetDevicePointer(&device_flags_, flags_, 0));
  }
  ~HostGate() { cudaFreeHost(flags_); }
  HostGate(const HostGate&) = delete;
  HostGate& operator=(const HostGate&) = delete;

  void close(cudaStream_t stream) {
    constexpr unsigned long long kTimeoutNs = 50'000'000;  // 50 ms
    wait_for_host_kernel<<<1, 1, 0, stream>>>(device_flags_, ++ticket_, kTimeoutNs, device_flags_ + 1);
    CUDA_CHECK(cudaGetLastError());
  }
  void open() { __atomic_store_n(&flags_[0], ticket_, __ATOMIC_RELEASE); }
  // Whether the last gate gave up waiting: the call in between kept the host 50 ms or more.
  bool gave_up() const { return __atomic_load_n(&flags_[1], __ATOMIC_ACQUIRE) == ticket_; }

 private:
  unsigned* flags_ = nullptr;  // [0]: the ticket the host let through; [1]: the last ticket that timed out
  unsigned* device_flags_ = nullptr;
  unsigned ticket_ = 0;
};

// After a call that threw: the launch clock stopped, so that no later launch records an event for
// this call; its times are of no call, and a failure to read them is not the call's error.
void stop_launch_clock_of_a_failed_call(cudaEvent_t call_start) {
  try {
    stop_timing_launches(call_start, call_start);
  } catch (...) {
  }
}

// Whether a work's timed calls tell its mean well enough (TimingOptions): enough of them, by count
// or, for a long work, by time, and a relative standard error under the target.
bool precise_enough(const std::vector<double>& samples_ms, const TimingOptions& options) {
  const double timed_ms = std::accumulate(samples_ms.begin(), samples_ms.end(), 0.0);
  const std::size_t runs = samples_ms.size();
  const bool enough = runs >= static_cast<std::size_t>(options.min_runs) ||
                      (runs >= static_cast<std::size_t>(kFewestRuns) && timed_ms >= options.min_seconds * 1000);
  return enough && relative_standard_error(samples_ms) <= options.target_relative_standard_error;
}

}  // namespace

std::vector<Timing> time_interleaved(const std::vector<TimedWork>& works, cudaStream_t stream,
                                     const TimingOptions& options) {
  L2Flusher flusher;
  HostGate gate;
  const std::size_t count = works.size();
  std::vector<int> calls(count, 0), waits(count, 0);
  std::vector<std::vector<double>> samples(count);
  Event start, stop;
  // One call of work w, warm-up or timed alike: the hooks around it, and the events. Returns its
  // milliseconds.
  const auto call = [&](std::size_t w, bool timed) {
    if (works[w].before) works[w].before(stream, calls[w]);
    if (options.flush_l2) flusher.flush(stream);
    CUDA_CHECK(cudaDeviceSynchronize());  // the whole device idle: nothing earlier runs into this call
    gate.close(stream);
    CUDA_CHECK(cudaEventRecord(start.get(), stream));
    const bool by_launch = static_cast<bool>(works[w].launch_times);
    if (by_launch) start_timing_launches();
    try {
      works[w].run(stream);
    } catch (...) {  // the gate opened, so that nothing of this call outlives it
      gate.open();
      cudaDeviceSynchronize();
      if (by_launch) stop_launch_clock_of_a_failed_call(start.get());
      throw;
    }
    CUDA_CHECK(cudaEventRecord(stop.get(), stream));
    gate.open();
    CUDA_CHECK(cudaDeviceSynchronize());  // every stream, not only the timed one
    if (by_launch) works[w].launch_times(calls[w], stop_timing_launches(start.get(), stop.get()));
    if (works[w].after) works[w].after(stream, calls[w]);
    ++calls[w];
    float ms = 0;
    CUDA_CHECK(cudaEventElapsedTime(&ms, start.get(), stop.get()));
    if (timed) {
      waits[w] += gate.gave_up();
      samples[w].push_back(ms);
    }
    return double{ms};
  };
  // Warm-up, interleaved: a work is warm after warmup_runs calls, or fewer that took warmup_seconds.
  std::vector<int> warmups(count, 0);
  std::vector<double> warmup_ms(count, 0);
  for (int round = 0; round < options.warmup_runs; ++round)
    for (std::size_t w = 0; w < count; ++w)
      if (round == 0 || warmup_ms[w] < options.warmup_seconds * 1000) {
        warmup_ms[w] += call(w, false);
        ++warmups[w];
      }
  // Timed, interleaved: each work until it is precise enough (TimingOptions), then it leaves, where
  // every call starts from a flushed L2 and an idle device, so that what runs between a work's calls
  // changes nothing of them. Without the flush a call finds in L2 what the calls before it left:
  // every work stays until all are done, or the last would run alone on an L2 warm with its own data
  // (cuFFT at 05.5's batch in L2 ran 8% faster so, 74 calls in a row).
  const bool works_leave = options.flush_l2;
  const auto began = Clock::now();
  std::vector<bool> finished(count, false);
  for (int run = 0; run < options.max_runs; ++run) {
    bool all_done = true;
    for (std::size_t w = 0; w < count; ++w) {
      if (finished[w] && works_leave) continue;
      call(w, true);
      finished[w] = precise_enough(samples[w], options);
      all_done = all_done && finished[w];
    }
    const double elapsed = std::chrono::duration<double>(Clock::now() - began).count();
    if (all_done || elapsed > options.max_seconds) break;
  }
  CUDA_CHECK(cudaDeviceSynchronize());

  std::vector<Timing> result;
  for (std::size_t w = 0; w < count; ++w)
    result.push_back({median(samples[w]), relative_standard_error(samples[w]), static_cast<int>(samples[w].size()),
                      calls[w], warmups[w], waits[w]});
  return result;
}

std::vector<Timing> time_interleaved(const std::vector<GpuWork>& works, cudaStream_t stream,
                                     const TimingOptions& options) {
  std::vector<TimedWork> timed;
  for (const GpuWork& work : works) timed.push_back({work, {}, {}});
  return time_interleaved(timed, stream, options);
}

void time_unflushed_call_by_launch(const TimedWork& work, int call, cudaStream_t stream) {
  if (work.before) work.before(stream, call);
  const Event start, stop;
  CUDA_CHECK(cudaDeviceSynchronize());
  CUDA_CHECK(cudaEventRecord(start.get(), stream));
  start_timing_launches();
  try {
    work.run(stream);
  } catch (...) {
    cudaDeviceSynchronize();
    stop_launch_clock_of_a_failed_call(start.get());
    throw;
  }
  CUDA_CHECK(cudaEventRecord(stop.get(), stream));
  CUDA_CHECK(cudaDeviceSynchronize());
  work.launch_times(call, stop_timing_launches(start.get(), stop.get()));
  if (work.after) work.after(stream, call);
}

double time_one_call_ms(const GpuWork& work, cudaStream_t stream) {
  const Event start, stop;
  CUDA_CHECK(cudaDeviceSynchronize());
  CUDA_CHECK(cudaEventRecord(start.get(), stream));
  work(stream);
  CUDA_CHECK(cudaEventRecord(stop.get(), stream));
  CUDA_CHECK(cudaDeviceSynchronize());  // every stream: work elsewhere must not be checked half-done
  float ms = 0;
  CUDA_CHECK(cudaEventElapsedTime(&ms, start.get(), stop.get()));
  return ms;
}

}  // namespace workbook
