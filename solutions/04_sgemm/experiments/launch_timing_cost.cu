// What timing a call launch by launch costs the call: 04.9's split-k is two launches (the slices'
// products, about 50 us at 1000^3, then their sum, a few us), and the grader times every call's
// launches one by one ([calls-alike], [work-launches]). Three ways, each call timed by events around
// it, on one stream, 400 calls each, interleaved:
//   none      the two launches back to back (what the call costs untimed);
//   event     an event recorded between them (the grader's way);
//   cupti     no event, CUPTI's kernel activity records (each kernel's start and end on the GPU).
// Prints each way's median call time and its cost over `none`.
//   nvcc -O2 -std=c++20 -arch=sm_90 launch_timing_cost.cu -lcupti -o launch_timing_cost && ./launch_timing_cost
#include <cuda_runtime.h>
#include <cupti.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

#define CHECK(call)                                                                   \
  do {                                                                                \
    if ((call) != 0) {                                                                \
      std::fprintf(stderr, "%s failed at %s:%d\n", #call, __FILE__, __LINE__);       \
      std::exit(1);                                                                   \
    }                                                                                 \
  } while (0)

// Spins about `ns` of GPU time, every SM busy, as a memory- or compute-bound kernel keeps them.
__global__ void busy_kernel(unsigned long long ns, float* sink) {
  unsigned long long start, now;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  float x = threadIdx.x;
  do {
    for (int i = 0; i < 64; ++i) x = x * 0.999f + 0.001f;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  } while (now - start < ns);
  if (x == 12345.f) *sink = x;
}

std::vector<unsigned long long> kernel_ns;  // CUPTI's records: each kernel's end - start

void CUPTIAPI buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *size = 1 << 22;
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(8, *size));
  *max_records = 0;
}
void CUPTIAPI buffer_completed(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t valid) {
  CUpti_Activity* record = nullptr;
  while (cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS)
    if (record->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) {
      const auto* kernel = reinterpret_cast<const CUpti_ActivityKernel10*>(record);
      kernel_ns.push_back(kernel->end - kernel->start);
    }
  std::free(buffer);
}

double median(std::vector<float> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main() {
  cudaStream_t stream;
  CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  int sms = 0;
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  float* sink = nullptr;
  CHECK(cudaMalloc(&sink, sizeof(float)));
  cudaEvent_t start, between, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&between));
  CHECK(cudaEventCreate(&stop));
  enum Way { kNone, kEvent, kCupti };
  const char* names[] = {"none", "event", "cupti"};
  constexpr int kCalls = 400;
  CHECK(cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed));
  for (const unsigned long long first_ns : {50'000ull, 10'000ull}) {
    std::vector<float> ms[3];
    for (int call = 0; call < 3 * kCalls; ++call) {
      const Way way = static_cast<Way>(call % 3);
      if (way == kCupti) CHECK(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL));
      CHECK(cudaDeviceSynchronize());
      CHECK(cudaEventRecord(start, stream));
      busy_kernel<<<sms * 4, 256, 0, stream>>>(first_ns, sink);
      if (way == kEvent) CHECK(cudaEventRecord(between, stream));
      busy_kernel<<<sms * 4, 256, 0, stream>>>(3'000, sink);
      CHECK(cudaEventRecord(stop, stream));
      CHECK(cudaEventSynchronize(stop));
      if (way == kCupti) {
        CHECK(cuptiActivityDisable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL));
        CHECK(cuptiActivityFlushAll(0));
      }
      float elapsed = 0;
      CHECK(cudaEventElapsedTime(&elapsed, start, stop));
      if (call >= 30) ms[way].push_back(elapsed);  // the first calls warm up
    }
    const double none = median(ms[kNone]);
    std::printf("first kernel %llu us, second 3 us:\n", first_ns / 1000);
    for (int way = 0; way < 3; ++way)
      std::printf("  %-6s median call %.2f us, +%.2f us (%.2f%%) over none\n", names[way], 1000 * median(ms[way]),
                  1000 * (median(ms[way]) - none), 100 * (median(ms[way]) / none - 1));
    std::printf("  cupti records: %zu kernels\n", kernel_ns.size());
    kernel_ns.clear();
  }
  return 0;
}
